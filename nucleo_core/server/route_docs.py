"""What the routes of several tags say of themselves in the OpenAPI schema.

The longest text a query or path parameter takes, the description of a tool filter the tools'
and the audit's routes share, and the documented error answers (`errors`).
"""

from __future__ import annotations

from typing import Any

from nucleo_core.server.models import ErrorBody

__all__ = ["TEXT", "TOOL", "errors"]

#: The longest text a query or path parameter takes.
TEXT = 2000
TOOL = "A tool's name, or a glob matched against names and source ids (send_*, mcp:*)."


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The documented answers of these error statuses, each an `ErrorBody`."""
    described = {
        400: "The body is not JSON (or not UTF-8).",
        401: "The token is missing or wrong.",
        403: "The permission guard denied the call.",
        404: "No such tool, approval or execution.",
        409: "The approval was decided already, or expired.",
        413: "The request body is too large.",
        422: "The request does not fit: each problem named, never the value sent.",
    }
    return {status: {"model": ErrorBody, "description": described[status]} for status in statuses}
