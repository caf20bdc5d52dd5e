"""`Identity`: the route parameter that requires the API token and gives its identity."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from nucleo_core.server.security import bearer_identity

if TYPE_CHECKING:
    from nucleo_core.server.service import ApiService

__all__ = ["Identity"]

_BEARER = HTTPBearer(
    auto_error=False,
    description="The API token: $NUCLEO_API_TOKEN, or the file .nucleo/api-token.",
)


def _identity(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)],
) -> str:
    """The identity of the request's token (the dependency of every endpoint but health)."""
    del credentials  # declared for the schema; the header is read as it was sent
    service: ApiService = request.app.state.nucleo
    return bearer_identity(service.token, request.headers.get("authorization"))


#: A route parameter that requires the token and gives its identity.
Identity = Annotated[str, Depends(_identity)]
