"""Skills attach to the conversation, not to the thinker object (seeds 000 and 001).

A skill the model requests "is then attached to the conversation: its instructions go with
every later call". So a durable chat resumed by a new thinker object (in this process or after
a restart) still sends the skill's instructions and still holds its ``allowed-tools``
restriction, even when no skill source provides the skill any more; a new conversation of the
same thinker object starts with the declared default skills alone; and ``request_skill``'s
"already attached" reads the conversation.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from _hub_kit import make_skill
from _loop_kit import (
    DECLARATION,
    Ledger,
    Lookup,
    WriteRecord,
    answer,
    assert_paired,
    call,
    calls,
    fresh_catalog,
    tool_names,
)

from nucleo_core import SkillRegistry, SkillSelector, ToolHub
from nucleo_core.conversations import ConversationService
from nucleo_core.hub import REQUEST_SKILL
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

GLOSSARY = make_skill("glossary", allowed_tools=("lookup",))
STYLE = make_skill("style")


class Chat(ChatThinker):
    """A durable chat with a read-only and a mutating tool, and the glossary skill on offer."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord]

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector("glossary")


class Worker(SingleObjectiveThinker[str, str]):
    """The same tools and offer, plus the style skill it always runs with."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord]

    @classmethod
    def declare_default_skills(cls) -> list[str]:
        return ["style"]

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector("glossary")


def skills_hub() -> ToolHub:
    return ToolHub(skills=SkillRegistry([GLOSSARY, STYLE]))


def chat(
    service: ConversationService, model: ScriptedModel, hub: ToolHub, cls: type[Any] = Chat
) -> Any:
    thinker = cls(
        DECLARATION, hub=hub, catalog=fresh_catalog(), conversations=service, client=model
    )
    thinker.ledger = Ledger()
    return thinker


def load_glossary_then_answer(request: ModelRequest) -> ModelResponse:
    """Turn one: ask for the glossary skill, then answer."""
    if request.messages[-1].role == "user" and len(request.messages) == 1:
        return calls(call(REQUEST_SKILL, {"skill": "glossary"}))
    return answer("Loaded.")


def write_and_look_up(request: ModelRequest) -> ModelResponse:
    """A turn that calls the mutating tool and the glossary's tool, then answers."""
    if request.messages[-1].text:  # the user's question: no tool result yet
        return calls(call("write_record", {"key": "k"}), call("lookup", {"key": "k"}))
    return answer("Done.")


def last_results(thinker: Any, conversation_id: str) -> list[ToolResultBlock]:
    context = thinker.conversations.open(conversation_id, durable=True)
    assert_paired(context.messages)
    results = [
        m for m in context.messages if any(isinstance(b, ToolResultBlock) for b in m.content)
    ]
    return [b for b in results[-1].content if isinstance(b, ToolResultBlock)]


@pytest.mark.parametrize("hub_keeps_the_skill", [True, False])
def test_a_resumed_durable_chat_keeps_its_skill_in_a_new_thinker(
    tmp_path: Path, hub_keeps_the_skill: bool
) -> None:
    """A new ChatThinker resuming the chat sends the skill's instructions and keeps its limit."""
    path = tmp_path / "chats.sqlite3"
    with ConversationService(path) as service:
        first = chat(service, ScriptedModel(load_glossary_then_answer), skills_hub())
        assert asyncio.run(first.send("Use the glossary.", conversation_id="c")) == "Loaded."

    # Another service on the file, another hub: the skill must come from the conversation.
    hub = skills_hub() if hub_keeps_the_skill else ToolHub()
    with ConversationService(path) as service:
        model = ScriptedModel(write_and_look_up)
        second = chat(service, model, hub)
        assert second.skills == ()  # no conversation yet: this thinker declares no default
        assert asyncio.run(second.send("Write k, then look it up.", conversation_id="c"))

        request = model.requests[0]
        assert f"# Skill: glossary\n\n{GLOSSARY.instructions}" in request.system
        assert "write_record" not in tool_names(request)
        assert "lookup" in tool_names(request)
        assert second.ledger.names() == ["lookup"]
        refused, looked_up = last_results(second, "c")
        assert refused.is_error
        assert not looked_up.is_error
        assert model.requests[1].system == request.system  # every later call carries it
        stored = service.open("c", durable=True)
        assert stored.skills == ("glossary",)
        assert stored.skill_record("glossary") == GLOSSARY


