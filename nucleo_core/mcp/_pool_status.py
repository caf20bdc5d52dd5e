"""The state of one MCP server's session in a pool, as `MCPClientPool.status` reports it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nucleo_core.mcp.report import MCPServerStatus

if TYPE_CHECKING:
    from nucleo_core.mcp._pool_runtime import PoolRuntime
    from nucleo_core.mcp.config import MCPServerConfig

__all__ = ["server_status"]


def server_status(
    runtime: PoolRuntime, config: MCPServerConfig, conversation: str | None
) -> MCPServerStatus:
    """The state of ``config``'s server now: its shared session, or ``conversation``'s own."""
    if config.disabled:
        return MCPServerStatus(
            name=config.name,
            state="disabled",
            tools=None,
            restarts=0,
            error=None,
            stderr_tail="",
            protocol_version=None,
        )
    with runtime.lock:
        if conversation is None:
            session = runtime.sessions.get(config.name)
        else:
            session = runtime.conversation_sessions.get((config.name, conversation))
        conversations = sum(1 for name, _ in runtime.conversation_sessions if name == config.name)
    if session is None:
        return MCPServerStatus(
            name=config.name,
            state="closed" if runtime.closed else "idle",
            tools=None,
            restarts=0,
            error=None,
            stderr_tail="",
            protocol_version=None,
            conversations=conversations,
        )
    return MCPServerStatus(
        name=config.name,
        state=session.state,
        tools=None if session.tools is None else len(session.tools),
        restarts=session.restarts,
        error=None if session.error is None else str(session.error),
        stderr_tail=session.stderr_tail,
        protocol_version=session.protocol_version,
        host="home loop" if session.loop is runtime.home else "pool thread",
        conversations=conversations,
    )
