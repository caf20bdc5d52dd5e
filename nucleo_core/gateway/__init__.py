"""nucleo as a governed MCP gateway (``nucleo mcp serve``).

The gateway is an MCP server that serves one **profile** — a thinker class, and the MCP
servers behind it — to any MCP client (Claude Desktop, Claude Code, Cursor, an IDE). The
client sees the thinker's palette; every call it makes passes the same call door and guard as
a thinker's own call (availability, read-only, input, permission), ``confirm`` calls are
approved through MCP elicitation or as durable approvals, and everything is on the audit
record with the client's identity. Importing this package imports no MCP SDK: the server API
is imported when the gateway serves.
"""

from nucleo_core.gateway.client import CallAnswer, GatewayClient
from nucleo_core.gateway.errors import GatewayConfigError, GatewayError
from nucleo_core.gateway.identity import ClientIdentity
from nucleo_core.gateway.naming import prefixed_configs, server_prefix
from nucleo_core.gateway.profile import GatewayOffer, GatewayProfile, discover_profile
from nucleo_core.gateway.server import Gateway
from nucleo_core.gateway.token import BearerToken
from nucleo_core.gateway.tool_list import declared_annotations, tool_definition

__all__ = [
    "BearerToken",
    "CallAnswer",
    "ClientIdentity",
    "Gateway",
    "GatewayClient",
    "GatewayConfigError",
    "GatewayError",
    "GatewayOffer",
    "GatewayProfile",
    "declared_annotations",
    "discover_profile",
    "prefixed_configs",
    "server_prefix",
    "tool_definition",
]
