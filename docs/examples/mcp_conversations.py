"""A server that keeps state: a session per conversation, ``sessions = "conversation"``."""

import asyncio
import sys
from pathlib import Path

from nucleo_core import ModelCatalog, Risk, SingleObjectiveThinker, ThinkerDeclaration, ToolHub
from nucleo_core.conversations import ConversationService
from nucleo_core.mcp import MCPServerConfig, MCPServers
from nucleo_core.models import ToolResultBlock
from nucleo_core.testing import ScriptedModel, tool_use_response

NOTES_SERVER = Path(__file__).parent / "mcp_project" / "notes_server.py"  # notes in memory


class Secretary(SingleObjectiveThinker[str, str]):
    """Takes a note, then reads every note back."""


def secretary(note: str):
    """A "model" that adds ``note``, lists the notes, and answers with the list."""

    def answer(request):
        results = [
            block.content
            for message in request.messages
            for block in message.content
            if isinstance(block, ToolResultBlock)
        ]
        if not results:
            return tool_use_response(("add_note", {"text": note}))
        if len(results) == 1:
            return tool_use_response(("list_notes", {}))
        return results[-1].replace("\n", " | ")

    return answer


async def main() -> None:
    for sessions in ("shared", "conversation"):
        notes = MCPServerConfig(
            name="notes",
            command=sys.executable,
            args=(str(NOTES_SERVER),),
            risk=Risk.LOW,
            sessions=sessions,
        )
        hub = ToolHub()
        async with MCPServers([notes]) as servers:
            await servers.aconnect_to_hub(hub)  # the shared session lists the tools
            print(f'sessions = "{sessions}"')
            for run, note in enumerate(("buy milk", "call Ada"), 1):
                thinker = Secretary(
                    ThinkerDeclaration("standard", "short"),
                    hub=hub,
                    catalog=ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"}),
                    conversations=ConversationService(":memory:"),
                    client=ScriptedModel(secretary(note)),
                )
                print(f"  run {run}: {await thinker.run(f'Note: {note}')}")
            # Each run's session closed when the run ended; the shared one closes here.
            print("  sessions left open:", servers.pool.conversations("notes"))


asyncio.run(main())
