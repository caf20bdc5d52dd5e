"""Give an MCP server's tools to one thinker class: ``thinkers = "selector"`` and its selector."""

import sys
from pathlib import Path

from nucleo_core import ThinkerBase, ToolHub, ToolSelector
from nucleo_core.mcp import MCPServerConfig, connect_to_hub

NOTES_SERVER = Path(__file__).parent / "mcp_project" / "notes_server.py"


class NoteTaker(ThinkerBase):
    """A thinker whose catalog holds the notes server's tools."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """Select the configured MCP server ``notes``."""
        return ToolSelector().add_mcp_server("notes")


class Greeter(ThinkerBase):
    """A thinker that selects no MCP server."""


notes = MCPServerConfig(
    name="notes", command=sys.executable, args=(str(NOTES_SERVER),), thinkers="selector"
)
hub = ToolHub()
servers = connect_to_hub(hub, [notes])
print("before any catalog:", servers.pool.status("notes").state)  # started when first needed
print("NoteTaker:", [provider.name for provider in hub.compatible_catalog(NoteTaker)])
print("Greeter:", [provider.name for provider in hub.compatible_catalog(Greeter)])
print("system-wide:", hub.system_wide_tools())
print("after:", servers.pool.status("notes").state)
hub.close()
