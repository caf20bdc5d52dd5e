"""Reading an MCP server's tools: its ``tools/list`` pages, and how it announces changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from nucleo_core.mcp._session_limits import MAX_PAGES

if TYPE_CHECKING:
    from nucleo_core.mcp._session_state import Listing

__all__ = ["list_tools", "listens"]


async def list_tools(client: Client) -> Listing:
    """Every tool the server lists, page by page (at most `MAX_PAGES`), in wire form."""
    tools: list[Mapping[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += [
            tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in page.tools
        ]
        cursor = page.next_cursor
        if cursor is None:
            break
    return tuple(tools)


def listens(client: Client) -> bool:
    """Whether tool-list changes come over a ``subscriptions/listen`` stream (2026-07-28)."""
    capability = client.server_capabilities.tools
    return (
        client.protocol_version in MODERN_PROTOCOL_VERSIONS
        and capability is not None
        and bool(capability.list_changed)
    )
