"""MCP servers as tool sources: configuration, the client pool, providers, and hub binding.

Importing this package does not import the MCP SDK (install ``nucleo-core[mcp]``); the SDK is
imported when the pool first starts a session.

Example:
    >>> from nucleo_core import ToolHub
    >>> from nucleo_core.mcp import MCPServerConfig, MCPServers
    >>> servers = MCPServers([MCPServerConfig(name="time", command="mcp-server-time")])
    >>> servers.configs["time"].describe()
    'mcp-server-time'
    >>> servers.close()
"""

from nucleo_core.mcp.config import (
    Exposure,
    MCPServerConfig,
    MCPToolSettings,
    SessionMode,
    discover_servers,
    servers_from_file,
    servers_from_mapping,
    servers_from_mcp_json,
)
from nucleo_core.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationAnswerer,
    ElicitationRequest,
    ScriptedAnswerer,
    TerminalAnswerer,
)
from nucleo_core.mcp.errors import (
    MCPCollisionError,
    MCPConfigError,
    MCPPinError,
    MCPPinStoreError,
    MCPServerUnavailable,
)
from nucleo_core.mcp.pins import NewTools, Pin, PinCheck, PinStore, Quarantine, QuarantineReason
from nucleo_core.mcp.pool import ListingListener, MCPClientPool
from nucleo_core.mcp.provider import MCP_PREFIX, MCPTool, MCPToolCaller, MCPToolProvider
from nucleo_core.mcp.report import MCPProblem, MCPProblemKind, MCPServerStatus
from nucleo_core.mcp.result import MCPArtifact, MCPOutcome, MCPToolResult
from nucleo_core.mcp.sampling import (
    CatalogSampler,
    Sampler,
    SamplingMessage,
    SamplingRefused,
    SamplingRequest,
    SamplingResult,
    SamplingSettings,
)
from nucleo_core.mcp.selector import MCPToolSelector, selects_mcp_server
from nucleo_core.mcp.servers import MCPServers, connect_to_hub

__all__ = [
    "MCP_PREFIX",
    "CatalogSampler",
    "ElicitationAnswer",
    "ElicitationAnswerer",
    "ElicitationRequest",
    "Exposure",
    "ListingListener",
    "MCPArtifact",
    "MCPClientPool",
    "MCPCollisionError",
    "MCPConfigError",
    "MCPOutcome",
    "MCPPinError",
    "MCPPinStoreError",
    "MCPProblem",
    "MCPProblemKind",
    "MCPServerConfig",
    "MCPServerStatus",
    "MCPServerUnavailable",
    "MCPServers",
    "MCPTool",
    "MCPToolCaller",
    "MCPToolProvider",
    "MCPToolResult",
    "MCPToolSelector",
    "MCPToolSettings",
    "NewTools",
    "Pin",
    "PinCheck",
    "PinStore",
    "Quarantine",
    "QuarantineReason",
    "Sampler",
    "SamplingMessage",
    "SamplingRefused",
    "SamplingRequest",
    "SamplingResult",
    "SamplingSettings",
    "ScriptedAnswerer",
    "SessionMode",
    "TerminalAnswerer",
    "connect_to_hub",
    "discover_servers",
    "selects_mcp_server",
    "servers_from_file",
    "servers_from_mapping",
    "servers_from_mcp_json",
]
