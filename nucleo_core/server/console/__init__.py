"""The web console at ``/``: one static page over the API, for the catalog, approvals and audit.

The page (``index.html``, ``console.js``, ``console.css``, ``icon.svg``, package data beside
this module) needs no build step and no token to load: it holds no data. Its script asks for
the API token once, keeps it in the tab's ``sessionStorage`` (no cookies, so no CSRF) and sends
it as ``Authorization: Bearer`` on every API request, the live audit stream included (read
with ``fetch``, since ``EventSource`` cannot send a header): the token never rides in a URL,
so it is in no access log, history or referrer.

Each file is answered with a strict Content-Security-Policy: scripts and styles from this
origin only (no inline script, no ``eval``), requests to this origin only, no framing
(``frame-ancestors 'none'``), no form posting anywhere. ``X-Content-Type-Options: nosniff``,
``Referrer-Policy: no-referrer`` and ``Cache-Control: no-store`` come with every answer of
the app (`nucleo_core.server.security.BodyLimit`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Final

from starlette.responses import Response

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["CONSOLE_HEADERS", "CONTENT_SECURITY_POLICY", "add_console"]

#: What the console's files may load and do: only this origin's script, style and requests.
CONTENT_SECURITY_POLICY: Final = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",  # the forms are handled by the script; none may navigate
        "frame-ancestors 'none'",
    )
)

#: Sent with each of the console's files (the app adds nosniff, no-referrer and no-store).
CONSOLE_HEADERS: Final = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",  # frame-ancestors, for browsers that predate it
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
}

#: The files served, by their path under ``/console/``, with their media types.
_ASSETS: Final = {
    "console.js": "text/javascript; charset=utf-8",
    "console.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
}


@cache
def _read(name: str) -> bytes:
    """One of the console's files, read once from the installed package."""
    return files(__name__).joinpath(name).read_bytes()


def _file(name: str, media_type: str) -> Response:
    return Response(_read(name), media_type=media_type, headers=CONSOLE_HEADERS)


def add_console(app: FastAPI) -> None:
    """Serve the console on ``app``: the page at ``/``, its script, style and icon.

    None of them needs the token (they hold no data) and none is in the OpenAPI schema.

    Args:
        app: The API's application (`nucleo_core.server.create_app`).
    """

    @app.get("/", include_in_schema=False)
    def console_page() -> Response:
        return _file("index.html", "text/html; charset=utf-8")

    # One route per file, named in full: no path from the request ever reaches the disk.
    for name, media_type in _ASSETS.items():
        app.add_api_route(
            f"/console/{name}",
            _asset(name, media_type),
            methods=["GET"],
            include_in_schema=False,
            name=f"console_{name}",
        )


def _asset(name: str, media_type: str) -> Callable[[], Response]:
    """A route answering one file; it takes no parameter, so a request chooses nothing."""

    def asset() -> Response:
        return _file(name, media_type)

    return asset
