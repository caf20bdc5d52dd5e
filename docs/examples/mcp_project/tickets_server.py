"""An MCP server that needs a token from its environment, and exits without one.

A stdio server gets a minimal environment: ``pass_env = ["TICKETS_TOKEN"]`` in its
configuration passes the variable through. Without it, it stops at start and says why on
stderr, which ``nucleo mcp`` shows.
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

if not os.environ.get("TICKETS_TOKEN"):
    sys.exit("fatal: TICKETS_TOKEN is not set")

server = MCPServer("tickets")


@server.tool(structured_output=False)
def open_tickets() -> str:
    """The open support tickets."""
    return "#101 printer on fire\n#102 password reset"


if __name__ == "__main__":
    server.run()
