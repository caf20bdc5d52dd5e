"""TranscriptTest (seed 002: "A run leaves its transcript").

``transcript()`` is the last run's conversation as text - every message, tool call and tool
result in order - taken as the run ended, before the conversation went back to the service;
``None`` before the first run. A caller holding the thinker after the run reads what it did
without the conversation store, however the run ended.
"""

import asyncio
from typing import Any, ClassVar

import pytest
from _loop_kit import KeyInput, Lookup, WriteRecord, answer, assert_paired, call, calls, make

from nucleo_core import Tool, ToolHub, tool
from nucleo_core.errors import ModelServerError, ResponseParseError
from nucleo_core.models import ModelRequest, ModelResponse
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.execution import ExecutionPolicy
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import ThinkerIterationLimit
from nucleo_core.thinking.transcript import render_transcript


class Clerk(SingleObjectiveThinker[str, str]):
    """A thinker with one read-only and one mutating tool."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord]


def run(thinker: Clerk, text: str = "Record what 'x' means.") -> Any:
    return asyncio.run(thinker.run(text))


def test_transcript_is_none_before_the_first_run() -> None:
    """A thinker that never ran has no transcript."""
    assert make(Clerk, ScriptedModel()).transcript() is None


def test_the_transcript_holds_every_message_tool_call_and_result_in_order() -> None:
    """Two tool turns and an answer read back line by line, in the order they happened."""
    model = ScriptedModel(
        [
            calls(
                call("lookup", {"key": "x"}, id="t1"), call("write_record", {"key": "x"}, id="t2")
            ),
            calls(call("lookup", {"key": "y"}, id="t3")),
            answer("x means 42, recorded."),
        ]
    )
    thinker = make(Clerk, model)
    assert run(thinker) == "x means 42, recorded."

    assert thinker.transcript() == "\n".join(
        [
            "[user] Record what 'x' means.",
            '[assistant] tool_use t1 lookup {"key": "x"}',
            '[assistant] tool_use t2 write_record {"key": "x"}',
            "[user] tool_result t1: x means 42",
            "[user] tool_result t2: wrote x",
            '[assistant] tool_use t3 lookup {"key": "y"}',
            "[user] tool_result t3: y means 42",
            "[assistant] x means 42, recorded.",
        ]
    )


def test_the_transcript_is_the_conversation_the_run_left_rendered() -> None:
    """The transcript equals the rendering of the run's conversation as it stood at the end."""
    kept: list[Any] = []

    def script(request: ModelRequest) -> ModelResponse:
        if not kept:
            kept.append(thinker.conversation)
            return calls(call("lookup", {"key": "a"}), call("nothing_here", {}))
        return answer("done")

    thinker = make(Clerk, ScriptedModel(script))
    run(thinker)

    (context,) = kept
    assert context.closed
    assert thinker.transcript() == render_transcript(context.messages)
    assert_paired(context.messages)


def test_refused_calls_and_their_error_results_are_in_the_transcript() -> None:
    """A call to a tool that is not available shows with its error result, paired by id."""
    model = ScriptedModel([calls(call("nothing_here", {}, id="bad")), answer("gave up")])
    thinker = make(Clerk, model)
    run(thinker)

    transcript = thinker.transcript()
    assert transcript is not None
    assert "[assistant] tool_use bad nothing_here {}" in transcript
    assert "[user] tool_result bad (error): No such tool is available." in transcript


def test_the_transcript_is_taken_when_the_model_fails_mid_run() -> None:
    """A run that raises still leaves its transcript: everything up to the failure."""
    failure = ModelServerError("overloaded", provider="anthropic", status=529)
    model = ScriptedModel([calls(call("lookup", {"key": "x"}, id="t1")), failure])
    thinker = make(Clerk, model)
    with pytest.raises(ModelServerError):
        run(thinker)

    assert thinker.transcript() == "\n".join(
        [
            "[user] Record what 'x' means.",
            '[assistant] tool_use t1 lookup {"key": "x"}',
            "[user] tool_result t1: x means 42",
        ]
    )


def test_the_transcript_keeps_the_refused_replies_and_corrections_of_a_failed_parse() -> None:
    """A run ended by an exhausted correction budget shows every refused reply and correction."""

    class Typed(SingleObjectiveThinker[str, dict[str, int]]):
        pass

    model = ScriptedModel(lambda request: "not json")
    thinker = make(Typed, model)
    with pytest.raises(ResponseParseError) as raised:
        asyncio.run(thinker.run("Count."))

    lines = (thinker.transcript() or "").splitlines()
    assert lines[0] == "[user] Count."
    attempts = raised.value.attempts
    assert attempts > 1
    assert len(lines) == 2 * attempts  # the question, each reply, a correction between two
    assert lines[1::2] == ["[assistant] not json"] * attempts
    corrections = lines[2::2]
    assert len(corrections) == attempts - 1
    assert all(line.startswith("[user] Your answer could not be parsed") for line in corrections)


