"""Sampling: an MCP server asking the client's model for a completion, served by a *sampler*.

nucleo declares the ``sampling`` capability (a server that needs it would otherwise hide tools)
but serves a request only for a server whose configuration enables it::

    [tool.nucleo.mcp.servers.writer]
    command = "writer-mcp"
    sampling = { model = "fast", max_tokens = 512 }

``model`` is a grade of the model catalog (``fast``, ``standard``, ``strong``) or a catalog
entry id (``anthropic:claude-haiku-4-5``); ``max_tokens`` caps what one request may ask for.
Every other server's request is refused with an error saying so. Each request, served or
refused, is logged on ``nucleo.mcp`` (and recorded in the audit log when the pool has one).

The sampler is the seam: `MCPClientPool` (and `MCPServers`) take ``sampler=``, a callable
(plain or ``async``) from a `SamplingRequest` to a `SamplingResult`; by default a
`CatalogSampler` on the project's model catalog. Only text is sampled: a request carrying an
image, audio or tools is refused.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from nucleo_core._answering import answer_of
from nucleo_core._table_keys import reject_unknown_keys
from nucleo_core.mcp.errors import MCPConfigError

if TYPE_CHECKING:
    from nucleo_core.models.catalog import ModelCatalog

__all__ = [
    "CatalogSampler",
    "Sampler",
    "SamplingMessage",
    "SamplingRefused",
    "SamplingRequest",
    "SamplingResult",
    "SamplingSettings",
    "sample",
]

logger = logging.getLogger("nucleo.mcp")

#: What a request may ask for at most when the configuration sets no ``max_tokens``.
DEFAULT_MAX_TOKENS = 1024
_SETTINGS_KEYS = ("model", "max_tokens")


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplingSettings:
    """A server's ``sampling`` table: which model serves its requests, and how much.

    Attributes:
        model: A grade of the model catalog (``fast``, ``standard``, ``strong``) or an entry
            id (``anthropic:claude-haiku-4-5``).
        max_tokens: The most tokens one request may ask for; a request asking for more gets
            this many.
    """

    model: str = "fast"
    max_tokens: int = DEFAULT_MAX_TOKENS

    @classmethod
    def from_value(cls, value: object, where: str) -> SamplingSettings | None:
        """Read a ``sampling`` value: ``false`` (off), ``true`` (the defaults), or a table.

        Raises:
            MCPConfigError: The value is malformed; the message names ``where`` and the key.
        """
        if value is None or value is False:
            return None
        if isinstance(value, SamplingSettings):
            return value
        if value is True:
            return cls()
        if not isinstance(value, Mapping):
            raise MCPConfigError(
                f'{where}: sampling must be true, false, or a table such as {{ model = "fast", '
                "max_tokens = 512 }"
            )
        reject_unknown_keys(value, _SETTINGS_KEYS, where, MCPConfigError, inside="sampling")
        model = value.get("model", "fast")
        if not isinstance(model, str) or not model:
            raise MCPConfigError(
                f"{where}: sampling.model must be a grade (fast, standard, strong) or a model "
                "catalog entry id"
            )
        tokens = value.get("max_tokens", DEFAULT_MAX_TOKENS)
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
            raise MCPConfigError(f"{where}: sampling.max_tokens must be a positive integer")
        return cls(model=model, max_tokens=tokens)


@dataclass(frozen=True, slots=True)
class SamplingMessage:
    """One message of the conversation a server asks to be continued (text only)."""

    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplingRequest:
    """What a server asks the model for, as nucleo serves it.

    Attributes:
        server: The id of the server that asks.
        settings: The server's configured `SamplingSettings`.
        messages: The conversation to continue, oldest first.
        system: The system prompt the server asks for (``""`` for none).
        max_tokens: The answer budget: the server's, capped by ``settings.max_tokens``.
        temperature: The temperature the server asks for, if any.
        stop_sequences: Strings that end the answer early.
    """

    server: str
    settings: SamplingSettings
    messages: tuple[SamplingMessage, ...]
    system: str = ""
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplingResult:
    """The model's answer, sent back to the server.

    Attributes:
        text: The answer's text.
        model: The model that answered (its catalog entry id, say).
        stop_reason: ``endTurn``, ``maxTokens``, ``stopSequence``, or the provider's own.
    """

    text: str
    model: str
    stop_reason: str = "endTurn"


class SamplingRefused(Exception):
    """A sampling request that is not served; the message is sent to the server."""


#: Serves one `SamplingRequest`; may be ``async``. Raising `SamplingRefused` refuses it.
Sampler: TypeAlias = Callable[[SamplingRequest], "SamplingResult | Awaitable[SamplingResult]"]

_STOP_REASONS = {"end_turn": "endTurn", "max_tokens": "maxTokens", "stop_sequence": "stopSequence"}


class CatalogSampler:
    """The default sampler: the model catalog's entry for the server's ``sampling.model``.

    Each request is served by a client of its own, closed once it answered: the sampler
    never shares (nor closes) the clients ``catalog`` gives its thinkers.

    Args:
        catalog: The model catalog (its entries and grades are copied); the project's
            (`ModelCatalog.discover`) when omitted, read at the first request.
    """

    def __init__(self, catalog: ModelCatalog | None = None) -> None:
        self._source = catalog

    async def __call__(self, request: SamplingRequest) -> SamplingResult:
        """Ask the configured model; its failure is a `SamplingRefused` naming the entry."""
        from nucleo_core.errors import ModelNotConfigured
        from nucleo_core.models.catalog import ModelCatalog
        from nucleo_core.models.messages import Message, TextBlock
        from nucleo_core.models.request import ModelRequest

        source = self._source if self._source is not None else ModelCatalog.discover()
        self._source = source
        # A catalog of its own: closing its clients afterwards closes no thinker's.
        catalog = ModelCatalog(source.entries.values(), grades=source.grades)
        wanted = request.settings.model
        try:
            entry_id = catalog.grades.get(wanted, wanted)
            entry = catalog.entry(entry_id)
            client = catalog.client_for(entry)
        except ModelNotConfigured as exc:
            raise SamplingRefused(
                f"the model configured to serve sampling ({wanted!r}) is not available: {exc}"
            ) from exc
        model_request = ModelRequest(
            model=entry.model,
            system=request.system,
            messages=tuple(
                Message(role=message.role, content=(TextBlock(text=message.text),))
                for message in request.messages
            ),
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            stop_sequences=request.stop_sequences,
        )
        try:
            response = await client.complete(model_request)
        except Exception as exc:
            logger.warning(
                "sampling for MCP server '%s' on %s failed: %s", request.server, entry.id, exc
            )
            raise SamplingRefused(f"the model ({entry.id}) failed to answer") from exc
        finally:
            await catalog.aclose()
        stop = str(response.stop_reason.value)
        return SamplingResult(
            text=response.text, model=entry.id, stop_reason=_STOP_REASONS.get(stop, stop)
        )


async def sample(sampler: Sampler, request: SamplingRequest) -> SamplingResult:
    """Ask ``sampler``; anything but a `SamplingResult` is a `SamplingRefused`.

    Raises:
        SamplingRefused: The sampler refused, failed, or answered something unusable.
    """
    try:
        answer: Any = await answer_of(sampler, request)
    except SamplingRefused:
        raise
    except Exception as exc:
        logger.exception("the sampler failed on a request of MCP server '%s'", request.server)
        raise SamplingRefused("the client's sampler failed with an internal error") from exc
    if not isinstance(answer, SamplingResult):
        logger.error(
            "the sampler answered a %s to MCP server '%s' (a SamplingResult is expected)",
            type(answer).__name__,
            request.server,
        )
        raise SamplingRefused("the client's sampler failed with an internal error")
    return answer
