"""In async code, enter the servers with ``async with``: their sessions live on your loop."""

import asyncio
import sys
from pathlib import Path

from nucleo_core import Risk, ToolHub, run_tool
from nucleo_core.mcp import MCPServerConfig, MCPServers

NOTES_SERVER = Path(__file__).parent / "mcp_project" / "notes_server.py"

notes = MCPServerConfig(
    name="notes", command=sys.executable, args=(str(NOTES_SERVER),), risk=Risk.LOW
)


async def main() -> None:
    hub = ToolHub()
    async with MCPServers([notes]) as servers:  # this loop becomes the pool's home loop
        await servers.aconnect_to_hub(hub)  # starts the server here, without blocking
        print("session on:", servers.pool.status("notes").host)
        tools = {provider.name: provider for provider in hub.system_wide_tools()}
        for text in ("buy milk", "call Ada"):
            add = tools["add_note"]
            print(await run_tool(add.create(), add.parse_input({"text": text})))
        listing = tools["list_notes"]
        print(await run_tool(listing.create(), listing.parse_input({})))
    # Leaving the block closed every session on this loop: no server process is left.
    print("closed:", servers.pool.closed)


asyncio.run(main())