def test_the_transcript_is_taken_when_the_iteration_cap_is_reached() -> None:
    """A run that never answers leaves every turn it took, each paired."""

    class Brief(Clerk):
        max_iterations = 2

    model = ScriptedModel(lambda request: calls(call("lookup", {"key": "k"})))
    thinker = make(Brief, model)
    with pytest.raises(ThinkerIterationLimit):
        run(thinker)

    transcript = thinker.transcript()
    assert transcript is not None
    assert transcript.count("tool_use") == transcript.count("tool_result") == 2


@tool(name="hang", read_only=True, risk="low")
class Hang(Tool[KeyInput, str]):
    """Looks a key up and never returns; says when it started."""

    started: ClassVar[asyncio.Event]

    async def run(self, input: KeyInput) -> str:
        Hang.started.set()
        await asyncio.Event().wait()
        return input.key


class Stuck(SingleObjectiveThinker[str, str]):
    """A thinker whose one tool never returns."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Hang]


def test_the_transcript_is_taken_when_the_run_is_cancelled_mid_turn() -> None:
    """A run cancelled while a tool runs leaves the turn answered, the call read as cancelled."""

    async def scenario() -> Stuck:
        Hang.started = asyncio.Event()
        model = ScriptedModel([calls(call("hang", {"key": "x"}, id="t1"))])
        thinker: Stuck = make(Stuck, model, execution=ExecutionPolicy(timeout=None))
        task = asyncio.create_task(thinker.run("Look x up."))
        await Hang.started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return thinker

    thinker = asyncio.run(scenario())
    assert thinker.transcript() == "\n".join(
        [
            "[user] Look x up.",
            '[assistant] tool_use t1 hang {"key": "x"}',
            "[user] tool_result t1 (error): Tool 'hang' was cancelled before it finished.",
        ]
    )


def test_each_run_replaces_the_transcript_of_the_run_before() -> None:
    """The transcript is the last run's only."""
    model = ScriptedModel([answer("first answer"), answer("second answer")])
    thinker = make(Clerk, model)
    run(thinker, "First question.")
    run(thinker, "Second question.")

    assert thinker.transcript() == "[user] Second question.\n[assistant] second answer"


def test_during_a_run_the_transcript_is_still_the_previous_run_s() -> None:
    """The transcript is taken as a run ends, so a run in progress shows the one before."""
    seen: list[str | None] = []

    def script(request: ModelRequest) -> ModelResponse:
        seen.append(thinker.transcript())
        return answer(f"answer {len(seen)}")

    thinker = make(Clerk, ScriptedModel(script))
    run(thinker, "One.")
    run(thinker, "Two.")

    assert seen == [None, "[user] One.\n[assistant] answer 1"]


def test_the_transcript_outlives_the_conversation() -> None:
    """After a temporary conversation is discarded, the transcript still says what happened."""
    opened: list[str] = []

    def script(request: ModelRequest) -> ModelResponse:
        assert thinker.conversation is not None
        opened.append(thinker.conversation.id)
        return answer("kept")

    thinker = make(Clerk, ScriptedModel(script))
    run(thinker, "Remember this.")

    assert not thinker.conversations.exists(opened[0])
    assert thinker.transcript() == "[user] Remember this.\n[assistant] kept"


def test_the_transcript_of_a_durable_run_matches_the_stored_conversation() -> None:
    """A durable conversation, reopened from the store, renders as the transcript did."""
    model = ScriptedModel([calls(call("lookup", {"key": "x"})), answer("stored")])
    thinker = make(Clerk, model)
    asyncio.run(thinker.run("Keep this.", conversation_id="kept-1", durable=True))

    reopened = thinker.conversations.open("kept-1", durable=True)
    assert thinker.transcript() == render_transcript(reopened.messages)
    assert [message.role for message in reopened.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_a_sub_thinker_s_run_leaves_its_own_transcript_and_the_parent_shows_the_result() -> None:
    """The delegation reads in the parent's transcript as one call and its result."""
    model = ScriptedModel(
        [
            calls(call("sub_thinker", {"objective": "Find what x means."}, id="d1")),
            calls(call("lookup", {"key": "x"}, id="s1")),
            answer({"answer": "x means 42", "reasoning": "looked it up"}),
            answer("x means 42"),
        ]
    )
    thinker = make(Clerk, model, hub=ToolHub())
    run(thinker)

    transcript = thinker.transcript()
    assert transcript is not None
    assert '[assistant] tool_use d1 sub_thinker {"objective": "Find what x means."}' in transcript
    assert '"answer":"x means 42"' in transcript
    assert "tool_use s1" not in transcript  # the sub-run's turns are in its own conversation
