"""The abnormal-end primitives: rollback to the last user utterance, markers, their notes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from nucleo_core.conversations import (
    ABNORMAL_END,
    ConversationContext,
    ConversationService,
    Marker,
    render_markers,
)
from nucleo_core.models.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock


def _use(call: str) -> Message:
    return Message(role="assistant", content=(ToolUseBlock(id=call, name="t", input={}),))


def _result(call: str) -> Message:
    return Message(role="user", content=(ToolResultBlock(tool_use_id=call, content="ok"),))


def test_rollback_removes_the_partial_turn_after_the_question() -> None:
    """Everything after the last user utterance goes, the question stays, and the count is right."""
    context = ConversationContext()
    question = Message.user("And the second part?")
    context.extend(
        [Message.user("Hi"), Message.assistant("Hello"), question, _use("1"), _result("1")]
    )
    context.append(Message.assistant("Partial"))
    removed = context.rollback_to_last_user_utterance("the model provider failed (503)")
    assert removed == 3
    assert context.messages[-1] == question
    assert len(context.messages) == 3


def test_a_message_of_tool_results_is_not_an_utterance() -> None:
    """When the last user message holds only tool results, the rollback goes back past it."""
    context = ConversationContext()
    context.extend([Message.user("Q"), _use("1"), _result("1"), _use("2"), _result("2")])
    assert context.last_user_utterance() == 0
    assert context.rollback_to_last_user_utterance("tool loop cap") == 4
    assert context.messages == (Message.user("Q"),)


def test_a_user_message_with_text_beside_results_is_an_utterance() -> None:
    """A user message holding text as well as results counts as an utterance."""
    mixed = Message(
        role="user",
        content=(ToolResultBlock(tool_use_id="1", content="ok"), TextBlock(text="also this")),
    )
    context = ConversationContext()
    context.extend([Message.user("Q"), _use("1"), mixed, Message.assistant("partial")])
    assert context.rollback_to_last_user_utterance("cancelled") == 1
    assert context.messages[-1] == mixed


def test_without_any_utterance_everything_goes() -> None:
    """A conversation with no user utterance is emptied, and the marker sits at the start."""
    context = ConversationContext()
    context.extend([Message.assistant("greeting"), _use("1"), _result("1")])
    assert context.rollback_to_last_user_utterance("failed") == 3
    assert context.messages == ()
    assert context.markers[-1].position == 0


def test_a_rollback_at_the_question_removes_nothing_but_still_records() -> None:
    """When the question is already last, nothing is removed and the marker is still recorded."""
    context = ConversationContext()
    context.append(Message.user("Q"))
    assert context.rollback_to_last_user_utterance("cancelled before any answer") == 0
    assert len(context.markers) == 1


def test_the_marker_records_kind_reason_time_and_place() -> None:
    """The rollback's marker is an abnormal end with the reason, a UTC time and its position."""
    context = ConversationContext()
    context.extend([Message.user("Q"), Message.assistant("partial")])
    context.rollback_to_last_user_utterance("timeout after 60 s")
    (marker,) = context.markers
    assert marker.kind == ABNORMAL_END
    assert marker.reason == "timeout after 60 s"
    assert marker.at.tzinfo is not None
    assert marker.position == 1
    assert "timeout after 60 s" in marker.note


def test_a_resumed_model_never_sees_the_question_hanging() -> None:
    """messages_for_model answers the rolled-back question with the marker's note."""
    context = ConversationContext()
    context.extend([Message.user("Q"), Message.assistant("partial")])
    context.rollback_to_last_user_utterance("the provider failed")
    shown = context.messages_for_model()
    assert [m.role for m in shown] == ["user", "assistant"]
    assert "the provider failed" in shown[-1].text
    context.append(Message.user("Try again?"))
    shown = context.messages_for_model()
    assert [m.role for m in shown] == ["user", "assistant", "user"]


def test_markers_recorded_during_the_removed_turn_move_to_the_cut() -> None:
    """A marker placed inside the removed messages moves to where the rollback cut."""
    context = ConversationContext()
    context.extend([Message.user("Q"), _use("1"), _result("1")])
    context.record_marker("note", "approval asked")
    context.rollback_to_last_user_utterance("denied")
    assert [m.position for m in context.markers] == [1, 1]


def test_a_note_joins_an_adjacent_assistant_message() -> None:
    """A note after an assistant message joins it, one before an assistant message leads it."""
    at = Message.assistant("A").content
    messages = [Message.user("Q"), Message(role="assistant", content=at), Message.user("Q2")]
    now = datetime.now(UTC)
    after = Marker(kind="k", reason="r", at=now, position=2)
    rendered = render_markers(messages, [after])
    assert [m.role for m in rendered] == ["user", "assistant", "user"]
    assert rendered[1].content[-1] == TextBlock(text="[k: r]")
    before = Marker(kind="k", reason="r", at=now, position=1)
    rendered = render_markers([Message.user("Q"), Message.assistant("A")], [before])
    assert rendered[1].content[0] == TextBlock(text="[k: r]")
    summarized = Marker(kind="k", reason="r", at=now, position=None)
    assert render_markers(messages, [summarized]) == tuple(messages)


def test_a_durable_rollback_is_one_stored_change(tmp_path: Path) -> None:
    """After a restart, the rolled-back conversation and its marker are what was committed."""
    path = tmp_path / "c.sqlite3"
    with ConversationService(path) as service:
        context = service.open("c", durable=True)
        context.extend([Message.user("Q"), _use("1"), _result("1")])
        context.record_marker("note", "inside the turn")
        context.rollback_to_last_user_utterance("crashed")
        before = context.snapshot()
    with ConversationService(path) as service:
        after = service.open("c", durable=True)
        assert after.snapshot() == before
        assert after.messages_for_model()[-1].role == "assistant"


@pytest.mark.parametrize("kind", ["cancelled", ABNORMAL_END])
def test_the_rollback_marker_kind_can_be_chosen(kind: str) -> None:
    """The caller names the marker kind (abnormal end by default)."""
    context = ConversationContext()
    context.append(Message.user("Q"))
    context.rollback_to_last_user_utterance("why", kind=kind)
    assert context.markers[-1].kind == kind
