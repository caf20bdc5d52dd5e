"""Two-phase parallel tool execution: submission, checks, failures, timeouts, cancellation."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any

import pytest

from nucleo_core import (
    CorrectableError,
    InvalidToolInput,
    ReadOnlyViolation,
    Tool,
    ToolHub,
    ToolProvider,
    ToolSelector,
    UnknownTool,
    tool,
)
from nucleo_core.hub.call_door import ClearedCall, call_door, parsed_input
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.models.messages import Message, ToolResultBlock, ToolUseBlock
from nucleo_core.thinking.execution import (
    CallStatus,
    ConversationAware,
    ExecutionEvent,
    ExecutionPolicy,
    RegistryAware,
    ToolExecution,
    ToolExecutor,
    reconcile_results,
)
from nucleo_core.thinking.tool_call import ToolCall
from nucleo_core.tools import RawInput

# -- a provider over any function --------------------------------------------------------------

Behaviour = Callable[[Mapping[str, Any]], Any]


class _AsyncTool(Tool[Any, Any]):
    def __init__(self, behaviour: Behaviour, parent: object) -> None:
        super().__init__(parent)
        self.behaviour = behaviour

    async def run(self, input: Any) -> Any:
        result = self.behaviour(input)
        if isinstance(result, Awaitable):
            return await result
        return result


class _SyncTool(Tool[Any, Any]):
    def __init__(self, behaviour: Behaviour, parent: object) -> None:
        super().__init__(parent)
        self.behaviour = behaviour

    def run(self, input: Any) -> Any:
        return self.behaviour(input)


class _RegistryAwareTool(_AsyncTool, RegistryAware):
    def bind_registry(self, registry: Any) -> None:
        self.registry = registry


class _ConversationAwareTool(_SyncTool, ConversationAware):
    def bind_conversation(self, conversation: Any) -> None:
        self.conversation = conversation


class Fake(ToolProvider):
    """A provider whose tool runs ``behaviour(input)``: sync in a thread, or async."""

    def __init__(
        self,
        name: str,
        behaviour: Behaviour = lambda input: "done",
        *,
        kind: type[Tool[Any, Any]] = _AsyncTool,
    ) -> None:
        self._name = name
        self.behaviour = behaviour
        self.kind = kind
        self.created: list[Tool[Any, Any]] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return "A fake tool."

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object"}

    def parse_input(self, raw: RawInput) -> Any:
        if isinstance(raw, str | bytes | bytearray):
            return json.loads(raw)
        return dict(raw)

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        made = self.kind(self.behaviour, parent)  # type: ignore[call-arg]
        self.created.append(made)
        return made


def call_of(provider: ToolProvider, call_id: str, raw: Mapping[str, Any] | None = None) -> ToolCall:
    """A call resolved against ``provider``, as the handler makes it."""
    raw = {} if raw is None else raw
    return ToolCall(
        id=call_id,
        name=provider.name,
        raw_input=raw,
        input=provider.parse_input(raw),
        provider=provider,
    )


def checker(
    *providers: ToolProvider, log: list[str] | None = None
) -> Callable[[ToolCall], ClearedCall]:
    """A call door over a fixed palette, recording each name it is asked about."""
    palette = {provider.name: provider for provider in providers}

    def check(call: ToolCall) -> ClearedCall:
        if log is not None:
            log.append(call.name)
        found = palette.get(call.name)
        if found is None:
            raise UnknownTool(list(palette))
        return ClearedCall(found, parsed_input(found, call))

    check.palette = palette  # type: ignore[attr-defined]
    return check


def answering(text: str) -> Behaviour:
    """A behaviour that answers ``text``."""
    return lambda input: text


def run(execution: ToolExecution) -> Any:
    return asyncio.run(execution.run())


def statuses(execution: ToolExecution) -> list[CallStatus]:
    return [outcome.status for outcome in execution.report().outcomes]


# -- phases --------------------------------------------------------------------------------------


def test_results_pair_with_calls_in_order() -> None:
    """N calls give N results, each answering its call's id, in the calls' order."""
    tools = [Fake(f"t{i}", answering(f"out{i}")) for i in range(4)]
    calls = [call_of(tools[i], f"id{i}") for i in (2, 0, 3, 1)]
    report = run(ToolExecution(calls, check=checker(*tools), parent=None))
    assert [r.tool_use_id for r in report.results] == ["id2", "id0", "id3", "id1"]
    assert [r.content for r in report.results] == ["out2", "out0", "out3", "out1"]
    assert not any(r.is_error for r in report.results)
    assert report.ok


def test_results_message_is_a_user_turn_holding_every_result() -> None:
    """The results message is one user turn with every result block, in order."""
    tools = [Fake("a"), Fake("b")]
    report = run(
        ToolExecution(
            [call_of(tools[0], "1"), call_of(tools[1], "2")], check=checker(*tools), parent=None
        )
    )
    message = report.results_message()
    assert message.role == "user"
    assert message.content == report.results


def test_every_call_is_submitted_before_any_starts_running() -> None:
    """Phase 1 submits every call before phase 2 lets any of them run."""
    events: list[ExecutionEvent] = []
    tools = [Fake(f"t{i}") for i in range(3)]
    calls = [call_of(t, t.name) for t in tools]
    run(ToolExecution(calls, check=checker(*tools), parent=None, on_event=events.append))
    kinds = [event.kind for event in events]
    assert kinds[:3] == ["submitted"] * 3
    assert kinds.count("started") == 3
    assert kinds.count("finished") == 3


def test_calls_run_concurrently() -> None:
    """A call waiting on a later call of the same turn completes, because both run at once."""
    later_ran = asyncio.Event()

    async def wait_for_later(input: Mapping[str, Any]) -> str:
        await later_ran.wait()
        return "saw the later call"

    def later(input: Mapping[str, Any]) -> str:
        later_ran.set()
        return "ran"

    first, second = Fake("first", wait_for_later), Fake("second", later)
    policy = ExecutionPolicy(timeout=30)  # only a deadlock would reach it
    execution = ToolExecution(
        [call_of(first, "1"), call_of(second, "2")],
        check=checker(first, second),
        parent=None,
        policy=policy,
    )
    report = run(execution)
    assert [r.content for r in report.results] == ["saw the later call", "ran"]


def test_aware_tool_finishes_before_the_next_call_is_submitted() -> None:
    """A registry-aware call finishes before the next call is submitted; earlier ones overlap."""
    events: list[tuple[str, str]] = []
    plain_a, plain_b = Fake("a"), Fake("b")
    aware = Fake("aware", kind=_RegistryAwareTool)
    calls = [call_of(plain_a, "1"), call_of(aware, "2"), call_of(plain_b, "3")]
    run(
        ToolExecution(
            calls,
            check=checker(plain_a, aware, plain_b),
            parent=None,
            on_event=lambda e: events.append((e.kind, e.call.id)),
        )
    )
    assert events.index(("finished", "2")) < events.index(("submitted", "3"))
    assert events.index(("submitted", "1")) < events.index(("submitted", "2"))


def test_the_next_call_is_checked_against_the_palette_an_aware_tool_left() -> None:
    """A call to a tool an earlier registry-aware call of the turn granted passes its check."""
    granted = Fake("granted", lambda input: "granted tool ran")
    log: list[str] = []
    palette_holder: list[Callable[[ToolCall], ClearedCall]] = []

    def grant(input: Mapping[str, Any]) -> str:
        palette_holder[0].palette["granted"] = granted  # type: ignore[attr-defined]
        return "granted"

    door = Fake("door", grant, kind=_RegistryAwareTool)
    check = checker(door, log=log)
    palette_holder.append(check)
    unresolved = ToolCall(id="2", name="granted", raw_input={})  # resolved at submission
    report = run(ToolExecution([call_of(door, "1"), unresolved], check=check, parent=None))
    assert [r.content for r in report.results] == ["granted", "granted tool ran"]
    assert log == ["door", "granted"]


def test_aware_tools_are_bound_to_the_conversation_and_registry() -> None:
    """Conversation- and registry-aware tools receive what the execution was given."""
    conversation, registry = object(), object()
    talker = Fake("talker", kind=_ConversationAwareTool)
    keeper = Fake("keeper", kind=_RegistryAwareTool)
    run(
        ToolExecution(
            [call_of(talker, "1"), call_of(keeper, "2")],
            check=checker(talker, keeper),
            parent=None,
            conversation=conversation,
            registry=registry,
        )
    )
    assert talker.created[0].conversation is conversation  # type: ignore[attr-defined]
    assert keeper.created[0].registry is registry  # type: ignore[attr-defined]


def test_tools_are_created_for_the_parent() -> None:
    """Each tool is created by its provider for the parent the execution was given."""
    parent = object()
    fake = Fake("t")
    run(ToolExecution([call_of(fake, "1")], check=checker(fake), parent=parent))
    assert fake.created[0].parent is parent


def test_empty_turn_gives_an_empty_report() -> None:
    """No calls, no results, and an empty results message."""
    report = run(ToolExecution([], check=checker(), parent=None))
    assert report.outcomes == ()
    assert report.results_message() == Message(role="user", content=())


# -- the concurrency cap -------------------------------------------------------------------------


@pytest.mark.parametrize(("cap", "expected"), [(1, 1), (2, 2), (8, 6)])
def test_concurrency_cap_is_honoured(cap: int, expected: int) -> None:
    """At most max_concurrency calls run at once, and the cap is reached when calls allow."""
    active = 0
    peak = 0

    async def busy(input: Mapping[str, Any]) -> str:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        for _ in range(5):
            await asyncio.sleep(0)
        active -= 1
        return "done"

    fake = Fake("busy", busy)
    calls = [call_of(fake, str(i)) for i in range(6)]
    report = run(
        ToolExecution(
            calls, check=checker(fake), parent=None, policy=ExecutionPolicy(max_concurrency=cap)
        )
    )
    assert report.ok
    assert peak == expected


# -- refused and invalid calls -------------------------------------------------------------------


def test_unknown_tool_becomes_an_error_result_naming_the_available_tools() -> None:
    """A call the check does not know is refused with the available names, not the one sent."""
    known = Fake("known")
    stray = ToolCall(id="1", name="rm_rf_everything", raw_input={})
    report = run(ToolExecution([stray], check=checker(known), parent=None))
    (result,) = report.results
    assert result.is_error
    assert result.content == str(UnknownTool(["known"]))
    assert "rm_rf_everything" not in result.content
    assert report.outcomes[0].status is CallStatus.REFUSED


def test_read_only_violation_at_the_check_refuses_the_call() -> None:
    """A check raising ReadOnlyViolation refuses the call with that message; the tool never runs."""
    writer = Fake("write_note")

    def check(call: ToolCall) -> ClearedCall:
        raise ReadOnlyViolation(call.name)

    execution = ToolExecution([call_of(writer, "1")], check=check, parent=None)
    report = run(execution)
    assert report.results[0].content == str(ReadOnlyViolation("write_note"))
    assert report.results[0].is_error
    assert isinstance(report.outcomes[0].error, ReadOnlyViolation)
    assert statuses(execution) == [CallStatus.REFUSED]
    assert writer.created == []


def test_a_real_read_only_thinker_refuses_a_mutating_tool_added_mid_run() -> None:
    """The call door refuses a mutating tool added to a read-only thinker's palette mid-run."""

    @tool(risk="medium")
    def write_record(key: str) -> str:
        """Write one record."""
        return key

    thinker = ThinkerBase(hub=ToolHub(), read_only=True)
    thinker.reconcile_tool_registry()
    provider = thinker.add_tool(write_record)  # joins the palette at once, unswept
    report = run(
        ToolExecution(
            [call_of(provider, "1", {"key": "k"})],
            check=partial(call_door, thinker),
            parent=thinker,
        )
    )
    assert report.outcomes[0].status is CallStatus.REFUSED
    assert report.results[0].content == str(ReadOnlyViolation("write_record"))


