"""ReactiveThinkerInboxTest (seed 002: the Inbox handshake, injection draining, the closing turn).

A message offered while a turn runs is accepted (and then injected as a user message before the
turn's next model call, in the order accepted, exactly once, and answered before the turn ends)
or refused with a reason: when no turn runs, when the turn's answer is final, and during the
closing turn at the iteration cap, which asks for the final answer with no tools offered.
`ChatThinker` streams every answer as content events.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from _reactive_kit import Assistant, Chat, assert_nothing_dangles, lines, make
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core.conversations import ABNORMAL_END, ConversationService
from nucleo_core.errors import ModelServerError
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking.chat import chunks
from nucleo_core.thinking.inbox import (
    CLOSING_TURN,
    FINISHING,
    NOT_RUNNING,
    Inbox,
    InboxReply,
    InboxState,
)
from nucleo_core.thinking.reactive import CLOSING_NOTE
from nucleo_core.thinking.thinker import ContentEvent

LOOKUP = tool_use_response(("lookup", {"query": "monad"}))


def stored_lines(path: Path) -> list[str]:
    """The stored conversation ``chat``, as `lines`."""
    with ConversationService(path) as service:
        return lines(service.open("chat", durable=True).messages)


# -- the handshake -----------------------------------------------------------------------------


def test_an_offer_with_no_turn_in_progress_is_refused_with_the_reason() -> None:
    """Before, between and after turns the inbox refuses, saying no turn is in progress."""
    inbox = Inbox()
    reply = inbox.submit("hello?")
    assert reply == InboxReply(False, NOT_RUNNING)
    assert not reply
    assert inbox.offer("hello?") is False
    assert (inbox.state, inbox.reason, inbox.pending) == (InboxState.IDLE, NOT_RUNNING, 0)


def test_an_offer_during_a_turn_is_injected_before_the_next_model_call(tmp_path: Path) -> None:
    """A message accepted while the model works is a user message in the very next request."""
    replies: list[bool] = []

    def answer(request: ModelRequest) -> ModelResponse | str:
        if len(model.requests) == 1:
            replies.append(thinker.inbox.offer("Also: what is a functor?"))
            return LOOKUP
        return "Monads and functors, answered."

    model = ScriptedModel(answer)
    thinker = make(model, tmp_path)
    result = asyncio.run(thinker.turn("What is a monad?", conversation_id="chat"))

    assert replies == [True]
    assert result == "Monads and functors, answered."
    assert lines(model.requests[1].messages) == [
        "user: What is a monad?",
        "assistant: <use lookup>",
        "user: <result>",
        "user: Also: what is a functor?",
    ]
    assert thinker.last_outcome.injected == ("Also: what is a functor?",)
    assert stored_lines(tmp_path / "c.sqlite3")[-2:] == [
        "user: Also: what is a functor?",
        "assistant: Monads and functors, answered.",
    ]


def test_a_message_accepted_while_the_final_answer_is_written_keeps_the_turn_going(
    tmp_path: Path,
) -> None:
    """An answer given while accepted messages wait does not end the turn: they are answered."""

    def answer(request: ModelRequest) -> ModelResponse | str:
        if len(model.requests) == 1:
            assert thinker.inbox.offer("Wait, one more thing.")
            return "First answer."
        return "Second answer."

    model = ScriptedModel(answer)
    thinker = make(model, tmp_path)
    assert asyncio.run(thinker.turn("Question.", conversation_id="chat")) == "Second answer."
    assert lines(model.requests[1].messages) == [
        "user: Question.",
        "assistant: First answer.",
        "user: Wait, one more thing.",
    ]
    assert_nothing_dangles(model.requests[1])
    assert stored_lines(tmp_path / "c.sqlite3") == [
        "user: Question.",
        "assistant: First answer.",
        "user: Wait, one more thing.",
        "assistant: Second answer.",
    ]


def test_messages_are_injected_in_the_order_accepted_each_exactly_once(tmp_path: Path) -> None:
    """Messages accepted at two boundaries appear once each, in order, before the next call."""

    def answer(request: ModelRequest) -> ModelResponse | str:
        number = len(model.requests)
        if number <= 2:
            assert thinker.inbox.offer(f"m{number}a")
            assert thinker.inbox.offer(f"m{number}b")
            return LOOKUP
        return "done"

    model = ScriptedModel(answer)
    thinker = make(model, tmp_path)
    asyncio.run(thinker.turn("go", conversation_id="chat"))

    users = [line for line in lines(model.requests[-1].messages) if line.startswith("user: m")]
    assert users == ["user: m1a", "user: m1b", "user: m2a", "user: m2b"]
    assert thinker.last_outcome.injected == ("m1a", "m1b", "m2a", "m2b")


def test_offers_from_many_threads_during_a_turn_are_each_injected_once(tmp_path: Path) -> None:
    """Concurrent senders: every accepted message is injected exactly once, each sender in order."""
    senders, each = 8, 25

    def send(sender: int) -> None:
        for number in range(each):
            assert thinker.inbox.offer(f"{sender}:{number}")

    def answer(request: ModelRequest) -> ModelResponse | str:
        if len(model.requests) == 1:
            threads = [threading.Thread(target=send, args=(s,)) for s in range(senders)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            return LOOKUP
        return "all read"

    model = ScriptedModel(answer)
    thinker = make(model, tmp_path)
    asyncio.run(thinker.turn("go", conversation_id="chat"))

    injected = [m.text for m in model.requests[1].messages[3:]]
    assert sorted(injected) == sorted(f"{s}:{n}" for s in range(senders) for n in range(each))
    for sender in range(senders):
        mine = [text for text in injected if text.startswith(f"{sender}:")]
        assert mine == [f"{sender}:{n}" for n in range(each)]


@given(st.lists(st.sampled_from(["offer", "drain", "settle"]), max_size=40))
def test_an_inbox_returns_every_accepted_message_exactly_once(steps: list[str]) -> None:
    """Whatever the interleaving, drains return the accepted messages once each, in order."""
    inbox = Inbox()
    inbox.open()
    accepted: list[str] = []
    drained: list[str] = []
    for number, step in enumerate(steps):
        if step == "offer":
            if inbox.offer(f"m{number}"):
                accepted.append(f"m{number}")
        elif step == "drain":
            drained += inbox.drain()
        elif inbox.settle():
            assert inbox.reason == FINISHING
    drained += inbox.stop()
    assert drained == accepted


def test_an_offer_after_the_answer_is_settled_is_refused_as_finishing(tmp_path: Path) -> None:
    """Once the final answer is accepted, an offer is refused: send it as the next turn."""
    replies: list[InboxReply] = []
    model = ScriptedModel(["The answer."])
    thinker = make(model, tmp_path, Chat)
    thinker.listeners.append(lambda event: replies.append(thinker.inbox.submit("late")))
    asyncio.run(thinker.send("Question.", conversation_id="chat"))

    assert replies
    assert all(reply == InboxReply(False, FINISHING) for reply in replies)
    assert thinker.inbox.submit("later") == InboxReply(False, NOT_RUNNING)
    assert "user: late" not in stored_lines(tmp_path / "c.sqlite3")


def test_an_empty_message_is_refused() -> None:
    """An empty or blank message is refused even while the inbox accepts."""
    inbox = Inbox()
    inbox.open()
    assert inbox.submit("  \n") == InboxReply(False, "the message is empty")
    with pytest.raises(TypeError):
        inbox.offer(b"bytes")  # type: ignore[arg-type]


def test_messages_accepted_when_the_turn_ends_abnormally_are_kept_and_answered_by_a_marker(
    tmp_path: Path,
) -> None:
    """Accepted but not injected at an abnormal end: kept after the rollback, with its marker."""

    def answer(request: ModelRequest) -> ModelResponse | str:
        if len(model.requests) == 1:
            assert thinker.inbox.offer("Are you there?")
            return LOOKUP
        if len(model.requests) == 2:
            assert thinker.inbox.offer("Hello??")
            raise ModelServerError("down", provider="anthropic")
        return "Back."

    model = ScriptedModel(answer)
    thinker = make(model, tmp_path)
    with pytest.raises(ModelServerError):
        asyncio.run(thinker.turn("Question.", conversation_id="chat"))
    reason = thinker.last_outcome.reason
    note = f"assistant: [The previous turn ended without an answer: {reason}]"

    asyncio.run(thinker.turn("Next.", conversation_id="chat"))
    assert lines(model.requests[-1].messages) == [
        "user: Question.",
        "assistant: <use lookup>",
        "user: <result>",
        "user: Are you there?",
        note,
        "user: Hello??",
        note,
        "user: Next.",
    ]
    assert_nothing_dangles(model.requests[-1])


# -- the closing turn --------------------------------------------------------------------------


def test_at_the_cap_a_closing_turn_asks_for_the_answer_with_no_tools(tmp_path: Path) -> None:
    """After ``max_iterations`` tool turns, one more call (tool_choice none) ends the turn."""
    model = ScriptedModel([LOOKUP] * Assistant.max_iterations + ["What I found."])
    thinker = make(model, tmp_path)
    assert asyncio.run(thinker.turn("Dig.", conversation_id="chat")) == "What I found."

    closing = model.requests[-1]
    assert len(model.requests) == Assistant.max_iterations + 1
    assert closing.tool_choice == "none"
    assert [request.tool_choice for request in model.requests[:-1]] == ["auto"] * 3
    assert closing.messages[-1].role == "user"
    assert closing.messages[-1].text == CLOSING_NOTE  # joined to the last results turn
    assert thinker.last_outcome.closing_turn
    stored = stored_lines(tmp_path / "c.sqlite3")
    assert stored[-1] == "assistant: What I found."
    assert all(CLOSING_NOTE not in line for line in stored)  # the note is the request's only


def test_the_closing_turn_injects_what_was_accepted_and_refuses_what_comes_after(
    tmp_path: Path,
) -> None:
    """Accepted before the cap: injected before the closing call; offered during it: refused."""
    replies: list[InboxReply] = []

    def answer(request: ModelRequest) -> ModelResponse | str:
        number = len(model.requests)
        if number == Assistant.max_iterations:
            replies.append(thinker.inbox.submit("before the cap"))
        if number <= Assistant.max_iterations:
            return LOOKUP
        replies.append(thinker.inbox.submit("during the closing turn"))
        return "Closing answer."

    model = ScriptedModel(answer)
    thinker = make(model, tmp_path)
    assert asyncio.run(thinker.turn("Dig.", conversation_id="chat")) == "Closing answer."

    assert replies == [InboxReply(True), InboxReply(False, CLOSING_TURN)]
    assert lines(model.requests[-1].messages)[-2:] == [
        "user: <result>",
        f"user: before the cap | {CLOSING_NOTE}",
    ]
    stored = stored_lines(tmp_path / "c.sqlite3")
    assert stored[-2:] == ["user: before the cap", "assistant: Closing answer."]
    assert "user: during the closing turn" not in stored


# -- ChatThinker -------------------------------------------------------------------------------


def test_a_chat_streams_its_answer_as_chunks_ending_with_one_done_event(tmp_path: Path) -> None:
    """The answer arrives as content events whose texts join to it, only the last one done."""
    text = "A monad is a monoid in the category of endofunctors."
    model = ScriptedModel([LOOKUP, text])
    thinker = make(model, tmp_path, Chat)
    assert asyncio.run(thinker.send("What is a monad?", conversation_id="chat")) == text

    events: list[ContentEvent] = thinker.events
    assert len(events) > 1
    assert "".join(event.text for event in events) == text
    assert [event.done for event in events] == [False] * (len(events) - 1) + [True]


def test_a_chat_streams_each_answer_of_a_turn_that_took_in_messages(tmp_path: Path) -> None:
    """An interim answer, then the final one: each streamed, each ending with its done event."""

    def answer(request: ModelRequest) -> ModelResponse | str:
        if len(model.requests) == 1:
            assert thinker.inbox.offer("And then?")
            return "first"
        return "second"

    model = ScriptedModel(answer)
    thinker = make(model, tmp_path, Chat)
    assert asyncio.run(thinker.send("Go.", conversation_id="chat")) == "second"
    assert thinker.events == [ContentEvent("first", done=True), ContentEvent("second", done=True)]


def test_an_empty_chat_answer_is_one_empty_done_event(tmp_path: Path) -> None:
    """Even an empty answer tells the listeners it is done."""
    thinker = make(ScriptedModel(), tmp_path, Chat)
    thinker.deliver("", interim=False)
    assert thinker.events == [ContentEvent("", done=True)]


def test_an_abnormally_ended_chat_turn_streams_nothing(tmp_path: Path) -> None:
    """No done event is sent for a turn that ended without an answer."""
    thinker = make(ScriptedModel([ModelServerError("x", provider="p")]), tmp_path, Chat)
    with pytest.raises(ModelServerError):
        asyncio.run(thinker.send("Hi.", conversation_id="chat"))
    assert thinker.events == []
    assert thinker.last_outcome.markers[0].kind == ABNORMAL_END


@given(st.text(max_size=200), st.integers(min_value=1, max_value=30))
def test_chunks_join_to_the_text_and_never_split_a_word(text: str, size: int) -> None:
    """Chunks are cut after whitespace only, and joined they are the text exactly."""
    pieces = list(chunks(text, size))
    assert "".join(pieces) == text
    assert all(len(piece) >= size for piece in pieces[:-1])
    words = text.split()
    assert [word for piece in pieces for word in piece.split()] == words
