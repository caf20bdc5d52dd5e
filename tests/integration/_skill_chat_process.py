"""One process of a durable chat that loads a skill: ``python _skill_chat_process.py DB MODE``.

It runs one `ChatThinker` turn on conversation ``chat`` of the SQLite file ``DB`` on a scripted
model, and prints one JSON line: the system text and tool names of every request, the tools
that ran, and whether each tool result of the turn was an error. ``MODE``:

- ``load``: the model asks for the ``glossary`` skill (``allowed-tools: lookup``), then answers;
  the hub holds the skill.
- ``resume``: the model calls ``write_record`` and ``lookup``, then answers; this process's hub
  holds no skill at all, so whatever the turn knows of the skill comes from the conversation.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from nucleo_core import Skill, SkillRegistry, SkillSelector, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.hub.hub import ToolHub
from nucleo_core.models import ModelCatalog, ThinkerDeclaration, ToolResultBlock
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking.chat import ChatThinker

GLOSSARY = Skill(
    name="glossary",
    description="Look terms up in the glossary.",
    instructions="Look every term up before you use it.",
    allowed_tools=("lookup",),
)

RAN: list[str] = []


@tool(read_only=True, risk="low")
def lookup(term: str) -> str:
    """Look a term up in the glossary."""
    RAN.append("lookup")
    return f"{term}: on file"


@tool(risk="medium")
def write_record(term: str) -> str:
    """Write a record."""
    RAN.append("write_record")
    return f"wrote {term}"


class Chat(ChatThinker):
    """The chat of this test: two tools, the glossary on offer."""

    @classmethod
    def declare_default_tools(cls) -> tuple[object, ...]:
        return (lookup, write_record)

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector("glossary")


def script(mode: str) -> Any:
    """The scripted model's answer function for ``mode``."""

    def answer(request: ModelRequest) -> ModelResponse | str:
        if len(model.requests) > 1:
            return "Done."
        if mode == "load":
            return tool_use_response(("request_skill", {"skill": "glossary"}))
        return tool_use_response(("write_record", {"term": "k"}), ("lookup", {"term": "k"}))

    model = ScriptedModel(answer)
    return model


def main() -> None:
    """Run the turn of ``MODE`` and print what happened."""
    path, mode = sys.argv[1], sys.argv[2]
    model = script(mode)
    hub = ToolHub(skills=SkillRegistry([GLOSSARY])) if mode == "load" else ToolHub()
    with ConversationService(path) as service:
        thinker = Chat(
            ThinkerDeclaration("standard", 1_000),
            hub=hub,
            catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
            conversations=service,
            client=model,
        )
        asyncio.run(thinker.send("Go.", conversation_id="chat"))
        messages = service.open("chat", durable=True).messages
    results = [b for m in messages[-2:] for b in m.content if isinstance(b, ToolResultBlock)]
    print(
        json.dumps(
            {
                "systems": [request.system for request in model.requests],
                "tools": [[spec.name for spec in request.tools] for request in model.requests],
                "ran": RAN,
                "errors": [block.is_error for block in results],
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
