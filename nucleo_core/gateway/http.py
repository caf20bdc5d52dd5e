"""The gateway over streamable HTTP: a bearer token on every request, loopback by default.

Every request must carry ``Authorization: Bearer <token>`` (`BearerToken`); one that does not
is answered ``401`` before it reaches the MCP layer, and the token's identity (never the token)
rides the request to the audit record. The gateway listens on ``127.0.0.1`` unless told
otherwise; a host that is not a loopback address is refused unless remote access is allowed
explicitly (and a token is always required).
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, final

from nucleo_core.gateway.errors import GatewayConfigError
from nucleo_core.gateway.server import TOKEN_SCOPE_KEY

if TYPE_CHECKING:
    from nucleo_core.gateway.token import BearerToken

__all__ = ["MCP_PATH", "RequireToken", "bound_socket", "check_host"]

#: Where the MCP endpoint is served.
MCP_PATH = "/mcp"

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_App = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


def check_host(host: str, *, allow_remote: bool) -> None:
    """Refuse a host that is not a loopback address unless remote access is allowed.

    Raises:
        GatewayConfigError: ``host`` is not loopback and ``allow_remote`` is not set.
    """
    if _loopback(host) or allow_remote:
        return
    raise GatewayConfigError(
        f"--host {host} is not a loopback address: the gateway would be reachable from other "
        "machines. Pass --allow-remote as well to serve it there (every request still needs "
        "the bearer token; put TLS in front of it), or serve on 127.0.0.1"
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bound_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: an ephemeral one).

    Raises:
        GatewayConfigError: The address cannot be bound (in use, or not this machine's).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError as exc:
        listener.close()
        raise GatewayConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    return listener


@final
class RequireToken:
    """ASGI middleware: a request without the bearer token is answered ``401``.

    Args:
        app: The MCP application.
        token: The token every request must carry.
    """

    def __init__(self, app: _App, token: BearerToken) -> None:
        self._app = app
        self._token = token

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        """Check the request's token, then hand it on with the token's identity."""
        if scope.get("type") != "http":
            await self._app(scope, receive, send)
            return
        authorization = None
        for key, value in scope.get("headers", ()):
            if key == b"authorization":
                authorization = value.decode("latin-1")
                break
        if not self._token.admits(authorization):
            await _unauthorized(send)
            return
        scope = dict(scope)
        scope[TOKEN_SCOPE_KEY] = self._token.identity
        await self._app(scope, receive, send)


async def _unauthorized(send: _Send) -> None:
    body = json.dumps(
        {
            "error": "unauthorized",
            "message": (
                "send the gateway's bearer token as 'Authorization: Bearer <token>' "
                "($NUCLEO_API_TOKEN, or the file .nucleo/gateway-token where it was started)"
            ),
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="nucleo"'),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