def test_call_carrying_invalid_input_becomes_an_error_result() -> None:
    """A call the handler could not validate passes the door, which answers with that error."""
    fake = Fake("search")
    error = InvalidToolInput("search", ["query: expected a string"])
    broken = ToolCall(id="1", name="search", raw_input={"query": 3}, provider=fake, error=error)
    log: list[str] = []
    execution = ToolExecution([broken], check=checker(fake, log=log), parent=None)
    report = run(execution)
    assert report.results == (ToolResultBlock(tool_use_id="1", content=str(error), is_error=True),)
    assert statuses(execution) == [CallStatus.INVALID]
    assert log == ["search"]
    assert fake.created == []


def test_call_carrying_unknown_tool_error_is_refused() -> None:
    """A call the handler could not resolve is refused, naming what is available at the call."""
    error = UnknownTool(["stale"])
    execution = ToolExecution(
        [ToolCall(id="1", name="x", raw_input={}, error=error)],
        check=checker(Fake("a")),
        parent=None,
    )
    report = run(execution)
    assert report.results[0].content == str(UnknownTool(["a"]))
    assert statuses(execution) == [CallStatus.REFUSED]


def test_input_is_validated_again_when_the_provider_changed_since_parsing() -> None:
    """A call parsed against an older provider is validated against the one that will run."""

    class Strict(Fake):
        def parse_input(self, raw: RawInput) -> Any:
            raise InvalidToolInput(self.name, ["tools: expected one of the catalog's names"])

    old, new = Fake("request"), Strict("request")
    execution = ToolExecution([call_of(old, "1")], check=checker(new), parent=None)
    report = run(execution)
    assert statuses(execution) == [CallStatus.INVALID]
    assert "catalog's names" in report.results[0].content
    assert new.created == []


