"""ToolResultReconciliationTest (seed 002: "Results always pair").

A turn with N tool uses produces one results turn with N results, in the tool uses' order,
however its tools succeed, fail, time out, are refused or are cancelled, and however the turn
itself is cancelled; and `reconcile_results` makes any list of results pair exactly with any
assistant turn, backfilling the ids left unanswered.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from nucleo_core import CorrectableError, InvalidToolInput, ReadOnlyViolation, Tool, UnknownTool
from nucleo_core.hub.call_door import ClearedCall, parsed_input
from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.thinking.execution import (
    NO_RESULT,
    CallStatus,
    ExecutionPolicy,
    ExecutionReport,
    RegistryAware,
    ToolExecution,
    reconcile_results,
)
from nucleo_core.thinking.tool_call import ToolCall
from nucleo_core.tools import RawInput, ToolProvider

#: How each kind of call ends when the turn is not cancelled.
EXPECTED = {
    "ok": CallStatus.OK,
    "ok_sync": CallStatus.OK,
    "ok_alone": CallStatus.OK,
    "raises": CallStatus.FAILED,
    "correctable": CallStatus.FAILED,
    "hangs": CallStatus.TIMEOUT,
    "cancels_itself": CallStatus.CANCELLED,
    "unknown": CallStatus.REFUSED,
    "read_only": CallStatus.REFUSED,
    "invalid": CallStatus.INVALID,
    "blocks": CallStatus.CANCELLED,  # only drawn when the turn is cancelled
}
KINDS = sorted(kind for kind in EXPECTED if kind != "blocks")
#: The timeout of the "hangs" tool: tiny, so an example costs a few milliseconds.
HANG_TIMEOUT = 0.005


class _AsyncRun(Tool[Any, Any]):
    async def run(self, input: Any) -> Any:
        kind = input["kind"]
        if kind == "raises":
            raise RuntimeError("boom")
        if kind == "correctable":
            raise CorrectableError("Try a narrower query.")
        if kind == "cancels_itself":
            raise asyncio.CancelledError
        if kind in ("hangs", "blocks"):
            await asyncio.Event().wait()  # never set: the timeout or the turn's cancel ends it
        for _ in range(input["yields"]):
            await asyncio.sleep(0)
        return {"kind": kind}


class _SyncRun(Tool[Any, Any]):
    def run(self, input: Any) -> Any:
        return "sync"


class _AloneRun(_AsyncRun, RegistryAware):
    def bind_registry(self, registry: Any) -> None:
        self.registry = registry


class _Provider(ToolProvider):
    def __init__(self, name: str, kind: type[Tool[Any, Any]]) -> None:
        self._name = name
        self.kind = kind

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return "A scripted tool."

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object"}

    def parse_input(self, raw: RawInput) -> Any:
        return dict(raw) if isinstance(raw, Mapping) else json.loads(raw)

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        return self.kind(parent)


PROVIDERS = {
    "run": _Provider("run", _AsyncRun),
    "hang": _Provider("hang", _AsyncRun),
    "sync": _Provider("sync", _SyncRun),
    "alone": _Provider("alone", _AloneRun),
    "write": _Provider("write", _AsyncRun),
}
TOOL_OF = {"ok_sync": "sync", "ok_alone": "alone", "hangs": "hang", "read_only": "write"}


def check(call: ToolCall) -> ClearedCall:
    """The call door: ``write`` is refused as on a read-only palette."""
    if call.name == "write":
        raise ReadOnlyViolation(call.name)
    provider = PROVIDERS.get(call.name)
    if provider is None:
        raise UnknownTool(sorted(PROVIDERS))
    return ClearedCall(provider, parsed_input(provider, call))


def make_call(call_id: str, kind: str, yields: int) -> ToolCall:
    """A call of ``kind`` as the handler would hand it over."""
    raw = {"kind": kind, "yields": yields}
    if kind == "unknown":
        return ToolCall(id=call_id, name="nonexistent", raw_input=raw)
    if kind == "invalid":
        error = InvalidToolInput("run", ["kind: expected a string"])
        return ToolCall(
            id=call_id, name="run", raw_input=raw, provider=PROVIDERS["run"], error=error
        )
    provider = PROVIDERS[TOOL_OF.get(kind, "run")]
    return ToolCall(id=call_id, name=provider.name, raw_input=raw, input=raw, provider=provider)


@dataclass(frozen=True)
class Turn:
    """One drawn turn: its calls, the cap, and after how many loop steps it is cancelled."""

    calls: tuple[ToolCall, ...]
    kinds: tuple[str, ...]
    cap: int
    cancel_after: int | None


@st.composite
def turns(draw: st.DrawFn) -> Turn:
    cancel_after = draw(st.none() | st.integers(min_value=0, max_value=6))
    kinds = [*KINDS, "blocks"] if cancel_after is not None else KINDS
    drawn = draw(st.lists(st.sampled_from(kinds), max_size=8))
    calls = []
    for index, kind in enumerate(drawn):
        # Now and then a call repeats an earlier id, as a broken provider may send.
        repeat = index > 0 and draw(st.integers(min_value=0, max_value=9)) == 0
        call_id = f"call_{draw(st.integers(0, index - 1))}" if repeat else f"call_{index}"
        calls.append(make_call(call_id, kind, draw(st.integers(min_value=0, max_value=3))))
    cap = draw(st.integers(min_value=1, max_value=4))
    return Turn(tuple(calls), tuple(drawn), cap, cancel_after)


async def play(turn: Turn) -> tuple[ExecutionReport, bool]:
    """Run the turn, cancelling it after ``cancel_after`` loop steps when set."""
    policy = ExecutionPolicy(
        timeout=None, per_tool_timeouts={"hang": HANG_TIMEOUT}, max_concurrency=turn.cap
    )
    execution = ToolExecution(turn.calls, check=check, parent=None, policy=policy)
    task = asyncio.create_task(execution.run())
    if turn.cancel_after is None:
        report = await task
        assert report == execution.report()
        return report, False
    for _ in range(turn.cancel_after):
        await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return execution.report(), True
    return execution.report(), False


def assistant_for(calls: Sequence[ToolCall]) -> Message:
    return Message(
        role="assistant",
        content=tuple(ToolUseBlock(id=c.id, name=c.name, input=c.raw_input) for c in calls),
    )


@given(turns())
def test_every_call_is_answered_once_in_order_however_it_ends(turn: Turn) -> None:
    """Whatever its calls do and whether the turn is cancelled, the results pair 1:1 in order."""
    report, cancelled = asyncio.run(play(turn))
    if not cancelled:
        event("completed")
    elif all(outcome.status is CallStatus.CANCELLED for outcome in report.outcomes):
        event("cancelled before any call ended")
    else:
        event("cancelled mid-flight")
    distinct_ids = list(dict.fromkeys(call.id for call in turn.calls))
    assert [result.tool_use_id for result in report.results] == distinct_ids
    assert len(report.outcomes) == len(turn.calls)
    assert [outcome.call for outcome in report.outcomes] == list(turn.calls)
    first_seen: set[str] = set()
    for outcome, kind in zip(report.outcomes, turn.kinds, strict=True):
        assert outcome.result.tool_use_id == outcome.call.id
        assert outcome.result.is_error == (outcome.status is not CallStatus.OK)
        # A repeated id is never run; a turn cancelled may end any call as cancelled.
        expected = CallStatus.REFUSED if outcome.call.id in first_seen else EXPECTED[kind]
        first_seen.add(outcome.call.id)
        assert outcome.status in ((expected, CallStatus.CANCELLED) if cancelled else (expected,))
    message = report.results_message()
    assert message.role == "user"
    assert message.content == report.results
    assert reconcile_results(assistant_for(turn.calls), report.results) == report.results


# -- reconcile_results over anything -------------------------------------------------------------

ids = st.sampled_from(["a", "b", "c", "d", "e"])
tool_uses = st.builds(ToolUseBlock, id=ids, name=st.just("search"), input=st.just({}))
blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    tool_uses, st.builds(TextBlock, text=st.text(max_size=5))
)
assistants = st.builds(Message, role=st.just("assistant"), content=st.lists(blocks).map(tuple))
results = st.lists(
    st.builds(
        ToolResultBlock,
        tool_use_id=st.sampled_from(["a", "b", "c", "d", "e", "stray"]),
        content=st.text(max_size=5),
        is_error=st.booleans(),
    )
)


@given(assistants, results)
def test_reconciled_results_pair_exactly_with_any_assistant_turn(
    assistant: Message, given_results: list[ToolResultBlock]
) -> None:
    """Reconciled results answer each tool-use id once, in order: the first given or a backfill."""
    reconciled = reconcile_results(assistant, given_results)
    use_ids = list(dict.fromkeys(use.id for use in assistant.tool_uses))
    assert [r.tool_use_id for r in reconciled] == use_ids
    for answer in reconciled:
        firsts = [r for r in given_results if r.tool_use_id == answer.tool_use_id][:1]
        if firsts:
            assert answer is firsts[0]
        else:
            assert answer == ToolResultBlock(
                tool_use_id=answer.tool_use_id, content=NO_RESULT, is_error=True
            )
    assert reconcile_results(assistant, reconciled) == reconciled  # reconciling is idempotent
