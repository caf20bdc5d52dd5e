"""Tools carry state for a conversation and are told when it ends, not before (seed 003).

A chat keeps a tool's state from turn to turn and drops it at ``end_conversation``; a
`Thinker` run is its conversation; a sub-thinker's end never reaches what it inherited from its
parent; function and class tools declare their state with ``@tool(state=...)``.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from _loop_kit import DECLARATION, answer, call, calls, fresh_catalog, is_sub_thinker_request
from _reactive_kit import make as make_chat
from _sample_tools import StaticProvider
from pydantic import BaseModel

from nucleo_core import CarriedState, Tool, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import InvalidToolInput, MisuseError, ToolDeclarationError
from nucleo_core.hub.hub import ToolHub
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.reactive import ReactiveThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SUB_THINKER
from nucleo_core.tools.decorator import declaration_of
from nucleo_core.tools.providers import provider_for

#: Every state's notes at the moment it was told its conversation ended, in order.
ENDED: list[list[str]] = []


@dataclass
class Notes:
    """A tool's per-conversation state: the notes taken so far."""

    items: list[str] = field(default_factory=list)

    def carried_state(self) -> str | None:
        return f"notes: {', '.join(self.items)}" if self.items else None

    def forget_conversation_state(self) -> None:
        ENDED.append(list(self.items))


@tool(risk="low", state=Notes)
def take_note(text: str, state: Notes) -> str:
    """Take a note for the rest of the conversation."""
    state.items.append(text)
    return f"{len(state.items)} note(s)"


class TallyInput(BaseModel):
    label: str


@tool(name="tally", risk="low", state=Notes)
class Tally(Tool[TallyInput, str]):
    """Count what was tallied in this conversation."""

    state: Notes

    def run(self, input: TallyInput) -> str:
        self.state.items.append(input.label)
        return f"tally {len(self.state.items)}"


class Fragile:
    """A state whose release fails."""

    def forget_conversation_state(self) -> None:
        raise RuntimeError("disk gone")


def _states(subject: object) -> Any:
    declaration = declaration_of(subject)
    assert declaration is not None
    return declaration.states


class NoteChat(ChatThinker):
    max_iterations: ClassVar[int] = 3

    @classmethod
    def declare_default_tools(cls) -> tuple[object, ...]:
        return (take_note,)


def _note_then_answer(request: ModelRequest) -> ModelResponse:
    last = request.messages[-1]
    if last.role == "user" and last.text:  # a new user turn: take a note of it
        return calls(call("take_note", {"text": last.text}))
    return answer("noted")


def test_a_chat_keeps_a_tool_s_state_across_turns_and_forgets_it_at_its_end(
    tmp_path: Path,
) -> None:
    """Turn after turn a chat's tool state grows and is not forgotten; end_conversation drops it."""
    chat = make_chat(ScriptedModel(_note_then_answer), tmp_path, NoteChat)
    conversation = f"chat-{uuid.uuid4().hex}"
    before = len(ENDED)
    for text in ("milk", "eggs", "bread"):
        asyncio.run(chat.send(text, conversation_id=conversation))
        assert len(ENDED) == before  # a turn's end is not the conversation's
    assert _states(take_note).peek(conversation).items == ["milk", "eggs", "bread"]
    chat.end_conversation(conversation)
    assert ENDED[before:] == [["milk", "eggs", "bread"]]
    assert _states(take_note).peek(conversation) is None


def test_closing_a_chat_thinker_ends_every_chat_it_ran(tmp_path: Path) -> None:
    """close() (a with block) ends each conversation the thinker ran a turn in, once."""
    first, second = f"a-{uuid.uuid4().hex}", f"b-{uuid.uuid4().hex}"
    before = len(ENDED)
    with make_chat(ScriptedModel(_note_then_answer), tmp_path, NoteChat) as chat:
        asyncio.run(chat.send("one", conversation_id=first))
        asyncio.run(chat.send("two", conversation_id=second))
        assert len(ENDED) == before
    assert sorted(ENDED[before:]) == [["one"], ["two"]]
    assert _states(take_note).peek(first) is None
    assert _states(take_note).peek(second) is None


def test_a_temporary_reactive_conversation_ends_with_its_turn(tmp_path: Path) -> None:
    """A temporary conversation is gone when its turn closes it, so its tools are told then."""

    class Notetaker(ReactiveThinker):
        @classmethod
        def declare_default_tools(cls) -> tuple[object, ...]:
            return (take_note,)

    thinker = make_chat(ScriptedModel(_note_then_answer), tmp_path, Notetaker)
    before = len(ENDED)
    asyncio.run(thinker.run("jot", durable=False))
    assert ENDED[before:] == [["jot"]]


def test_ending_a_chat_while_its_turn_runs_is_refused(tmp_path: Path) -> None:
    """end_conversation from inside the running turn raises MisuseError and forgets nothing."""
    refused: list[BaseException] = []
    conversation = f"chat-{uuid.uuid4().hex}"

    @tool(name="end_now", risk="low")
    def end_now() -> str:
        """End the chat at once."""
        try:
            chat.end_conversation(conversation)
        except MisuseError as exc:
            refused.append(exc)
        return "tried"

    class Ender(ChatThinker):
        @classmethod
        def declare_default_tools(cls) -> tuple[object, ...]:
            return (take_note, end_now)

    def script(request: ModelRequest) -> ModelResponse:
        if request.messages[-1].role == "user" and request.messages[-1].text:
            return calls(call("take_note", {"text": "x"}), call("end_now"))
        return answer("ok")

    chat = make_chat(ScriptedModel(script), tmp_path, Ender)
    before = len(ENDED)
    asyncio.run(chat.send("go", conversation_id=conversation))
    assert len(refused) == 1
    assert "after the turn" in str(refused[0])
    assert len(ENDED) == before
    chat.end_conversation(conversation)
    assert ENDED[before:] == [["x"]]


