"""A tool that keeps state for a conversation: carried from turn to turn, dropped at its end."""

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from nucleo_core import ChatThinker, ModelCatalog, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.testing import ScriptedModel, tool_use_response


@dataclass
class Basket:
    """One conversation's shopping basket: made at the tool's first call in the conversation."""

    items: list[str] = field(default_factory=list)

    def carried_state(self) -> str | None:
        """What the model still reads after older turns are compacted into a summary."""
        return f"basket: {', '.join(self.items)}" if self.items else None

    def forget_conversation_state(self) -> None:
        """Called once, when the conversation ends."""
        print(f"conversation ended with {len(self.items)} item(s) in the basket")


@tool(risk="low", state=Basket)
def add_to_basket(item: str, state: Basket) -> str:
    """Add an item to the shopping basket."""
    state.items.append(item)
    return f"{len(state.items)} item(s) in the basket"


class Shopper(ChatThinker):
    """A chat that keeps a basket."""

    @classmethod
    def declare_default_tools(cls):
        """The basket tool, from the first turn."""
        return [add_to_basket]


def answer(request):
    """A "model" that puts what the user says in the basket, then says what the tool said."""
    last = request.messages[-1]
    if last.role == "user" and last.text:
        return tool_use_response(("add_to_basket", {"item": last.text}))
    return last.content[0].content


async def main() -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Shopper(
            ThinkerDeclaration("standard", "short"),
            hub=ToolHub(),
            catalog=ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"}),
            conversations=ConversationService(Path(folder) / "chats.sqlite3"),
            client=ScriptedModel(answer),
        ) as chat,
    ):
        for item in ("milk", "eggs"):
            print(await chat.send(item, conversation_id="groceries"))  # state goes on
        chat.end_conversation("groceries")  # the chat is over: its tools are told


asyncio.run(main())
