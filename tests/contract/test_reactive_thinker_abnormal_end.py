"""ReactiveThinkerAbnormalEndTest (seed 002: "The turn ends cleanly or says why").

However a turn ends without an answer - the model provider fails, the answer stays unreadable,
the tool executor fails, the turn is cancelled, neither the turns nor the closing turn answer,
the process dies mid-turn - the conversation is rolled back to the last user utterance, an
`ABNORMAL_END` marker right after it records the reason written for the model, and the error
is re-raised; the next turn's request shows the marker's note after the question, so no
question hangs unanswered.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _reactive_kit import Assistant, assert_nothing_dangles, lines, make
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core.conversations import ABNORMAL_END, ConversationService
from nucleo_core.errors import (
    MisuseError,
    ModelConnectionError,
    ModelServerError,
    ResponseParseError,
)
from nucleo_core.models import Message
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking.execution import ToolExecutor
from nucleo_core.thinking.reactive import INTERRUPTED, TURN_IN_PROGRESS, ReactiveThinker
from nucleo_core.thinking.thinker import ThinkerIterationLimit

SECRET = "sk-live-0123456789"


def server_error() -> ModelServerError:
    """A provider failure whose message holds something the model must never read."""
    return ModelServerError(f"upstream said: key {SECRET} rejected", provider="anthropic")


def note_of(reason: str) -> str:
    """The note the model reads for an abnormal end with ``reason``."""
    return f"assistant: [The previous turn ended without an answer: {reason}]"


def stored(path: Path, conversation_id: str = "chat") -> Any:
    """The conversation as a fresh process would load it."""
    with ConversationService(path) as service:
        return service.open(conversation_id, durable=True).snapshot()


def fail_turn(thinker: ReactiveThinker, text: str, error: type[BaseException]) -> BaseException:
    """Run a turn expected to raise ``error``; return the raised exception."""
    with pytest.raises(error) as raised:
        asyncio.run(thinker.turn(text, conversation_id="chat"))
    return raised.value


# -- each kind of abnormal end -----------------------------------------------------------------


def test_a_model_failure_keeps_the_question_and_records_the_reason_after_it(
    tmp_path: Path,
) -> None:
    """A provider failure on the first call leaves the question followed by its marker."""
    thinker = make(ScriptedModel([server_error()]), tmp_path)
    error = fail_turn(thinker, "What is a monad?", ModelServerError)

    snapshot = stored(tmp_path / "c.sqlite3")
    assert lines(snapshot.messages) == ["user: What is a monad?"]
    [marker] = snapshot.markers
    assert (marker.kind, marker.position) == (ABNORMAL_END, 1)
    assert "ModelServerError" in marker.reason
    assert SECRET not in marker.reason
    outcome = thinker.last_outcome
    assert (outcome.answered, outcome.error, outcome.reason) == (False, error, marker.reason)
    assert outcome.markers == (marker,)


def test_a_model_failure_after_tool_work_removes_the_partial_turn(tmp_path: Path) -> None:
    """The tool uses and results of the failed turn go; the earlier turn stays whole."""
    model = ScriptedModel(["A monad is a monoid.", tool_use_response(("lookup", {"query": "x"}))])
    model.push(server_error())
    thinker = make(model, tmp_path)
    assert asyncio.run(thinker.turn("What is a monad?", conversation_id="chat")) == (
        "A monad is a monoid."
    )
    fail_turn(thinker, "And a functor?", ModelServerError)

    snapshot = stored(tmp_path / "c.sqlite3")
    assert lines(snapshot.messages) == [
        "user: What is a monad?",
        "assistant: A monad is a monoid.",
        "user: And a functor?",
    ]
    assert [(m.kind, m.position) for m in snapshot.markers] == [(ABNORMAL_END, 3)]
    assert thinker.last_outcome.removed == 2


def test_the_next_turn_reads_the_note_after_the_question_never_a_dangling_question(
    tmp_path: Path,
) -> None:
    """After an abnormal end, the resumed model reads the question, the note, the new question."""
    model = ScriptedModel([tool_use_response(("lookup", {"query": "x"})), server_error()])
    fail_turn(make(model, tmp_path), "What is a monad?", ModelServerError)
    reason = stored(tmp_path / "c.sqlite3").markers[-1].reason

    model.push("Functors map.")
    fresh = make(model, tmp_path)  # a new thinker, as after a restart
    assert asyncio.run(fresh.turn("And a functor?", conversation_id="chat")) == "Functors map."

    request = model.requests[-1]
    assert lines(request.messages) == [
        "user: What is a monad?",
        note_of(reason),
        "user: And a functor?",
    ]
    assert_nothing_dangles(request)


def test_an_unreadable_answer_ends_the_turn_with_the_attempts_in_the_reason(
    tmp_path: Path,
) -> None:
    """A `ResponseError` after the correction budget rolls back with the attempts counted."""
    model = ScriptedModel([ResponseParseError("could not parse", attempts=3)])
    fail_turn(make(model, tmp_path), "Summarize it.", ResponseParseError)

    [marker] = stored(tmp_path / "c.sqlite3").markers
    assert "3 attempt(s)" in marker.reason
    assert marker.position == 1


class _BrokenExecution:
    """A tool execution whose run fails outside every tool (the executor itself breaks)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def run(self) -> Any:
        raise RuntimeError(f"executor broke holding {SECRET}")

    def report(self) -> Any:
        return self.inner.report()