def test_a_crashing_check_fails_the_call_without_its_message() -> None:
    """A check that raises an unexpected error fails the call; the model reads only the type."""

    def check(call: ToolCall) -> ClearedCall:
        raise KeyError("internal detail")

    execution = ToolExecution([ToolCall(id="1", name="x", raw_input={})], check=check, parent=None)
    report = run(execution)
    assert statuses(execution) == [CallStatus.FAILED]
    assert "KeyError" in report.results[0].content
    assert "internal detail" not in report.results[0].content


def test_a_tool_that_cannot_be_created_fails_its_call() -> None:
    """A provider whose create raises fails that call only."""

    class Broken(Fake):
        def create(self, parent: object | None = None) -> Tool[Any, Any]:
            raise RuntimeError("no")

    broken, fine = Broken("broken"), Fake("fine")
    execution = ToolExecution(
        [call_of(broken, "1"), call_of(fine, "2")], check=checker(broken, fine), parent=None
    )
    report = run(execution)
    assert statuses(execution) == [CallStatus.FAILED, CallStatus.OK]
    assert "RuntimeError" in report.results[0].content


def test_a_repeated_id_is_answered_once_and_not_run_twice() -> None:
    """Two calls under one id get one result; the second is refused and never runs."""
    fake = Fake("t")
    execution = ToolExecution(
        [call_of(fake, "same"), call_of(fake, "same")], check=checker(fake), parent=None
    )
    report = run(execution)
    assert [r.tool_use_id for r in report.results] == ["same"]
    assert report.results[0].content == "done"
    assert statuses(execution) == [CallStatus.OK, CallStatus.REFUSED]
    assert len(fake.created) == 1


