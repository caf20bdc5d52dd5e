"""A test MCP server that keeps state in its process's memory, as a browser or a scratch DB does.

Run ``python stateful_server.py stdio`` to serve over stdio, or ``python stateful_server.py
http`` to serve streamable HTTP on 127.0.0.1 at an ephemeral port, which it prints as
``PORT <n>`` on its first line. The state is kept per MCP session: over stdio the process is
the session; over HTTP, each ``Mcp-Session-Id`` has its own, so two sessions of one HTTP
server are as separate as two processes.

``remember(value)`` adds a value, ``recall()`` says every value remembered so far (in this
session), ``pid()`` says the server's process id, and ``crash()`` exits the process at once
(for the restart tests).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("stateful")
#: The values remembered, by MCP session: the ``Mcp-Session-Id`` over HTTP, ``""`` over stdio
#: (where the process is the session).
memory: dict[str, list[str]] = {}


def _values(ctx: Context) -> list[str]:
    headers = getattr(ctx.request_context.request, "headers", None)
    session = headers.get("mcp-session-id", "") if headers is not None else ""
    return memory.setdefault(str(session), [])


@server.tool(structured_output=False)
def remember(value: str, ctx: Context) -> str:
    """Remember a value for the rest of this session."""
    values = _values(ctx)
    values.append(value)
    return f"{len(values)} value(s) remembered"


@server.tool(structured_output=False)
def recall(ctx: Context) -> str:
    """Every value remembered in this session, in order, comma-separated ("" for none)."""
    return ",".join(_values(ctx))


@server.tool(structured_output=False)
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool(structured_output=False)
def crash() -> str:
    """Exit the process at once, without answering (a server that crashed)."""
    os._exit(3)


def _serve_http() -> None:
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        _serve_http()
    else:
        server.run()
