"""What the context of a gateway request says: who sent it, over which session and protocol.

Read from the SDK's request context (``ctx``): the MCP session's header or the stdio process,
the client's declared name and version, the bearer token's identity the HTTP layer put in the
request's scope, the protocol era, and whether the client declared form elicitation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nucleo_core.gateway.identity import ClientIdentity

__all__ = ["TOKEN_SCOPE_KEY", "elicits", "modern", "request_identity"]

#: The header of the MCP session an HTTP request belongs to.
_SESSION_HEADER = "mcp-session-id"
#: Where the HTTP layer puts the identity of the token a request carried (`gateway.http`).
TOKEN_SCOPE_KEY = "nucleo.token"


def request_identity(ctx: Any) -> tuple[str, ClientIdentity]:
    """The session of a request (``stdio``, its MCP session id, or ``http``), and its client."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    token = scope.get(TOKEN_SCOPE_KEY) if isinstance(scope, Mapping) else None
    headers = getattr(request, "headers", None)
    session = "stdio"
    if request is not None:
        session = (headers.get(_SESSION_HEADER) if headers is not None else None) or "http"
    params = ctx.session.client_params
    info = getattr(params, "client_info", None)
    identity = ClientIdentity.of(
        getattr(info, "name", None),
        getattr(info, "version", None),
        token=token if isinstance(token, str) else None,
        session=session,
    )
    return session, identity


def modern(ctx: Any) -> bool:
    """Whether the request is on the 2026-07-28 protocol (or later): no handshake."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def elicits(ctx: Any) -> bool:
    """Whether the client declared form elicitation (a bare ``elicitation: {}`` counts)."""
    capabilities = ctx.session.client_capabilities
    elicitation = getattr(capabilities, "elicitation", None)
    if elicitation is None:
        return False
    return (
        getattr(elicitation, "form", None) is not None or getattr(elicitation, "url", None) is None
    )