# -- failures ------------------------------------------------------------------------------------


def test_an_exception_is_a_failure_whose_message_the_model_never_reads() -> None:
    """A tool raising an ordinary exception answers with its type only; the report keeps it."""
    boom = RuntimeError("api key sk-secret leaked in this message")

    def explode(input: Mapping[str, Any]) -> str:
        raise boom

    fake = Fake("explode", explode)
    execution = ToolExecution([call_of(fake, "1")], check=checker(fake), parent=None)
    report = run(execution)
    result = report.results[0]
    assert result.is_error
    assert "RuntimeError" in result.content
    assert "sk-secret" not in result.content
    assert report.outcomes[0].error is boom
    assert statuses(execution) == [CallStatus.FAILED]


def test_a_correctable_error_from_a_tool_reaches_the_model_as_written() -> None:
    """A tool raising a CorrectableError answers with its message, written for the model."""

    def refuse(input: Mapping[str, Any]) -> str:
        raise CorrectableError("Ask for at most 10 rows.")

    fake = Fake("rows", refuse, kind=_SyncTool)
    execution = ToolExecution([call_of(fake, "1")], check=checker(fake), parent=None)
    report = run(execution)
    assert report.results[0].content == "Ask for at most 10 rows."
    assert statuses(execution) == [CallStatus.FAILED]