class Counting(SingleObjectiveThinker[str, str]):
    @classmethod
    def declare_default_tools(cls) -> tuple[object, ...]:
        return (Tally,)


def _tally_twice(request: ModelRequest) -> ModelResponse:
    done = sum(1 for message in request.messages if message.role == "assistant")
    if done < 2:
        return calls(call("tally", {"label": f"t{done}"}))
    return answer("counted")


def _results(request: ModelRequest) -> list[str]:
    return [
        str(block.content)
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def test_a_class_tool_s_state_lives_for_its_run_and_is_forgotten_at_its_end() -> None:
    """Self.state grows within a run, is dropped at the run's end, and a new run starts afresh."""
    model = ScriptedModel(_tally_twice)
    thinker = Counting(
        DECLARATION,
        hub=ToolHub(),
        catalog=fresh_catalog(),
        conversations=ConversationService(":memory:"),
        client=model,
    )
    before = len(ENDED)
    asyncio.run(thinker.run("count", conversation_id="first"))
    assert ENDED[before:] == [["t0", "t1"]]
    assert "tally 2" in str(_results(model.requests[-1]))
    asyncio.run(thinker.run("count", conversation_id="second"))
    assert ENDED[before:] == [["t0", "t1"], ["t0", "t1"]]  # the second run began at none
    assert _states(Tally).peek("first") is None
    assert _states(Tally).peek("second") is None


def test_compaction_carries_a_declared_state_of_its_own_conversation() -> None:
    """A declared state's carried_state() is asked for the conversation named, and only that one."""
    provider = provider_for(Tally)
    states = _states(Tally)
    states.get("carry-a").items.append("kept")
    try:
        assert provider.carried_state("carry-a") == CarriedState(tool="tally", text="notes: kept")
        assert provider.carried_state("carry-b") is None
        provider.forget_conversation_state("carry-b")  # another conversation's end
        assert states.peek("carry-a") is not None
    finally:
        provider.forget_conversation_state("carry-a")


class Recording(StaticProvider):
    """A hand-written provider that records the conversation ids it is told about."""

    def __init__(self, name: str, told: list[str | None]) -> None:
        super().__init__(name, read_only=True)
        self._told = told

    def forget_conversation_state(self, conversation_id: str | None = None) -> None:
        self._told.append(conversation_id)


def test_a_sub_thinker_s_end_does_not_reach_what_it_inherited_from_its_parent() -> None:
    """An inherited tool is told only when the parent's conversation ends, never at the sub's."""
    told: list[str | None] = []
    shared = Recording("echo", told)

    class Lead(SingleObjectiveThinker[str, str]):
        @classmethod
        def declare_default_providers(cls) -> tuple[Any, ...]:
            return (shared,)

        @classmethod
        def declare_default_tools(cls) -> tuple[object, ...]:
            return (Tally,)

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub_thinker_request(request):
            if len(request.messages) == 1:
                return calls(call("echo", {"text": "hi"}), call("tally", {"label": "sub"}))
            return answer({"answer": "done"})
        if len(request.messages) == 1:
            return calls(call("tally", {"label": "lead"}))
        if len(request.messages) == 3:
            return calls(call(SUB_THINKER, {"objective": "Tally once more."}))
        return answer("done")

    model = ScriptedModel(script)
    lead = Lead(
        DECLARATION,
        hub=ToolHub(),
        catalog=fresh_catalog(),
        conversations=ConversationService(":memory:"),
        client=model,
    )
    before = len(ENDED)
    asyncio.run(lead.run("work", conversation_id="lead"))
    assert told == ["lead"]  # the sub's end told nothing it inherited
    assert ENDED[before:] == [["lead", "sub"]]  # the sub tallied on the parent's state


def test_a_function_tool_declared_with_state_needs_a_state_parameter() -> None:
    """state= on a function without a 'state' parameter is a declaration error that says so."""
    with pytest.raises(ToolDeclarationError, match="parameter named 'state'"):

        @tool(risk="low", state=Notes)
        def no_state(text: str) -> str:
            """Forget to take the state."""
            return text


def test_a_function_tool_s_state_parameter_is_not_part_of_its_input() -> None:
    """The published schema leaves the state out, and input naming it is refused."""
    provider = provider_for(take_note)
    assert list(provider.input_schema["properties"]) == ["text"]
    with pytest.raises(InvalidToolInput, match="undeclared field"):
        provider.parse_input({"text": "a", "state": {}})


def test_a_declared_state_that_raises_when_forgotten_is_dropped_and_reported() -> None:
    """A state whose forget hook raises is still dropped; the failure reaches the caller."""

    @tool(risk="low", state=Fragile)
    def fragile(state: Fragile) -> str:
        """Keep a fragile state."""
        return "ok"

    provider = provider_for(fragile)
    provider.create(None)  # outside a conversation: a fresh state nothing keeps
    _states(fragile).get("f")
    with pytest.raises(RuntimeError, match="disk gone"):
        provider.forget_conversation_state("f")
    assert _states(fragile).peek("f") is None