class _BrokenExecutor(ToolExecutor):
    def prepare(self, calls: Any, **options: Any) -> Any:
        return _BrokenExecution(super().prepare(calls, **options))


def test_a_tool_executor_failure_rolls_back_and_names_only_the_error_type(
    tmp_path: Path,
) -> None:
    """An executor that raises ends the turn: rolled back, reason without the message."""
    model = ScriptedModel([tool_use_response(("lookup", {"query": "x"}))])
    thinker = make(model, tmp_path)
    thinker._executor = _BrokenExecutor()
    fail_turn(thinker, "Look it up.", RuntimeError)

    snapshot = stored(tmp_path / "c.sqlite3")
    assert lines(snapshot.messages) == ["user: Look it up."]
    [marker] = snapshot.markers
    assert "RuntimeError" in marker.reason
    assert SECRET not in marker.reason


def test_a_cancelled_turn_rolls_back_its_running_tools_and_says_it_was_cancelled(
    tmp_path: Path,
) -> None:
    """Cancelling a turn mid-tool re-raises `CancelledError` after the rollback and marker."""
    model = ScriptedModel([tool_use_response(("wait_for_gate", {"label": "g"}))])
    thinker: Assistant = make(model, tmp_path)

    async def scenario() -> None:
        task = asyncio.create_task(thinker.turn("Wait for it.", conversation_id="chat"))
        await thinker.at_gate.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    snapshot = stored(tmp_path / "c.sqlite3")
    assert lines(snapshot.messages) == ["user: Wait for it."]
    [marker] = snapshot.markers
    assert "cancelled" in marker.reason
    assert thinker.last_outcome.removed == 2  # the tool use and its (cancelled) result


def test_no_answer_from_the_turns_or_the_closing_turn_ends_with_the_iteration_limit(
    tmp_path: Path,
) -> None:
    """A closing turn that calls tools again raises `ThinkerIterationLimit`, rolled back."""
    model = ScriptedModel(lambda request: tool_use_response(("lookup", {"query": "again"})))
    thinker = make(model, tmp_path)
    fail_turn(thinker, "Keep looking.", ThinkerIterationLimit)

    assert len(model.requests) == Assistant.max_iterations + 1
    assert model.requests[-1].tool_choice == "none"
    snapshot = stored(tmp_path / "c.sqlite3")
    assert lines(snapshot.messages) == ["user: Keep looking."]
    [marker] = snapshot.markers
    assert "closing turn" in marker.reason
    assert thinker.last_outcome.closing_turn


@pytest.mark.parametrize(
    "error",
    [
        ModelConnectionError("no route", provider="openai"),
        ResponseParseError("bad", attempts=2),
        RuntimeError("boom"),
        ThinkerIterationLimit("cap"),
    ],
    ids=type,
)
def test_every_abnormal_end_is_re_raised_unchanged(tmp_path: Path, error: Exception) -> None:
    """The caller receives the very exception that ended the turn, after the marker is kept."""
    raised = fail_turn(make(ScriptedModel([error]), tmp_path), "Hello?", type(error))
    assert raised is error
    assert len(stored(tmp_path / "c.sqlite3").markers) == 1


# -- the discipline, over any failure point --------------------------------------------------