def test_an_output_that_is_a_result_of_its_own_gives_its_text_and_error_flag() -> None:
    """An MCP result (a ToolReply): its text is read, and its isError marks the block."""
    from nucleo_core.mcp import MCPToolResult

    refused = MCPToolResult(text="cannot do that: no", is_error=True, outcome="tool_error")
    fine = MCPToolResult(text="", structured={"temperature": 21})
    tools = [Fake("refuses", lambda _: refused), Fake("answers", lambda _: fine)]
    execution = ToolExecution(
        [call_of(tools[0], "1"), call_of(tools[1], "2")], check=checker(*tools), parent=None
    )
    report = run(execution)
    assert [(r.content, r.is_error) for r in report.results] == [
        ("cannot do that: no", True),
        ('{"temperature": 21}', False),
    ]
    assert [o.output for o in report.outcomes] == [refused, fine]


def test_one_failing_call_leaves_the_others_intact() -> None:
    """A failure answers its own call; the calls beside it still succeed."""

    def explode(input: Mapping[str, Any]) -> str:
        raise ValueError("x")

    bad, good = Fake("bad", explode), Fake("good")
    execution = ToolExecution(
        [call_of(good, "1"), call_of(bad, "2"), call_of(good, "3")],
        check=checker(bad, good),
        parent=None,
    )
    run(execution)
    assert statuses(execution) == [CallStatus.OK, CallStatus.FAILED, CallStatus.OK]


def test_a_tool_that_cancels_itself_is_a_cancelled_call_not_a_cancelled_turn() -> None:
    """A tool raising CancelledError on its own ends its call as cancelled; the turn goes on."""

    async def give_up(input: Mapping[str, Any]) -> str:
        raise asyncio.CancelledError

    quitter, fine = Fake("quitter", give_up), Fake("fine")
    execution = ToolExecution(
        [call_of(quitter, "1"), call_of(fine, "2")], check=checker(quitter, fine), parent=None
    )
    report = run(execution)
    assert statuses(execution) == [CallStatus.CANCELLED, CallStatus.OK]
    assert report.results[0].is_error


def test_a_failing_renderer_fails_the_call() -> None:
    """A render function that raises fails the call it was rendering."""

    def render(call: ToolCall, output: Any) -> str:
        raise TypeError("cannot render")

    fake = Fake("t")
    execution = ToolExecution([call_of(fake, "1")], check=checker(fake), parent=None, render=render)
    report = run(execution)
    assert statuses(execution) == [CallStatus.FAILED]
    assert "TypeError" in report.results[0].content


