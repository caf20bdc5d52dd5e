"""Selecting an MCP server's tools into a thinker's catalog from its `ToolSelector`."""

from __future__ import annotations

from nucleo_core.hub.selector import ToolSelector

__all__ = ["MCPToolSelector", "selects_mcp_server"]


class MCPToolSelector(ToolSelector):
    """A `ToolSelector` that can also name MCP servers configured with ``thinkers = "selector"``.

    The tools of a named server join the catalog of the thinker class that declares the
    selector; the server is started when that catalog is first resolved (or at hub load, for a
    server configured ``start = "eager"``).

    Example:
        >>> selector = MCPToolSelector().add_mcp_server("github")
        >>> selector.mcp_servers
        ('github',)
    """

    def add_mcp_server(self, name: str) -> MCPToolSelector:
        """Select the tools of the MCP server ``name`` (its configured id)."""
        super().add_mcp_server(name)
        return self


def selects_mcp_server(selector: ToolSelector | None, name: str) -> bool:
    """Whether ``selector`` names the MCP server ``name``.

    Any selector with an ``mcp_servers`` collection counts, so a `ToolSelector` that learns
    ``add_mcp_server`` itself works unchanged.
    """
    servers = getattr(selector, "mcp_servers", ())
    return isinstance(servers, tuple | list | frozenset | set) and name in servers
