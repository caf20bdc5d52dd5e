"""A server that writes about 50 MB to its stderr, then fails.

``python floods_stderr.py start`` floods, writes its last line and exits before any handshake
(a server that fails at start); ``python floods_stderr.py serve`` serves one tool,
``flood_and_exit``, that floods, writes the last line and exits (a server that dies).

The flood: fifty times a line of 1 MiB and one of 600 bytes, then ``LAST``.
"""

from __future__ import annotations

import os
import sys

LAST = "fatal: the last line the server wrote"


def _write(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(2, view) :]


def flood() -> None:
    """Write the flood and the last line straight to file descriptor 2."""
    huge = b"x" * (1 << 20) + b"\n"
    for n in range(50):
        _write(huge)
        _write(f"medium line {n:02d} ".encode() + b"m" * 585 + b"\n")
    _write(LAST.encode() + b"\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["start"]:
        flood()
        sys.exit(3)

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("flood")

    @server.tool(structured_output=False)
    def flood_and_exit() -> str:
        """Flood stderr and exit, without answering."""
        flood()
        os._exit(4)

    server.run()