def test_a_custom_renderer_writes_the_result_text() -> None:
    """The render function given turns each output into its result text."""
    fake = Fake("t", lambda input: {"n": 1})
    report = run(
        ToolExecution(
            [call_of(fake, "1")],
            check=checker(fake),
            parent=None,
            render=lambda call, output: f"{call.name}:{output['n']}",
        )
    )
    assert report.results[0].content == "t:1"
    assert report.outcomes[0].output == {"n": 1}


def test_an_observer_that_raises_does_not_break_the_turn(caplog: pytest.LogCaptureFixture) -> None:
    """An event observer that raises is logged and ignored; every call still pairs."""

    def observe(event: ExecutionEvent) -> None:
        raise RuntimeError("observer bug")

    fake = Fake("t")
    report = run(
        ToolExecution(
            [call_of(fake, "1"), call_of(fake, "2")],
            check=checker(fake),
            parent=None,
            on_event=observe,
        )
    )
    assert report.ok
    assert any("observer" in record.getMessage() for record in caplog.records)


# -- timeouts ------------------------------------------------------------------------------------


def test_a_call_past_its_timeout_becomes_a_timeout_error_result() -> None:
    """A call that does not finish within its tool's timeout answers with a timeout error."""

    async def hang(input: Mapping[str, Any]) -> str:
        await asyncio.Event().wait()  # never set
        return "unreachable"

    slow, quick = Fake("slow", hang), Fake("quick")
    policy = ExecutionPolicy(per_tool_timeouts={"slow": 0.01})
    execution = ToolExecution(
        [call_of(slow, "1"), call_of(quick, "2")],
        check=checker(slow, quick),
        parent=None,
        policy=policy,
    )
    report = run(execution)
    assert statuses(execution) == [CallStatus.TIMEOUT, CallStatus.OK]
    assert report.results[0].is_error
    assert "0.01 s" in report.results[0].content
    assert isinstance(report.outcomes[0].error, TimeoutError)


def test_a_turns_only_call_keeps_its_timeout_once_it_suspends() -> None:
    """The only call of a turn (run in the turn's task) is held to its timeout when it waits."""

    async def hang(input: Mapping[str, Any]) -> str:
        await asyncio.Event().wait()  # never set
        return "unreachable"

    async def nap(input: Mapping[str, Any]) -> str:
        await asyncio.sleep(0)
        return "rested"

    slow, brief = Fake("slow", hang), Fake("brief", nap)
    policy = ExecutionPolicy(timeout=5.0, per_tool_timeouts={"slow": 0.01})
    hung = ToolExecution([call_of(slow, "1")], check=checker(slow), parent=None, policy=policy)
    (result,) = run(hung).results
    assert statuses(hung) == [CallStatus.TIMEOUT]
    assert "0.01 s" in result.content
    rested = ToolExecution([call_of(brief, "1")], check=checker(brief), parent=None, policy=policy)
    (result,) = run(rested).results
    assert statuses(rested) == [CallStatus.OK]
    assert result.content == "rested"


def test_a_tool_raising_timeout_error_itself_is_a_failure_not_a_timeout() -> None:
    """A TimeoutError from the tool's own work is a failure: the policy's deadline did not pass."""

    def time_out(input: Mapping[str, Any]) -> str:
        raise TimeoutError("upstream")

    fake = Fake("fetch", time_out)
    execution = ToolExecution([call_of(fake, "1")], check=checker(fake), parent=None)
    run(execution)
    assert statuses(execution) == [CallStatus.FAILED]


# -- sync tools ----------------------------------------------------------------------------------


def test_a_blocked_sync_tool_does_not_block_the_loop() -> None:
    """A sync tool blocked in its thread lets an async call of the turn run and release it."""
    release = threading.Event()

    def blocked(input: Mapping[str, Any]) -> bool:
        return release.wait(timeout=30)  # True unless the loop itself was blocked

    def releaser(input: Mapping[str, Any]) -> str:
        release.set()
        return "released"

    sync, other = Fake("blocked", blocked, kind=_SyncTool), Fake("releaser", releaser)
    execution = ToolExecution(
        [call_of(sync, "1"), call_of(other, "2")], check=checker(sync, other), parent=None
    )
    report = run(execution)
    assert [r.content for r in report.results] == ["True", "released"]


