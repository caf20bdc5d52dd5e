"""Every error the API answers is an `ErrorBody` with a stable ``error`` code.

An unexpected exception is logged (``nucleo.server``) with a reference, and the client reads
only that reference: never a stack trace, never the exception's message.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from nucleo_core.server.errors import ApiError
from nucleo_core.server.models import ErrorBody

__all__ = ["handle_errors"]

logger = logging.getLogger("nucleo.server")


def handle_errors(app: FastAPI) -> None:
    """Answer every error as an `ErrorBody`; never a stack trace."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        headers = {"www-authenticate": "Bearer"} if exc.status == 401 else None
        body = ErrorBody(error=exc.code, message=exc.message, problems=list(exc.problems))
        return JSONResponse(body.model_dump(), status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [_problem(error) for error in exc.errors()]
        body = ErrorBody(
            error="invalid_input",
            message="the request does not fit: " + "; ".join(problems),
            problems=problems,
        )
        return JSONResponse(body.model_dump(), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        codes = {
            404: ("not_found", "no such endpoint; GET /api/openapi.json lists them"),
            405: ("method_not_allowed", "this endpoint does not take that method"),
            413: ("request_too_large", str(exc.detail)),
        }
        code, message = codes.get(
            exc.status_code, ("bad_request", "the request body is not JSON in UTF-8")
        )
        body = ErrorBody(error=code, message=message)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names the methods of the first route of the path; there may be more.
            headers["allow"] = ", ".join(_allowed_methods(app, request))
        return JSONResponse(body.model_dump(), status_code=exc.status_code, headers=headers)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        reference = uuid.uuid4().hex[:12]
        logger.error(
            "internal error %s answering %s %s",
            reference,
            request.method,
            request.url.path,
            exc_info=(type(exc), exc, exc.__traceback__),
        )
        body = ErrorBody(
            error="internal_error",
            message=f"an internal error occurred (reference {reference}); the server's log "
            "has the details",
        )
        return JSONResponse(body.model_dump(), status_code=500)


def _allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """The methods of the path template the request's path is routed to."""
    from starlette.routing import Match, Route

    routes = [route for route in app.router.routes if isinstance(route, Route)]
    template = next(
        (
            route.path
            for route in routes
            if route.matches({**request.scope, "method": "GET"})[0] is not Match.NONE
        ),
        None,
    )
    methods: set[str] = set()
    for route in routes:
        if route.path == template and route.methods:
            methods.update(route.methods)
    methods.discard("HEAD")
    return sorted(methods)


def _problem(error: Any) -> str:
    """One validation problem: where, and what was expected; never the value sent."""
    location = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    return f"{location or 'body'}: {error.get('msg', 'is not valid')}"
