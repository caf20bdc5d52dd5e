"""What the MCP layer reports: each server's status, and each problem found on the way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["MCPProblem", "MCPProblemKind", "MCPServerStatus"]

#: ``unavailable``: a server did not start or was given up on; ``invalid_tool``: a tool's
#: descriptor is unusable (that tool is skipped, never the whole server); ``collision``: a
#: tool name is already held (by another server, a tool pack's or a thinker's default tool,
#: or a system-wide native tool without ``shadow``); ``reserved``: a tool takes a name nucleo
#: keeps for its own tools (``request_tools``, ``sub_thinker``...). The tool is skipped and
#: the message gives the fix (a ``prefix``). ``quarantined``: a tool's definition changed since
#: it was pinned, or it is new on a server configured ``new_tools = "quarantine"``, or the pin
#: store cannot be read (`nucleo_core.mcp.pins`): it is withheld until accepted.
#: ``new_tool``: a tool appeared on a server that already had pins; it was pinned and is
#: offered (``new_tools = "allow"``), and reported so that someone looks at it.
MCPProblemKind: TypeAlias = Literal[
    "unavailable", "invalid_tool", "collision", "reserved", "quarantined", "new_tool"
]


@dataclass(frozen=True, slots=True, kw_only=True)
class MCPProblem:
    """One problem with one server or one of its tools; every other server and tool works.

    Attributes:
        server: The server's id.
        tool: The tool's name on the server, when the problem is a tool's.
        kind: See `MCPProblemKind`.
        message: What is wrong and how to fix it.
    """

    server: str
    tool: str | None
    kind: MCPProblemKind
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True, kw_only=True)
class MCPServerStatus:
    """A server's session as the pool sees it now.

    Attributes:
        name: The server's id.
        state: ``idle`` (not started), ``starting``, ``ready``, ``restarting``, ``failed``
            (did not start, or given up on), ``closed``, or ``disabled`` (configured
            ``disabled = true``: never started).
        tools: How many tools it lists (``None`` before it ever listed).
        restarts: How many times its session was restarted.
        error: Why it is unavailable, when it is.
        stderr_tail: The last lines of its stderr (stdio servers that stopped or failed).
        protocol_version: The MCP protocol version negotiated with it, once connected.
        host: Where its session lives once made: ``"home loop"`` (the event loop the pool
            was entered on with ``async with``; calls made there reach it directly) or
            ``"pool thread"`` (the pool's own event loop thread).
        conversations: How many conversations have a session of their own now (a server
            configured ``sessions = "conversation"``; see `MCPClientPool.conversations`).
    """

    name: str
    state: Literal["idle", "starting", "ready", "restarting", "failed", "closed", "disabled"]
    tools: int | None
    restarts: int
    error: str | None
    stderr_tail: str
    protocol_version: str | None
    host: Literal["home loop", "pool thread"] | None = None
    conversations: int = 0
