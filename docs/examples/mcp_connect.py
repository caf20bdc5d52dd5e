"""Connect an MCP server to a hub: its tools join every thinker's palette, and calls reach it."""

import asyncio
import sys
from pathlib import Path

from nucleo_core import Risk, ToolHub, run_tool
from nucleo_core.mcp import MCPServerConfig, MCPToolSettings, connect_to_hub

NOTES_SERVER = Path(__file__).parent / "mcp_project" / "notes_server.py"

notes = MCPServerConfig(
    name="notes",
    command=sys.executable,  # the server is a Python script run by this interpreter
    args=(str(NOTES_SERVER),),
    risk=Risk.LOW,
    tools={
        "list_notes": MCPToolSettings(read_only=True),
        "delete_note": MCPToolSettings(risk=Risk.HIGH),
        "clear_notes": MCPToolSettings(risk=Risk.HIGH),
    },
)

hub = ToolHub()
servers = connect_to_hub(hub, [notes])  # starts the server and registers its tools
tools = {provider.name: provider for provider in hub.system_wide_tools()}
for provider in tools.values():
    read_only = "read-only" if provider.read_only else "mutating"
    print(f"{provider.name:<13} {provider.source:<23} {read_only:<10} {provider.risk.value}")


async def call(name: str, **arguments: object) -> str:
    """Validate the arguments against the published schema, then call the server."""
    provider = tools[name]
    result = await run_tool(provider.create(), provider.parse_input(arguments))
    return str(result)


print(asyncio.run(call("add_note", text="buy milk")))
print(asyncio.run(call("list_notes")))
hub.close()  # closes every session: the server process is stopped
print("closed:", servers.pool.closed)
