"""`AnthropicClient`: the `ModelClient` adapter for Anthropic's Messages API.

The adapter speaks through the official ``anthropic`` SDK (``AsyncAnthropic``), imported only
when a client is constructed, so ``import nucleo_core`` never pays for it and a process that
never talks to Anthropic does not need it installed.

What the adapter adds on top of the SDK:

- **Prompt-cache breakpoints.** The system text is sent as one text block marked
  ``cache_control: {"type": "ephemeral"}``, and the last tool definition carries the same
  marker, so the tool list (the stable front of every prompt, see DESIGN.md) and the system
  text are paid for once per conversation, not once per turn.
- **The neutral vocabulary both ways.** Requests are built from `ModelRequest`; replies become
  `ModelResponse`, with the stop reason and usage in neutral terms.
- **Deferred tools.** A spec marked ``deferred`` (`nucleo_core.hub.search_tool.DeferredToolSpec`,
  the ``provider`` offer of a large catalog) is sent with ``defer_loading: true``, after
  Anthropic's BM25 tool search tool (`TOOL_SEARCH_TOOL`): the model searches the deferred
  tools itself, and their definitions stay out of the cached prompt prefix. The search's own
  reply blocks (``server_tool_use``, ``tool_search_tool_result``, which name the tools it
  loaded) are kept as `ProviderBlock`s and sent back verbatim on the next request, so the
  tools stay loaded for the rest of the conversation.
- **One error hierarchy.** Every SDK or transport exception becomes one of
  `nucleo_core.errors`' ``Model*`` errors, chained with ``from``; the reply the SDK handed
  back is checked field by field (the SDK builds replies leniently and does not validate them),
  so a reply missing what a conversation needs is `ModelResponseMalformed`, not an
  ``AttributeError`` three layers up.
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Final, final

from nucleo_core._closing import AsyncClosesOnExit
from nucleo_core._extras import missing_sdk
from nucleo_core.errors import ModelNotConfigured, ModelResponseMalformed
from nucleo_core.models._anthropic_errors import malformed, translatable, translate
from nucleo_core.models._anthropic_names import API_KEY_ENV, PROVIDER
from nucleo_core.models._anthropic_reply import parse_reply, to_response
from nucleo_core.models._anthropic_request import TOOL_SEARCH_TOOL, to_wire
from nucleo_core.models._retry import RetriedAttempts, logger_for
from nucleo_core.models.client import ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.request import ModelRequest, ModelResponse

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["API_KEY_ENV", "TOOL_SEARCH_TOOL", "AnthropicClient"]

_LOGGER = logger_for(PROVIDER)


@final
class AnthropicClient(RetriedAttempts, AsyncClosesOnExit):
    """A `ModelClient` for Anthropic's Messages API, through the official ``anthropic`` SDK.

    The client owns one ``AsyncAnthropic`` (and its connection pool): close it with
    `aclose`, or use it as an ``async with`` block.

    Example:
        ```python
        async with AnthropicClient() as client:
            response = await client.complete(
                ModelRequest(model="claude-sonnet-4-5", messages=(Message.user("Hi"),))
            )
        ```
    """

    #: Sends deferred tools (``defer_loading``) for Anthropic's tool search: a thinker whose
    #: catalog is offered ``"provider"`` defers it through this client.
    defers_tools: Final = True

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float | None = 600.0,
        default_headers: Mapping[str, str] | None = None,
    ) -> None:
        """Build the client.

        Args:
            api_key: The Anthropic API key; defaults to the ``ANTHROPIC_API_KEY`` environment
                variable.
            base_url: The API's base URL; defaults to the SDK's (``ANTHROPIC_BASE_URL``, else
                Anthropic's public endpoint).
            max_retries: How many times a request that failed in a retryable way (connection
                errors, timeouts, 408, 409, 429, 5xx) is sent again before the error is
                raised; nucleo retries, not the SDK, and logs each retry on
                ``nucleo.models.anthropic``.
            timeout: Seconds one attempt may take (``None``: the SDK's default, 600 s).
            default_headers: Extra headers sent with every request.

        Raises:
            ModelNotConfigured: The ``anthropic`` SDK is not installed, or no API key was
                passed and ``ANTHROPIC_API_KEY`` is not set.
        """
        try:
            import anthropic
        except ImportError as exc:
            raise ModelNotConfigured(missing_sdk("anthropic")) from exc
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        if not key:
            raise ModelNotConfigured(
                f"No Anthropic API key: set the {API_KEY_ENV} environment variable "
                "(or pass api_key= to AnthropicClient)"
            )
        self._client: AsyncAnthropic = anthropic.AsyncAnthropic(
            api_key=key,
            base_url=base_url,
            max_retries=0,  # retried here, each retry logged (`_retry`)
            timeout=600.0 if timeout is None else timeout,
            default_headers=default_headers,
        )
        self._retries = max_retries
        self._logger = _LOGGER

    def __repr__(self) -> str:
        # Never the key: only where the client points.
        return f"AnthropicClient(base_url={str(self._client.base_url)!r})"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request and return the whole response.

        Args:
            request: What to send.

        Returns:
            The model's answer in neutral terms.

        Raises:
            ModelRateLimited: HTTP 429; ``retry_after`` holds the provider's delay, if it gave one.
            ModelServerError: HTTP 5xx, or the API reported itself overloaded (529).
            ModelConnectionError: The API could not be reached, or did not answer in time.
            ModelRequestRejected: Another 4xx: a bad key, a bad request, an unknown model.
            ModelResponseMalformed: The reply could not be read as a Messages API answer.
        """
        return await self._completed(request)

    async def _complete_once(self, request: ModelRequest) -> ModelResponse:
        wire = to_wire(request)
        try:
            # The raw response, so that a body nesting too deep for the SDK's JSON decoding can
            # still be read here (`parse_reply`).
            raw = await self._client.messages.with_raw_response.create(**wire)
            reply = await parse_reply(raw)
        except translatable() as exc:
            raise translate(exc) from exc
        return to_response(reply)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send one request; yield `TextDelta`s as text arrives, then one `ResponseComplete`.

        Close the iterator (``contextlib.aclosing``) when leaving it before the end, so the
        connection is released at once rather than when it is garbage-collected.

        Args:
            request: What to send.

        Yields:
            A `TextDelta` per piece of answer text, then a `ResponseComplete` holding the same
            `ModelResponse` that `complete` would have returned (tool uses included).

        Raises:
            ModelRateLimited: See `complete`; an error may also arrive mid-stream.
            ModelServerError: See `complete`; includes an ``overloaded_error`` event mid-stream.
            ModelConnectionError: See `complete`.
            ModelRequestRejected: See `complete`.
            ModelResponseMalformed: The stream was not the Messages API's event stream, or
                ended before ``message_stop``.
        """
        async with aclosing(self._streamed(request)) as events:
            async for event in events:
                yield event

    async def _stream_once(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        wire = to_wire(request)
        manager = self._client.messages.stream(**wire)
        started = stopped = False
        try:
            async with manager as events:
                async for event in events:
                    if event.type == "message_start":
                        started = True
                    elif event.type == "message_stop":
                        stopped = True
                    elif event.type == "text" and event.text:
                        yield TextDelta(event.text)
                if not started:
                    raise ModelResponseMalformed(
                        "Anthropic's stream held no message_start event; "
                        "the reply is not a Messages API event stream",
                        provider=PROVIDER,
                    )
                if not stopped:
                    raise ModelResponseMalformed(
                        "Anthropic's stream ended before its message_stop event",
                        provider=PROVIDER,
                    )
                final_message = await events.get_final_message()
        except translatable() as exc:
            raise translate(exc) from exc
        except RecursionError as exc:
            # An event nesting too deep for the SDK's JSON decoding: the stream cannot be read
            # on, but the error is still nucleo's.
            raise malformed("an event of the stream nests its JSON too deeply") from exc
        yield ResponseComplete(to_response(final_message))

    async def aclose(self) -> None:
        """Release the client's connections."""
        await self._client.close()