def test_a_second_run_of_the_same_thinker_starts_with_only_its_default_skills() -> None:
    """Run two of one thinker object carries neither run one's skill nor its restriction."""
    requests: list[ModelRequest] = []

    def script(request: ModelRequest) -> ModelResponse:
        requests.append(request)
        if len(requests) == 1:
            return calls(call(REQUEST_SKILL, {"skill": "glossary"}))
        if len(requests) == 2:
            return answer("Loaded.")
        return write_and_look_up(request)

    worker = chat(ConversationService(":memory:"), ScriptedModel(script), skills_hub(), Worker)
    assert asyncio.run(worker.run("Use the glossary.", conversation_id="one", durable=True))
    assert asyncio.run(worker.run("Write k.", conversation_id="two", durable=True)) == "Done."

    assert "# Skill: glossary" in requests[1].system
    assert "write_record" not in tool_names(requests[1])
    second = requests[2]
    assert "# Skill: style" in second.system
    assert "# Skill: glossary" not in second.system
    assert "write_record" in tool_names(second)
    assert worker.ledger.names() == ["write_record", "lookup"]
    assert worker.registry.restrictions == {}
    assert [skill.name for skill in worker.skills] == ["style"]
    conversations = worker.conversations
    assert conversations.open("one", durable=True).skills == ("style", "glossary")
    assert conversations.open("two", durable=True).skills == ("style",)


def test_default_skills_are_attached_to_every_conversation_at_its_start() -> None:
    """Each new conversation holds the declared defaults, with their records, before any call."""
    seen: list[tuple[str, ...]] = []

    def script(request: ModelRequest) -> ModelResponse:
        seen.append(worker.conversation.skills)
        return answer("Fine.")

    worker = chat(ConversationService(":memory:"), ScriptedModel(script), skills_hub(), Worker)
    for cid in ("a", "b"):
        asyncio.run(worker.run("Hello.", conversation_id=cid, durable=True))

    assert seen == [("style",), ("style",)]
    for cid in ("a", "b"):
        assert worker.conversations.open(cid, durable=True).skill_record("style") == STYLE


def test_a_skill_requested_before_any_run_rides_the_first_conversation_only() -> None:
    """Attached with no conversation open, a skill is carried into the next one, then dropped."""
    requests: list[ModelRequest] = []

    def script(request: ModelRequest) -> ModelResponse:
        requests.append(request)
        return answer("Fine.")

    worker = chat(ConversationService(":memory:"), ScriptedModel(script), skills_hub(), Worker)
    assert worker.request_skill("glossary").granted
    assert [skill.name for skill in worker.skills] == ["style", "glossary"]
    asyncio.run(worker.run("One.", conversation_id="one", durable=True))
    asyncio.run(worker.run("Two.", conversation_id="two", durable=True))

    assert "# Skill: glossary" in requests[0].system
    assert "# Skill: glossary" not in requests[1].system
    assert worker.conversations.open("one", durable=True).skills == ("style", "glossary")


def test_request_skill_reads_as_attached_what_the_conversation_holds() -> None:
    """A skill host code attached to the conversation is granted unasked, and its limit holds."""
    requests: list[ModelRequest] = []
    hub = skills_hub()

    def script(request: ModelRequest) -> ModelResponse:
        requests.append(request)
        if len(requests) == 1:
            assert worker.conversation.attach_skill(GLOSSARY)  # the host, mid-turn
            return calls(call(REQUEST_SKILL, {"skill": "glossary"}))
        if len(requests) == 2:
            return calls(call("write_record", {"key": "k"}))
        return answer("Done.")

    worker = chat(ConversationService(":memory:"), ScriptedModel(script), hub, Chat)
    asyncio.run(worker.send("Go.", conversation_id="c"))

    assert not [event for event in hub.admission_record if event.kind == "skill"]
    assert "# Skill: glossary" in requests[1].system
    assert "write_record" not in tool_names(requests[1])
    assert worker.ledger.names() == []
    (refused,) = last_results(worker, "c")
    assert refused.is_error


def test_a_skill_attached_by_name_that_no_source_provides_allows_no_tool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A skill whose allowed-tools cannot be known is taken to allow none, and logged (closed)."""
    service = ConversationService(":memory:")
    service.open("c", durable=True).attach_skill("mystery")  # by name only, an unknown name

    model = ScriptedModel(write_and_look_up)
    worker = chat(service, model, skills_hub(), Chat)
    with caplog.at_level(logging.WARNING, logger="nucleo.skills"):
        asyncio.run(worker.send("Go.", conversation_id="c"))

    assert worker.ledger.names() == []
    assert all(result.is_error for result in last_results(worker, "c"))
    assert {"write_record", "lookup"}.isdisjoint(tool_names(model.requests[0]))
    assert any("'mystery'" in record.getMessage() for record in caplog.records)
