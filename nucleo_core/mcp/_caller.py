"""`MCPToolCaller`: what routes an MCP tool's call to its server (the client pool)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from nucleo_core.mcp.result import MCPToolResult

__all__ = ["MCPToolCaller"]


class MCPToolCaller(Protocol):
    """What routes a call to its server: the client pool."""

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,
        structured: bool = False,
        conversation: str | None = None,
    ) -> MCPToolResult:
        """Call ``tool`` on ``server``; every failure is an error result, never an exception."""
        ...

    def end_conversation(
        self, conversation_id: str | None = None, *, server: str | None = None
    ) -> None:
        """Close the sessions kept for ``conversation_id`` (``None``: every conversation's)."""
        ...