def test_a_sync_function_tool_runs_in_a_worker_thread() -> None:
    """A sync @tool function runs off the event loop's thread."""
    seen: list[int] = []

    @tool(read_only=True, risk="low")
    def where(note: str) -> str:
        """Say where it ran."""
        seen.append(threading.get_ident())
        return note

    from nucleo_core import FunctionToolProvider

    provider = FunctionToolProvider(where)
    report = run(
        ToolExecution(
            [call_of(provider, "1", {"note": "hi"})], check=checker(provider), parent=None
        )
    )
    assert report.results[0].content == "hi"
    assert len(seen) == 1
    assert seen[0] != threading.get_ident()


# -- cancellation --------------------------------------------------------------------------------


def test_cancelling_the_turn_mid_flight_leaves_a_complete_report() -> None:
    """Cancelled while calls run: run re-raises, and the report answers every call."""
    fast, blocker = Fake("fast"), Fake("blocker")

    async def scenario() -> ToolExecution:
        running, never = asyncio.Event(), asyncio.Event()

        async def block(input: Mapping[str, Any]) -> str:
            running.set()
            await never.wait()
            return "unreachable"

        blocker.behaviour = block
        calls = [call_of(fast, "1"), call_of(blocker, "2"), call_of(blocker, "3")]
        execution = ToolExecution(calls, check=checker(fast, blocker), parent=None)
        task = asyncio.create_task(execution.run())
        await running.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return execution

    execution = asyncio.run(scenario())
    report = execution.report()
    assert [r.tool_use_id for r in report.results] == ["1", "2", "3"]
    assert statuses(execution) == [CallStatus.OK, CallStatus.CANCELLED, CallStatus.CANCELLED]
    assert [r.is_error for r in report.results] == [False, True, True]


def test_cancelling_during_an_aware_call_leaves_later_calls_unrun_but_answered() -> None:
    """Cancelled while a call runs alone: later calls are never run and still answered."""
    later = Fake("later")

    async def scenario() -> ToolExecution:
        running, never = asyncio.Event(), asyncio.Event()

        async def block(input: Mapping[str, Any]) -> str:
            running.set()
            await never.wait()
            return "unreachable"

        aware = Fake("aware", block, kind=_RegistryAwareTool)
        calls = [call_of(aware, "1"), call_of(later, "2")]
        execution = ToolExecution(calls, check=checker(aware, later), parent=None)
        task = asyncio.create_task(execution.run())
        await running.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return execution

    execution = asyncio.run(scenario())
    report = execution.report()
    assert [r.tool_use_id for r in report.results] == ["1", "2"]
    assert statuses(execution) == [CallStatus.CANCELLED, CallStatus.CANCELLED]
    assert later.created == []
    assert "before it ran" in report.results[1].content


def test_the_report_before_running_answers_every_call_as_cancelled() -> None:
    """A turn cancelled before its execution ran still has a report pairing every call."""
    fake = Fake("t")
    execution = ToolExecution(
        [call_of(fake, "1"), call_of(fake, "2")], check=checker(fake), parent=None
    )
    assert statuses(execution) == [CallStatus.CANCELLED, CallStatus.CANCELLED]
    assert [r.tool_use_id for r in execution.report().results] == ["1", "2"]


def test_the_report_is_refused_while_running_and_the_execution_runs_once() -> None:
    """Reading the report mid-run raises, and so does running an execution twice."""
    fake = Fake("t", kind=_SyncTool)  # it runs in a thread, so the run is still going

    async def scenario() -> None:
        execution = ToolExecution([call_of(fake, "1")], check=checker(fake), parent=None)
        task = asyncio.create_task(execution.run())
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="still running"):
            execution.report()
        await task
        with pytest.raises(RuntimeError, match="runs once"):
            await execution.run()

    asyncio.run(scenario())


