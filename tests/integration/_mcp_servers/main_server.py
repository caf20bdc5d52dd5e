"""A test MCP server written with the SDK's own server API (``MCPServer``).

Run ``python main_server.py stdio [NAME]`` to serve over stdio, or ``python main_server.py http
[NAME] [PORT]`` to serve streamable HTTP on 127.0.0.1 at PORT (an ephemeral port by default),
which it prints as ``PORT <n>`` on its first line.

Its tools cover what the client must handle: plain text, a declared output schema with
structured content, an image, ``isError``, annotations (hints), a call that hangs (and says
when it began), its own pid (for the kill test), and tools that add or remove tools and notify
``tools/list_changed``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel

NAME = sys.argv[2] if len(sys.argv) > 2 else "main"
MODERN = "2026-07-28"
#: The smallest valid PNG (a 1x1 transparent pixel), base64.
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5"
    "ErkJggg=="
)

server = MCPServer(NAME)


class Forecast(BaseModel):
    """A weather forecast."""

    city: str
    celsius: float


@server.tool(annotations=ToolAnnotations(readOnlyHint=True), structured_output=False)
def echo(text: str) -> str:
    """Repeat the text back."""
    return text


@server.tool(annotations=ToolAnnotations(destructiveHint=True), structured_output=False)
def wipe(target: str) -> str:
    """Pretend to delete the target."""
    return f"wiped {target}"


@server.tool(
    annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=True), structured_output=False
)
def contradict() -> str:
    """Hint both read-only and destructive."""
    return "?"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def forecast(city: str) -> Forecast:
    """Tomorrow's weather for a city."""
    return Forecast(city=city, celsius=21.5)


@server.tool(structured_output=False)
def picture() -> list[TextContent | ImageContent]:
    """A caption and a one-pixel image."""
    return [
        TextContent(type="text", text="a tiny picture"),
        ImageContent(type="image", data=PIXEL, mime_type="image/png"),
    ]


@server.tool(structured_output=False)
def fail(reason: str) -> str:
    """Always fails, saying why (an isError result)."""
    raise ToolError(f"cannot do that: {reason}")


@server.tool(structured_output=False)
async def sleep(seconds: float, started: str = "") -> str:
    """Sleep, then say so; first create the file `started` names, if any."""
    if started:
        Path(started).touch()  # a test waits for this: the call has reached the server
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool(structured_output=False)
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


async def _tools_changed(ctx: Context) -> None:
    if ctx.protocol_version == MODERN:
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()


@server.tool(structured_output=False)
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called `name` and notify tools/list_changed."""

    def added() -> str:
        return f"I am {name}"

    server.add_tool(added, name=name, description=f"A tool added at run time: {name}.")
    await _tools_changed(ctx)
    return f"added {name}"


@server.tool(structured_output=False)
async def shrink(name: str, ctx: Context) -> str:
    """Remove the tool called `name` and notify tools/list_changed."""
    server.remove_tool(name)
    await _tools_changed(ctx)
    return f"removed {name}"


def _serve_http() -> None:
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # A given port lets a test stop the server and start another where the client expects it.
    listener.bind(("127.0.0.1", int(sys.argv[3]) if len(sys.argv) > 3 else 0))
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        _serve_http()
    else:
        server.run()
