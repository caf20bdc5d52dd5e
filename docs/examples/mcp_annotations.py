"""What makes an MCP tool read-only: the configuration, and a server's hints only if trusted."""

import sys
from pathlib import Path

from nucleo_core.mcp import MCPServerConfig, MCPServers, MCPToolSettings

NOTES_SERVER = Path(__file__).parent / "mcp_project" / "notes_server.py"


def notes(name: str, **settings: object) -> MCPServerConfig:
    """The notes server under the id ``name``, with ``settings``."""
    return MCPServerConfig(
        name=name, command=sys.executable, args=(str(NOTES_SERVER),), prefix=name, **settings
    )


untrusted = notes("plain")  # trust_annotations is off by default
trusted = notes("trusting", trust_annotations=True)
declared = notes("declared", tools={"list_notes": MCPToolSettings(read_only=True)})

with MCPServers([untrusted, trusted, declared]) as servers:
    columns = {name: servers.start(name) for name in ("plain", "trusting", "declared")}
    print(f"{'tool':<13} {'hints':<16} {'plain':<6} {'trusting':<9} declared")
    for plain, trusting, as_declared in zip(*columns.values(), strict=True):
        hints = ", ".join(key for key, on in plain.annotations.items() if on is True)
        cells = ["yes" if p.read_only else "no" for p in (plain, trusting, as_declared)]
        print(f"{plain.tool:<13} {hints:<16} {cells[0]:<6} {cells[1]:<9} {cells[2]}")
