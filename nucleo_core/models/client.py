"""`ModelClient`: the small async protocol every model adapter implements."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable

from nucleo_core.models.request import ModelRequest, ModelResponse

__all__ = ["ModelClient", "ResponseComplete", "StreamEvent", "TextDelta"]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of answer text, as it streams."""

    text: str


@dataclass(frozen=True, slots=True)
class ResponseComplete:
    """The end of a stream: the whole response, as `ModelClient.complete` would return it."""

    response: ModelResponse


StreamEvent: TypeAlias = TextDelta | ResponseComplete


@runtime_checkable
class ModelClient(Protocol):
    """One model provider's endpoint, in neutral terms.

    Adapters raise the typed errors of `nucleo_core.errors` (``ModelRateLimited``,
    ``ModelServerError``, ``ModelResponseMalformed``, ...) and never a provider SDK's own.
    """

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request and return the whole response."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send one request; yield text deltas as they arrive, then one `ResponseComplete`."""
        ...

    async def aclose(self) -> None:
        """Release the client's connections."""
        ...
