"""What the ReactiveThinker contract tests share: a thinker on the scripted model, and readers.

`Assistant` is a `ReactiveThinker` with two tools: ``lookup`` answers at once, ``wait_for_gate``
waits until the thinker's ``gate`` event is set (so a test can cancel a turn mid-tool).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from nucleo_core import Tool, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.hub.hub import ToolHub
from nucleo_core.models import Message, ModelCatalog, ThinkerDeclaration
from nucleo_core.models.messages import TextBlock, ToolResultBlock, ToolUseBlock
from nucleo_core.models.request import ModelRequest
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.reactive import ReactiveThinker
from nucleo_core.thinking.thinker import ContentEvent

__all__ = [
    "DECLARATION",
    "Assistant",
    "Chat",
    "assert_nothing_dangles",
    "lines",
    "make",
]

DECLARATION = ThinkerDeclaration("standard", 1_000)


@tool(read_only=True, risk="low")
def lookup(query: str) -> str:
    """Look a term up in the glossary."""
    return f"{query}: found"


class GateInput(BaseModel):
    label: str = "gate"


@tool(name="wait_for_gate", read_only=True, risk="low")
class WaitForGate(Tool[GateInput, str]):
    """Wait until the test opens the gate."""

    async def run(self, input: GateInput) -> str:
        parent: Any = self.parent
        parent.at_gate.set()
        await parent.gate.wait()
        return input.label


class Assistant(ReactiveThinker):
    """A reactive thinker with the kit's tools and a small iteration cap."""

    max_iterations: ClassVar[int] = 3

    @classmethod
    def declare_default_tools(cls) -> tuple[object, ...]:
        return (lookup, WaitForGate)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = asyncio.Event()
        self.at_gate = asyncio.Event()


class Chat(ChatThinker):
    """A chat thinker with the kit's tools, recording what it streams."""

    max_iterations: ClassVar[int] = 3
    chunk_chars: ClassVar[int] = 8

    @classmethod
    def declare_default_tools(cls) -> tuple[object, ...]:
        return (lookup,)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events: list[ContentEvent] = []
        self.listeners.append(self.events.append)


def make(
    model: ScriptedModel,
    where: Path | str,
    kind: type[ReactiveThinker] = Assistant,
    **options: Any,
) -> Any:
    """A thinker of ``kind`` on ``model``, its conversations in ``where`` (a folder or a path)."""
    path = where / "c.sqlite3" if isinstance(where, Path) and where.is_dir() else where
    return kind(
        DECLARATION,
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
        conversations=ConversationService(path),
        client=model,
        **options,
    )


def lines(messages: Sequence[Message]) -> list[str]:
    """Each message as ``role: what it holds``, tool uses and results by kind."""
    out = []
    for message in messages:
        parts = []
        for block in message.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, ToolUseBlock):
                parts.append(f"<use {block.name}>")
            elif isinstance(block, ToolResultBlock):
                parts.append("<result>")
        out.append(f"{message.role}: {' | '.join(parts)}")
    return out


def assert_nothing_dangles(request: ModelRequest, *, asked: int = 1) -> None:
    """In what the model reads, every user text but the ``asked`` last ones is answered.

    Answered: the run of user messages holding it is followed by an assistant message (a reply
    or a marker's note) before the messages of the turn being asked.
    """
    earlier = request.messages[: len(request.messages) - asked]
    for index, message in enumerate(earlier):
        if message.role != "user" or not any(isinstance(b, TextBlock) for b in message.content):
            continue
        following = next((m for m in earlier[index + 1 :] if m.role != "user"), None)
        assert following is not None, f"unanswered: {message.text!r} in {lines(request.messages)}"
