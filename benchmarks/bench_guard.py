"""Section (k): what the permission guard and the audit record add to one tool call.

The call is section (c)'s: ``async def add(a: int, b: int) -> int`` (declared read-only, low
risk: the default policy decides ``auto``), from the JSON text a model sends to the results
message, through the thinker's full path (decode, handler, call door, executor, rendering).
Judged: the time one call takes on a hub with the default guard **and** an `AuditLog` on a
SQLite file (the call's start and finish on the record, the auto decision riding on the
start) minus the time on a hub with neither (``ToolHub(guard=False)``, its calls audited to
no log), median of interleaved rounds; target at most 15 us added per auto call, amortized.
The audit writes in batches (one transaction each: a full one stored by the call that fills
it, the rest by its writer thread; the SQLite log checkpointed by a thread of the store's
own); the block's last batch is stored and synced to disk inside the timed block, so every
record the block made is paid for in it. Each call is its own turn, as in a run: a fresh
call id (its arguments digested anew) and the turn's `CallAudit` made as the thinker makes it.

Printed beside it, not judged: the guard alone (a hub with the guard and no log), the audit
alone (the difference of the two), the ratio of the added cost to the target, and the
process's CPU time added per call (every thread, the writer's and the checkpointer's
included), which a loaded machine moves less than the wall clock.
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
BARE = "no guard, no audit"
GUARD = "default guard"
BOTH = "default guard + SQLite audit"


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
        # A hub given no log audits to its own memory log; the bare variants' turns get no
        # `CallAudit` at all, so that the difference is the whole audit.
        self._call_audit = CallAudit
        self._requester_of = requester_of
        self._thinker = thinker = Adder(hub=hub)
        thinker.reconcile_tool_registry()
        self._handler = ThinkingResponseHandler(str, tools=thinker.registry)
        self._executor = ToolExecutor()
        self._policy = ExecutionPolicy()
        self._check = partial(call_door, thinker)
        self._response = ModelResponse
        self._block = ToolUseBlock
        self._number = 0

    async def _one(self) -> Any:
        self._number += 1
        block = self._block(id=f"call_{self._number}", name="add", input=json.loads(TEXT))
        handled = self._handler.handle(self._response(content=(block,), stop_reason="tool_use"))
        execution = self._executor.prepare(
            handled.tool_calls,
            check=self._check,
            parent=self._thinker,
            policy=self._policy,
            registry=self._thinker.registry,
            # The turn's writer of call records, made as a thinker makes it every turn.
            audit=self._call_audit(self.log, self._requester_of(self._thinker))
            if self.log is not None
            else None,
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


def _timed(path: GuardedCall, count: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds (every thread of the process) per call of a block."""
    with settled():
        cpu = time.process_time()
        start = time.perf_counter()
        asyncio.run(path.calls(count))
        wall = time.perf_counter() - start
        return wall / count, (time.process_time() - cpu) / count


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
            BARE: GuardedCall(guard=False, audit=None),
            GUARD: GuardedCall(guard=True, audit=None),
            BOTH: GuardedCall(guard=True, audit=Path(folder) / "audit.sqlite3"),
        }
        walls: dict[str, list[float]] = {label: [] for label in variants}
        cpus: dict[str, list[float]] = {label: [] for label in variants}
        try:
            for round_index in range(rounds + 1):
                labels = list(variants)
                shift = round_index % len(labels)
                for label in labels[shift:] + labels[:shift]:
                    size = max(count // 10, 1) if round_index == 0 else count
                    wall, cpu = _timed(variants[label], size)
                    if round_index:
                        walls[label].append(wall)
                        cpus[label].append(cpu)
        finally:
            for variant in variants.values():
                variant.close()
    samples = {label: Samples(tuple(values)) for label, values in walls.items()}
    cpu = {label: Samples(tuple(values)) for label, values in cpus.items()}
    bare = samples[BARE]
    print_table(
        ["variant", "per call", "added", "CPU added"],
        [
            [
                label,
                found.text(),
                fmt_time((found - bare).median),
                fmt_time((cpu[label] - cpu[BARE]).median),
            ]
            for label, found in samples.items()
        ],
    )
    guard_only = samples[GUARD] - bare
    both = samples[BOTH] - bare
    audit_only = samples[BOTH] - samples[GUARD]
    print(
        f"added per auto call: {fmt_time(both.median)}, {both.median / ADDED_TARGET:.2f}x the "
        f"{fmt_time(ADDED_TARGET)} target; of it, the guard {fmt_time(guard_only.median)} and the "
        f"audit {fmt_time(audit_only.median)} (medians of the rounds' differences); CPU time "
        f"added {fmt_time((cpu[BOTH] - cpu[BARE]).median)}"
    )
    return [
        judge_at_most("k.added", WORK, both, ADDED_TARGET),
        not_judged(
            "k.guard",
            "the default guard alone, per auto call (no audit)",
            guard_only.text(),
            "covers less work than (k): no audit record",
        ),
        not_judged(
            "k.audit",
            "the SQLite audit alone, per auto call (guard + audit minus guard)",
            audit_only.text(),
            "covers less work than (k): no permission decision",
        ),
        not_judged(
            "k.cpu",
            "CPU time of every thread added per auto call by the guard and the SQLite audit",
            (cpu[BOTH] - cpu[BARE]).text(),
            "another clock on the same work: the writer thread's time included",
        ),
    ]
