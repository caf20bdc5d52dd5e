"""`MCPServerConfig`: one MCP server as configured, and where configurations are read from.

Servers are declared in ``[tool.nucleo.mcp.servers.<id>]`` of ``pyproject.toml``, in
``[mcp.servers.<id>]`` of ``nucleo.toml``, or in a project's ``.mcp.json`` in the
``mcpServers`` shape other MCP clients use. A nucleo table for an id that ``.mcp.json`` also
declares adds to it key by key (a ``risk`` or a ``prefix`` for a server another client
configured), so an existing ``.mcp.json`` works unchanged.

The SDK starts a stdio server with a minimal environment (``HOME``, ``LOGNAME``, ``PATH``,
``SHELL``, ``TERM``, ``USER``): ``env`` adds variables, and ``pass_env`` names variables (or
globs) of the parent's environment to pass through, such as ``SSL_CERT_FILE``,
``REQUESTS_CA_BUNDLE``, ``HTTPS_PROXY`` or ``NO_PROXY``.
"""

from nucleo_core.mcp._config_reading import (
    discover_servers,
    servers_from_file,
    servers_from_mapping,
    servers_from_mcp_json,
)
from nucleo_core.mcp._config_values import RISK_DECISIONS, RISK_LEVELS, Exposure
from nucleo_core.mcp._server_config import (
    SESSION_MODES,
    MCPServerConfig,
    MCPToolSettings,
    SessionMode,
)

__all__ = [
    "RISK_DECISIONS",
    "RISK_LEVELS",
    "SESSION_MODES",
    "Exposure",
    "MCPServerConfig",
    "MCPToolSettings",
    "SessionMode",
    "discover_servers",
    "servers_from_file",
    "servers_from_mapping",
    "servers_from_mcp_json",
]