def test_cancelling_a_turn_of_one_call_cancels_the_call_and_answers_it() -> None:
    """A turn's only call runs in the turn's own task: cancelled there, it reads as cancelled."""
    blocker = Fake("blocker")
    stopped: list[bool] = []

    async def scenario() -> ToolExecution:
        running, never = asyncio.Event(), asyncio.Event()

        async def block(input: Mapping[str, Any]) -> str:
            running.set()
            try:
                await never.wait()
            except asyncio.CancelledError:
                stopped.append(True)
                raise
            return "unreachable"

        blocker.behaviour = block
        execution = ToolExecution([call_of(blocker, "1")], check=checker(blocker), parent=None)
        task = asyncio.create_task(execution.run())
        await running.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return execution

    execution = asyncio.run(scenario())
    assert stopped == [True]  # the tool itself was cancelled where it awaited
    (result,) = execution.report().results
    assert statuses(execution) == [CallStatus.CANCELLED]
    assert result.is_error
    assert result.content == "Tool 'blocker' was cancelled before it finished."


def test_a_turn_answered_in_finally_pairs_even_when_cancelled() -> None:
    """The documented pattern (prepare, run, report in finally) answers a cancelled turn."""
    executor = ToolExecutor()
    appended: list[Message] = []
    use_ids = ["1", "2"]

    async def scenario() -> None:
        running, never = asyncio.Event(), asyncio.Event()

        async def block(input: Mapping[str, Any]) -> str:
            running.set()
            await never.wait()
            return "unreachable"

        blocker = Fake("blocker", block)
        calls = [call_of(blocker, i) for i in use_ids]

        async def turn() -> None:
            execution = executor.prepare(calls, check=checker(blocker), parent=None)
            try:
                await execution.run()
            finally:
                appended.append(execution.report().results_message())

        task = asyncio.create_task(turn())
        await running.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    (message,) = appended
    assistant = Message(
        role="assistant",
        content=tuple(ToolUseBlock(id=i, name="blocker", input={}) for i in use_ids),
    )
    assert reconcile_results(assistant, message.content) == message.content  # type: ignore[arg-type]


# -- the executor facade and the meta-tools ------------------------------------------------------


def test_executor_execute_uses_its_defaults() -> None:
    """ToolExecutor.execute runs a turn with the executor's default renderer and observer."""
    events: list[ExecutionEvent] = []
    executor = ToolExecutor(render=lambda call, output: "rendered", on_event=events.append)
    fake = Fake("t")
    report = asyncio.run(executor.execute([call_of(fake, "1")], check=checker(fake), parent=None))
    assert report.results[0].content == "rendered"
    assert [event.kind for event in events] == ["submitted", "started", "finished"]
    assert events[-1].outcome is report.outcomes[0]


def test_request_tools_grants_mid_turn_and_runs_alone() -> None:
    """The request_tools meta-tool runs for its thinker, alone, and the grant joins the palette."""

    @tool(read_only=True, risk="low")
    def lookup(query: str) -> str:
        """Look a term up."""
        return query.upper()

    class Researcher(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector.of([lookup])

    thinker = Researcher(hub=ToolHub())
    registry = thinker.reconcile_tool_registry()
    door = registry.get_provider_by_name("request_tools")
    assert door is not None
    events: list[tuple[str, str]] = []
    calls = [
        call_of(door, "1", {"tools": ["lookup"]}),
        ToolCall(id="2", name="lookup", raw_input={"query": "cat"}),  # resolved at submission
    ]
    report = run(
        ToolExecution(
            calls,
            check=partial(call_door, thinker),
            parent=thinker,
            on_event=lambda e: events.append((e.kind, e.call.id)),
        )
    )
    assert json.loads(report.results[0].content)["granted"] == ["lookup"]
    assert report.results[1].content == "CAT"
    assert events.index(("finished", "1")) < events.index(("submitted", "2"))
