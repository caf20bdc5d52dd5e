"""The MCP servers configured for the project, bound to the hub of ``nucleo run`` and ``chat``."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from nucleo_core.cli.mcp_survey import mcp_logs_held
from nucleo_core.mcp import MCPConfigError, MCPServers, discover_servers

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub

__all__ = ["connect_configured_servers"]


def connect_configured_servers(
    hub: ToolHub, start: str | os.PathLike[str] | None = None
) -> list[str]:
    """Bind the MCP servers configured for the project at ``start`` (the cwd) to ``hub``.

    Their tools join the palettes as the configuration says (`MCPServers.connect_to_hub`);
    closing the hub closes them. A server's elicitation requests are asked on the terminal
    when stdin and stderr are one (`TerminalAnswerer`), and declined otherwise; its sampling
    requests, where its configuration enables them, are served by the project's model
    catalog.

    Returns:
        A warning per problem reported (a server that did not start, a collision, an unusable
        tool), or for a configuration that cannot be read; nothing when none is configured.
    """
    try:
        configs = discover_servers(start)
    except MCPConfigError as exc:
        return [f"the MCP servers are not connected: {exc}"]
    if not configs:
        return []
    from nucleo_core.mcp.elicitation import TerminalAnswerer

    # Asked on the terminal only when someone is there to answer; else declined (fail closed).
    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    with mcp_logs_held():
        servers = MCPServers(
            configs, elicitation=TerminalAnswerer() if interactive else None
        ).connect_to_hub(hub)
    return [problem.message for problem in servers.problems]
