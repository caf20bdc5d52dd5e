"""`create_app`: the FastAPI application serving one `ApiService`.

FastAPI, because its OpenAPI schema is generated from the very pydantic models the routes
validate with and answer (pydantic is already nucleo's), so the published schema cannot drift
from what the server does; it runs on Starlette and uvicorn, both well kept. No global app:
each call builds one, so tests and embedders make their own.

Every error is answered as an `ErrorBody` with a stable ``error`` code; an unexpected
exception is logged (``nucleo.server``) with a reference, and the client reads only that
reference: never a stack trace, never the exception's message.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from nucleo_core.server.approval_routes import add_approval_routes
from nucleo_core.server.audit_routes import add_audit_routes
from nucleo_core.server.console import add_console
from nucleo_core.server.error_handlers import handle_errors
from nucleo_core.server.identity import Identity
from nucleo_core.server.models import Health
from nucleo_core.server.security import BodyLimit
from nucleo_core.server.settler import settling
from nucleo_core.server.tool_routes import add_tool_routes

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from nucleo_core.server.service import ApiService

__all__ = ["create_app"]


def create_app(service: ApiService) -> FastAPI:
    """The API over ``service``.

    Args:
        service: What is served (`ApiService.build`).
    """
    from nucleo_core._version import __version__

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        del app
        async with settling(service.executions, service.settings.settle_seconds):
            yield

    app = FastAPI(
        lifespan=lifespan,
        title="nucleo",
        summary="The tools a nucleo process has, their approvals and its audit record.",
        version=__version__,
        openapi_url=None,  # served below, behind the token
        docs_url=None,  # the interactive pages load scripts from a CDN: not here
        redoc_url=None,
        redirect_slashes=False,
        # Operation ids are the route functions' names: stable, and readable in clients.
        generate_unique_id_function=lambda route: route.name,
    )
    app.add_middleware(BodyLimit, limit=service.settings.max_body_bytes)
    handle_errors(app)
    add_console(app)  # the web console at /: a static page, needing no token to load
    app.state.nucleo = service

    @app.get("/api/health", tags=["health"])
    def health() -> Health:
        """Whether the server answers (no token needed)."""
        return Health(version=__version__)

    @app.get("/api/openapi.json", include_in_schema=False)
    def openapi(who: Identity) -> JSONResponse:
        del who
        return JSONResponse(app.openapi())

    # In this order: the paths of the schema, and the routes a request is matched against.
    add_tool_routes(app, service)
    add_approval_routes(app, service)
    add_audit_routes(app, service)
    return app
