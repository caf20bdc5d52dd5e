"""Section (k): what the permission guard and the audit record add to one tool call.

The call is section (c)'s: ``async def add(a: int, b: int) -> int`` (declared read-only, low
risk: the default policy decides ``auto``), from the JSON text a model sends to the results
message, through the thinker's full path (decode, handler, call door, executor, rendering).
Judged: the time one call takes on a hub with the default guard **and** an `AuditLog` on a
SQLite file (the permission decision, the call's start and finish on the record) minus the
time on a hub with neither (``ToolHub(guard=False)``), median of interleaved rounds; target
at most 15 us added per auto call, amortized (the audit writes in batches on its own thread;
its last batch is flushed inside the timed block). The guard alone is printed, not judged.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from bench_harness import (
    Samples,
    Verdict,
    fmt_time,
    judge_at_most,
    not_judged,
    print_heading,
    print_table,
    print_work,
    settled,
)

#: The most the guard and the audit may add to one auto call (issue 20, acceptance 5).
ADDED_TARGET = 15e-6

WORK = (
    "one call of async add(a, b) from JSON text through the full thinker path on a hub with "
    "the default guard and a SQLite AuditLog, minus the same call on ToolHub(guard=False)"
)
TEXT = '{"a": 1, "b": 2}'


class GuardedCall:
    """The full call path of section (c) on a hub configured by ``guard`` and ``audit``."""

    def __init__(self, *, guard: bool, audit: Path | None) -> None:
        from nucleo_core import ThinkerBase, ToolHub, tool
        from nucleo_core.guard.audit import AuditLog
        from nucleo_core.hub._audit import requester_of
        from nucleo_core.hub.call_door import call_door
        from nucleo_core.models import ModelResponse, ToolUseBlock
        from nucleo_core.thinking import ThinkingResponseHandler
        from nucleo_core.thinking._execution_audit import CallAudit
        from nucleo_core.thinking.execution import ExecutionPolicy, ToolExecutor

        async def add(a: int, b: int) -> int:
            """Add two integers."""
            return a + b

        declared = tool(read_only=True, risk="low")(add)

        class Adder(ThinkerBase):
            @classmethod
            def declare_default_tools(cls) -> list[Any]:
                return [declared]

        self.log = AuditLog.open(audit) if audit is not None else None
        hub = ToolHub(guard=guard, audit=self.log)
        self._thinker = thinker = Adder(hub=hub)
        thinker.reconcile_tool_registry()
        self._handler = ThinkingResponseHandler(str, tools=thinker.registry)
        self._executor = ToolExecutor()
        self._policy = ExecutionPolicy()
        self._check = partial(call_door, thinker)
        self._audit = CallAudit(self.log, requester_of(thinker)) if self.log else None
        self._response = ModelResponse
        self._block = ToolUseBlock

    async def _one(self) -> Any:
        block = self._block(id="call_0", name="add", input=json.loads(TEXT))
        handled = self._handler.handle(self._response(content=(block,), stop_reason="tool_use"))
        execution = self._executor.prepare(
            handled.tool_calls,
            check=self._check,
            parent=self._thinker,
            policy=self._policy,
            registry=self._thinker.registry,
            audit=self._audit,
        )
        await execution.run()
        return execution.report().results_message()

    async def calls(self, count: int) -> Any:
        """``count`` calls, then the audit's queued records stored; the last results message."""
        message: Any = None
        for _ in range(count):
            message = await self._one()
        if self.log is not None:
            self.log.flush()  # the batches this block queued are part of its cost
        return message

    def close(self) -> None:
        """Close the audit log, if the variant keeps one."""
        if self.log is not None:
            self.log.close()


def _timed(path: GuardedCall, count: int) -> float:
    with settled():
        start = time.perf_counter()
        asyncio.run(path.calls(count))
        return (time.perf_counter() - start) / count


def run_guard_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (k): the call with and without the guard and the audit, interleaved."""
    print_heading("(k) The permission guard and the audit record, per auto call")
    print(
        f"{rounds} rounds of {count:,} calls per variant (after a warm-up round); each round "
        "runs every variant once, in a rotating order; GC enabled."
    )
    print_work("(k) judged", WORK)
    with tempfile.TemporaryDirectory() as folder:
        variants = {
            "no guard, no audit": GuardedCall(guard=False, audit=None),
            "default guard": GuardedCall(guard=True, audit=None),
            "default guard + SQLite audit": GuardedCall(
                guard=True, audit=Path(folder) / "audit.sqlite3"
            ),
        }
        figures: dict[str, list[float]] = {label: [] for label in variants}
        try:
            for round_index in range(rounds + 1):
                labels = list(variants)
                shift = round_index % len(labels)
                for label in labels[shift:] + labels[:shift]:
                    size = max(count // 10, 1) if round_index == 0 else count
                    per_call = _timed(variants[label], size)
                    if round_index:
                        figures[label].append(per_call)
        finally:
            for variant in variants.values():
                variant.close()
    samples = {label: Samples(tuple(values)) for label, values in figures.items()}
    bare = samples["no guard, no audit"]
    print_table(
        ["variant", "per call", "added"],
        [
            [label, found.text(), fmt_time((found - bare).median)]
            for label, found in samples.items()
        ],
    )
    guard_only = samples["default guard"] - bare
    both = samples["default guard + SQLite audit"] - bare
    return [
        judge_at_most("k.added", WORK, both, ADDED_TARGET),
        not_judged(
            "k.guard",
            "the default guard alone, per auto call (no audit)",
            guard_only.text(),
            "covers less work than (k): no audit record",
        ),
    ]
