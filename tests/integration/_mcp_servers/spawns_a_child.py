"""A server that starts a long-lived helper process of its own, as many real servers do.

The helper (``python -c "import time; time.sleep(600)"``) inherits the server's stdin, stdout
and stderr and process group, as a child started with ``subprocess.Popen`` does. Its tools:

* ``pids``: the server's and the helper's process ids, as JSON (for the process-table checks);
* ``break_listing``: from then on ``tools/list`` fails, and the server says its tools changed,
  so the client re-lists, fails, and restarts the session while this server is still alive.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

MODERN = "2026-07-28"
HELPER = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
broken = False


class Spawner(MCPServer):
    """An MCPServer whose listing can be broken on request."""

    async def list_tools(self) -> Any:
        if broken:
            raise RuntimeError("the listing is broken")
        return await super().list_tools()


server = Spawner("spawner")


@server.tool(structured_output=False)
def pids() -> str:
    """The server's and its helper's process ids."""
    return json.dumps({"server": os.getpid(), "helper": HELPER.pid})


@server.tool(structured_output=False)
async def break_listing(ctx: Context) -> str:
    """Make tools/list fail from now on, and say the tools changed."""
    global broken
    broken = True
    if ctx.protocol_version == MODERN:
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()
    return "broken"


if __name__ == "__main__":
    server.run()
