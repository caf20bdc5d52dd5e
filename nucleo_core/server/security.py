"""What every request passes before a route: the body's size, the bearer token, safe headers.

- **Body size.** A body larger than the limit is answered 413 before it is read in full:
  by its ``Content-Length``, or, when it is sent in chunks, as soon as the chunks pass it.
- **Token.** Every endpoint but the health check needs ``Authorization: Bearer <token>``,
  compared in constant time. There are no cookies (so there is no CSRF to defend against), and
  no CORS headers are sent: a page of another origin cannot read the API's answers.
- **Headers.** Answers are not cached (``Cache-Control: no-store``) and not sniffed.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from starlette.exceptions import HTTPException

from nucleo_core.server.errors import ApiError
from nucleo_core.server.token import ApiToken

__all__ = ["DRAIN_LIMIT", "SECURITY_HEADERS", "BodyLimit", "BodyTooLarge", "bearer_identity"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The largest refused body read to its end, so that its sender reads the 413 (16 MiB).
DRAIN_LIMIT: Final = 16 * 1024 * 1024

#: Sent with every answer.
SECURITY_HEADERS: Final = (
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class BodyTooLarge(HTTPException):
    """A request body passed the limit while it was read (answered 413).

    An `HTTPException`, because the framework turns any other error raised while a body is
    read into a 400 that would hide why.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, _too_large_message(limit))


def _too_large_message(limit: int) -> str:
    return f"the request body is larger than {limit} bytes, the most this server accepts"


class BodyLimit:
    """ASGI middleware: 413 for a body larger than ``limit`` bytes; safe headers on every answer.

    Args:
        app: The application.
        limit: The largest body accepted, in bytes.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one connection's request, its body counted and its answer's headers set."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *SECURITY_HEADERS]
            await send(message)

        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            if declared <= DRAIN_LIMIT:
                await _drain(receive, declared)
            await _answer_too_large(send_with_headers, self.limit)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    if message.get("more_body", False):
                        await _drain(receive, DRAIN_LIMIT - received)
                    raise BodyTooLarge(self.limit)
            return message

        await self.app(scope, counted, send_with_headers)


async def _drain(receive: Receive, budget: int) -> None:
    """Read and drop the rest of a refused body, up to ``budget`` bytes.

    A client still sending when the answer comes would see its connection reset instead of
    the 413; past the budget, closing the connection is the cheaper answer.
    """
    while budget > 0:
        message = await receive()
        if message["type"] != "http.request":
            return
        budget -= len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server refuses a malformed length itself
    return None


async def _answer_too_large(send: Send, limit: int) -> None:
    body = json.dumps(
        {"error": "request_too_large", "message": _too_large_message(limit), "problems": []}
    ).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def bearer_identity(token: ApiToken, authorization: str | None) -> str:
    """The identity of the token an ``Authorization`` header bears.

    Raises:
        ApiError: 401 the header is missing, is not a bearer token, or bears another token.
    """
    if authorization is None:
        raise ApiError(
            401,
            "unauthorized",
            "this endpoint needs the API token: send the header Authorization: Bearer <token> "
            "(the server's token is in .nucleo/api-token, or $NUCLEO_API_TOKEN)",
        )
    scheme, _, presented = authorization.partition(" ")
    if scheme.lower() != "bearer" or not presented.strip():
        raise ApiError(401, "unauthorized", "the Authorization header must be: Bearer <token>")
    if not token.matches(presented.strip()):
        raise ApiError(401, "unauthorized", "the token sent is not this server's API token")
    return token.identity
