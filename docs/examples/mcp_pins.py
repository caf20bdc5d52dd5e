"""A tool whose definition changed since it was pinned is withheld until it is accepted."""

import logging
import sys
import tempfile
from pathlib import Path

from nucleo_core import ToolHub
from nucleo_core.mcp import MCPServerConfig, MCPServers, PinStore

DICTIONARY = Path(__file__).parent / "mcp_project" / "dictionary_server.py"


def release(number: str) -> MCPServerConfig:
    """The dictionary server as its release ``number`` publishes its tools."""
    return MCPServerConfig(
        name="dictionary", command=sys.executable, args=(str(DICTIONARY), number)
    )


# What the MCP layer reports (a quarantine, a new tool) is logged on nucleo.mcp; shown here.
logging.basicConfig(stream=sys.stdout, format="%(levelname)s %(message)s")

with tempfile.TemporaryDirectory() as folder:
    # Here a file of its own; by default .nucleo/mcp_pins.sqlite3 in the project folder.
    pins = PinStore(Path(folder) / "mcp_pins.sqlite3")

    with MCPServers([release("1")], pins=pins) as servers:  # first seen: pinned
        print("release 1 offers:", [tool.name for tool in servers.start("dictionary")])

    hub = ToolHub()
    with MCPServers([release("2")], pins=pins).connect_to_hub(hub) as servers:
        print("release 2 offers:", [tool.name for tool in hub.system_wide_tools()])
        for held in servers.quarantined():
            print(f"quarantined: {held.tool} ({held.reason}: {', '.join(held.fields)})")
            print(held.diff)
        servers.accept_pin("dictionary", "define")  # reviewed: what was shown is pinned
        print("once accepted:", [tool.name for tool in hub.system_wide_tools()])