@given(
    earlier=st.integers(min_value=0, max_value=2),
    tool_turns=st.integers(min_value=0, max_value=2),
    failure=st.sampled_from(["model", "parse", "internal"]),
)
def test_any_failure_point_leaves_the_earlier_turns_and_the_question_then_the_marker(
    earlier: int, tool_turns: int, failure: str
) -> None:
    """After good turns and some tool turns, a failure cuts back to the failing question."""
    error: Exception = {
        "model": server_error(),
        "parse": ResponseParseError("bad", attempts=2),
        "internal": RuntimeError("boom"),
    }[failure]
    model = ScriptedModel()
    for number in range(earlier):
        model.push(f"answer {number}")
    model.push(*[tool_use_response(("lookup", {"query": "q"}))] * tool_turns, error, "resumed")
    thinker = make(model, ":memory:")
    for number in range(earlier):
        asyncio.run(thinker.turn(f"question {number}", conversation_id="chat"))
    with pytest.raises(type(error)):
        asyncio.run(thinker.turn("the failing question", conversation_id="chat"))
    reason = thinker.last_outcome.reason
    asyncio.run(thinker.turn("next question", conversation_id="chat"))

    expected = []
    for number in range(earlier):
        expected += [f"user: question {number}", f"assistant: answer {number}"]
    request = model.requests[-1]
    assert lines(request.messages) == [
        *expected,
        "user: the failing question",
        note_of(reason),
        "user: next question",
    ]
    assert_nothing_dangles(request)


# -- a process that died mid-turn ------------------------------------------------------------


def _interrupted(path: Path, *, answered: bool) -> None:
    """Leave ``chat`` as a process killed mid-turn would: the turn mark set, the turn unfinished."""
    with ConversationService(path) as service:
        context = service.open("chat", durable=True)
        context.extend([Message.user("What is a monad?"), Message.assistant("A monoid.")])
        context.set_metadata(TURN_IN_PROGRESS, {"started_at": 2})
        context.append(Message.user("And a functor?"))
        use = tool_use_response(("lookup", {"query": "functor"})).as_message()
        context.append(use)  # its result never came: the process died running the tool
        if answered:
            context.append(Message.assistant("Functors map."))


def test_a_turn_finds_a_turn_its_process_left_unfinished_and_rolls_it_back(
    tmp_path: Path,
) -> None:
    """The next turn rolls an interrupted turn back to its question and records `INTERRUPTED`."""
    path = tmp_path / "c.sqlite3"
    _interrupted(path, answered=False)
    model = ScriptedModel(["Then ask again."])
    thinker = make(model, tmp_path)
    asyncio.run(thinker.turn("Hello again.", conversation_id="chat"))

    assert lines(model.requests[0].messages) == [
        "user: What is a monad?",
        "assistant: A monoid.",
        "user: And a functor?",
        note_of(INTERRUPTED),
        "user: Hello again.",
    ]
    assert_nothing_dangles(model.requests[0])
    snapshot = stored(path)
    assert [(m.reason, m.position) for m in snapshot.markers] == [(INTERRUPTED, 3)]
    assert snapshot.metadata[TURN_IN_PROGRESS] is None
    assert thinker.last_outcome.markers == snapshot.markers


def test_an_interrupted_turn_that_had_answered_loses_nothing(tmp_path: Path) -> None:
    """A process killed after the answer was kept but before the mark was cleared loses nothing."""
    path = tmp_path / "c.sqlite3"
    _interrupted(path, answered=True)
    model = ScriptedModel(["Sure."])
    asyncio.run(make(model, tmp_path).turn("Thanks.", conversation_id="chat"))

    assert lines(model.requests[0].messages)[-2:] == [
        "assistant: Functors map.",
        "user: Thanks.",
    ]
    assert stored(path).markers == ()


def test_a_turn_on_a_thinker_already_in_a_turn_is_refused(tmp_path: Path) -> None:
    """One turn at a time: a second concurrent turn is a `MisuseError` pointing at the inbox."""
    model = ScriptedModel([tool_use_response(("wait_for_gate", {})), "done"])
    thinker: Assistant = make(model, tmp_path)

    async def scenario() -> str:
        task = asyncio.create_task(thinker.turn("First.", conversation_id="chat"))
        await thinker.at_gate.wait()
        with pytest.raises(MisuseError, match="inbox"):
            await thinker.turn("Second.", conversation_id="chat")
        thinker.gate.set()
        return await task

    assert asyncio.run(scenario()) == "done"
    assert stored(tmp_path / "c.sqlite3").markers == ()


def test_a_turn_records_the_tokens_it_spent(tmp_path: Path) -> None:
    """After a turn, last_usage holds the tokens of that turn's exchanges (None before)."""
    model = ScriptedModel(["Hello there.", "Again."])
    thinker = make(model, tmp_path)
    assert thinker.last_usage is None

    asyncio.run(thinker.turn("Hi", conversation_id="usage"))
    first = thinker.last_usage
    asyncio.run(thinker.turn("Once more", conversation_id="usage"))

    assert first is not None
    assert first.input_tokens == 1  # the scripted model reports one input token per exchange
    assert thinker.last_usage is not None
    assert thinker.last_usage.input_tokens == 1  # reset per turn, not accumulated
