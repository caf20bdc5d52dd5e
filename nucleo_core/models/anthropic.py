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

import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Final, NamedTuple, cast, final

from nucleo_core._extras import missing_sdk
from nucleo_core.errors import (
    ModelConnectionError,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    ModelRequestRejected,
    ModelResponseMalformed,
    ModelServerError,
)
from nucleo_core.models._aclosing import AsyncClosesOnExit
from nucleo_core.models._block_data import tool_result_data
from nucleo_core.models._json_depth import MAX_JSON_DEPTH, exceeds, loads, loads_cut, tool_input
from nucleo_core.models._retry import logger_for, retried, retried_stream
from nucleo_core.models._retry_after import retry_after as read_retry_after
from nucleo_core.models.client import ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    ProviderBlock,
    ReasoningBlock,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.tools.render import to_anthropic

if TYPE_CHECKING:
    import httpx2
    from anthropic import APIStatusError, AsyncAnthropic, AsyncAPIResponse, Omit
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        TextBlockParam,
        ToolChoiceParam,
        ToolParam,
    )
    from anthropic.types import Message as WireMessage

__all__ = ["API_KEY_ENV", "TOOL_SEARCH_TOOL", "AnthropicClient"]

#: The environment variable the API key is read from when none is passed.
API_KEY_ENV: Final = "ANTHROPIC_API_KEY"

_PROVIDER: Final = "anthropic"

#: The server tool sent ahead of deferred tools: Anthropic's BM25 tool search (2025-11-19).
TOOL_SEARCH_TOOL: Final[Mapping[str, str]] = {
    "type": "tool_search_tool_bm25_20251119",
    "name": "tool_search_tool_bm25",
}
_LOGGER = logger_for(_PROVIDER)

_STOP_REASONS: Final[Mapping[str, StopReason]] = {
    "end_turn": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
}

# In-stream ``error`` events arrive on a 200 response; their ``error.type`` says who is at fault.
_CLIENT_ERROR_TYPES: Final = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "billing_error",
        "permission_error",
        "not_found_error",
    }
)

_log = logging.getLogger(__name__)

#: How deep a Messages API body nests above a tool use's input (message, content list, block):
#: a body is cut past the depth limit plus these levels, so every input keeps its own limit.
_BODY_LEVELS: Final = 3


class _WireRequest(NamedTuple):
    """The pieces of one Messages API call, typed as the SDK expects them."""

    model: str
    max_tokens: int
    messages: list[MessageParam]
    system: list[TextBlockParam] | Omit
    tools: list[ToolParam] | Omit
    tool_choice: ToolChoiceParam | Omit
    stop_sequences: list[str] | Omit
    extra_body: dict[str, object] | None


@final
class AnthropicClient(AsyncClosesOnExit):
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
        return await retried(
            lambda: self._complete_once(request), retries=self._retries, logger=_LOGGER
        )

    async def _complete_once(self, request: ModelRequest) -> ModelResponse:
        wire = _to_wire(request)
        try:
            # The raw response, so that a body nesting too deep for the SDK's JSON decoding can
            # still be read here (`_parse_reply`).
            raw = await self._client.messages.with_raw_response.create(
                model=wire.model,
                max_tokens=wire.max_tokens,
                messages=wire.messages,
                system=wire.system,
                tools=wire.tools,
                tool_choice=wire.tool_choice,
                stop_sequences=wire.stop_sequences,
                extra_body=wire.extra_body,
            )
            reply = await _parse_reply(raw)
        except _translatable() as exc:
            raise _translate(exc) from exc
        return _to_response(reply)

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
        async with aclosing(
            retried_stream(
                lambda: self._stream_once(request), retries=self._retries, logger=_LOGGER
            )
        ) as events:
            async for event in events:
                yield event

    async def _stream_once(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        wire = _to_wire(request)
        manager = self._client.messages.stream(
            model=wire.model,
            max_tokens=wire.max_tokens,
            messages=wire.messages,
            system=wire.system,
            tools=wire.tools,
            tool_choice=wire.tool_choice,
            stop_sequences=wire.stop_sequences,
            extra_body=wire.extra_body,
        )
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
                        provider=_PROVIDER,
                    )
                if not stopped:
                    raise ModelResponseMalformed(
                        "Anthropic's stream ended before its message_stop event",
                        provider=_PROVIDER,
                    )
                final_message = await events.get_final_message()
        except _translatable() as exc:
            raise _translate(exc) from exc
        except RecursionError as exc:
            # An event nesting too deep for the SDK's JSON decoding: the stream cannot be read
            # on, but the error is still nucleo's.
            raise _malformed("an event of the stream nests its JSON too deeply") from exc
        yield ResponseComplete(_to_response(final_message))

    async def aclose(self) -> None:
        """Release the client's connections."""
        await self._client.close()


# --- request ---------------------------------------------------------------------------------


def _to_wire(request: ModelRequest) -> _WireRequest:
    """Build the Messages API call for ``request``."""
    from anthropic import omit

    system: list[TextBlockParam] | Omit = omit
    if request.system:
        # A cache breakpoint after the system text: it is the same on every turn.
        system = [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}]

    tools: list[ToolParam] | Omit = omit
    tool_choice: ToolChoiceParam | Omit = omit
    if request.tools:
        rendered = _rendered_tools(request)
        tools = cast("list[ToolParam]", rendered)
        tool_choice = _tool_choice(request.tool_choice)

    return _WireRequest(
        model=request.model,
        max_tokens=request.max_tokens,
        messages=[_message(message) for message in request.messages],
        system=system,
        tools=tools,
        tool_choice=tool_choice,
        stop_sequences=list(request.stop_sequences) if request.stop_sequences else omit,
        # The SDK's create() has no `temperature` parameter; the API still reads the field.
        extra_body={"temperature": request.temperature}
        if request.temperature is not None
        else None,
    )


def _rendered_tools(request: ModelRequest) -> list[dict[str, object]]:
    """The ``tools`` list: the loaded tools, then (if any) the tool search and deferred ones.

    A cache breakpoint after the last loaded definition caches the whole (stable,
    append-only) loaded list; deferred definitions are outside the cached prefix (Anthropic
    appends a discovered one to the conversation), so widening the deferred catalog changes
    nothing before the breakpoint. Dicts are copied: the schema inside is shared with the spec.
    """
    loaded = [spec for spec in request.tools if not getattr(spec, "deferred", False)]
    deferred = [spec for spec in request.tools if getattr(spec, "deferred", False)]
    rendered: list[dict[str, object]] = list(to_anthropic(loaded))
    if deferred:
        rendered.append(dict(TOOL_SEARCH_TOOL))
    if rendered:
        rendered[-1] = {**rendered[-1], "cache_control": {"type": "ephemeral"}}
    rendered += [{**entry, "defer_loading": True} for entry in to_anthropic(deferred)]
    return rendered


def _tool_choice(choice: str) -> ToolChoiceParam:
    """The Messages API ``tool_choice`` for a neutral `ToolChoice`."""
    if choice == "auto":
        return {"type": "auto"}
    if choice == "any":
        return {"type": "any"}
    if choice == "none":
        return {"type": "none"}
    return {"type": "tool", "name": choice}


def _message(message: Message) -> MessageParam:
    """One neutral turn as a Messages API message."""
    content: list[ContentBlockParam] = []
    for block in message.content:
        param = _block(block)
        if param is not None:
            content.append(param)
    if message.role == "user":
        return {"role": "user", "content": content}
    return {"role": "assistant", "content": content}


def _block(block: ContentBlock) -> ContentBlockParam | None:
    """One neutral block as a Messages API content block, or ``None`` when it cannot be sent."""
    if isinstance(block, TextBlock):
        # The API refuses empty text blocks (400 "text content blocks must be non-empty").
        if not block.text:
            return None
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": _input(block)}
    if isinstance(block, ToolResultBlock):
        return cast("ContentBlockParam", tool_result_data(block))
    if isinstance(block, ProviderBlock):
        # Anthropic's own server-tool blocks go back as they came; another provider's mean
        # nothing here.
        if block.provider != _PROVIDER:
            return None
        return cast("ContentBlockParam", dict(block.data))
    if block.redacted:
        if block.data is None:
            return None
        return {"type": "redacted_thinking", "data": block.data}
    # Anthropic verifies thinking by its signature and refuses unsigned thinking, so reasoning
    # without one (another provider's, or a hand-built turn) is left out rather than sent.
    if block.signature is None:
        return None
    return {"type": "thinking", "thinking": block.text, "signature": block.signature}


def _input(block: ToolUseBlock) -> dict[str, object]:
    """A tool use's input as the JSON object the API requires.

    Anthropic itself always sends an object; a string input comes from another provider
    (OpenAI-compatible servers send arguments as text), or is the kept form of input that was
    not an object or nested too deep. Text that decodes to a JSON object is sent decoded; any
    other text, and an object nested deeper than `MAX_JSON_DEPTH`, is sent as ``{}``: the
    conversation stays valid (and encodable), and the turn's ``tool_result`` already told the
    model its input was unusable.
    """
    if not isinstance(block.input, str):
        return {} if exceeds(block.input) else dict(block.input)
    try:
        decoded = loads(block.input)
    except ValueError:  # JSONTooDeep included
        return {}
    return cast("dict[str, object]", decoded) if isinstance(decoded, dict) else {}


# --- response --------------------------------------------------------------------------------


def _malformed(problem: str) -> ModelResponseMalformed:
    return ModelResponseMalformed(
        f"Anthropic's reply could not be read: {problem}", provider=_PROVIDER
    )


async def _parse_reply(raw: AsyncAPIResponse[WireMessage]) -> object:
    """The reply the SDK parses from ``raw``; read here when its JSON nests too deep for it.

    A body nesting deeper than Python's JSON decoding can recurse (a tool input 10,000 levels
    deep) makes the SDK raise ``RecursionError``. The body is then decoded with every
    container past the depth limit replaced by a marker, so the rest of the reply — the other
    tool uses, the text — is read as usual, and the too-deep input becomes its cut form for
    the response handler to refuse (`tool_input`).
    """
    from anthropic.types import Message as WireMessage

    try:
        return await raw.parse()
    except RecursionError:
        data = loads_cut(await raw.text(), MAX_JSON_DEPTH + _BODY_LEVELS)
    if not isinstance(data, dict):
        raise _malformed(f"expected a message object, got {type(data).__name__}")
    return WireMessage.construct(**data)


def _to_response(reply: object) -> ModelResponse:
    """Read a Messages API reply (as the SDK built it, unvalidated) into a `ModelResponse`.

    Raises:
        ModelResponseMalformed: The reply lacks a field a conversation needs, or holds one of
            the wrong type.
    """
    from anthropic.types import Message as WireMessage

    # The SDK hands back the body's text or list as they are when it is not a JSON object.
    if not isinstance(reply, WireMessage):
        raise _malformed(f"expected a message object, got {type(reply).__name__}")
    blocks = getattr(reply, "content", None)
    if not isinstance(blocks, list):
        raise _malformed("the message has no 'content' list")
    raw_stop = getattr(reply, "stop_reason", None)
    if not isinstance(raw_stop, str):
        raise _malformed("the message has no 'stop_reason'")
    content: list[ContentBlock] = []
    for index, item in enumerate(blocks):
        block = _content(item, index)
        if block is not None:
            content.append(block)
    model = getattr(reply, "model", None)
    return ModelResponse(
        content=tuple(content),
        stop_reason=_STOP_REASONS.get(raw_stop, StopReason.OTHER),
        usage=_usage(getattr(reply, "usage", None)),
        model=model if isinstance(model, str) else "",
        raw_stop_reason=raw_stop,
    )


def _content(item: object, index: int) -> ContentBlock | None:
    """One reply content block in neutral terms; ``None`` for a kind nucleo does not use."""
    kind = getattr(item, "type", None)
    if kind == "text":
        return TextBlock(text=_string(item, "text", index))
    if kind == "tool_use":
        # A name that is not a string (null, a number) and input that is not an object or
        # nests too deep are the model's mistakes about one call, not a broken reply: they are
        # kept ("" for the name, the input's bounded text form) for the response handler to
        # refuse that call correctably while the rest of the answer goes on.
        name = getattr(item, "name", None)
        return ToolUseBlock(
            id=_string(item, "id", index),
            name=name if isinstance(name, str) else "",
            input=tool_input(getattr(item, "input", None)),
        )
    if kind == "thinking":
        return ReasoningBlock(
            text=_string(item, "thinking", index), signature=_string(item, "signature", index)
        )
    if kind == "redacted_thinking":
        return ReasoningBlock(text="", redacted=True, data=_string(item, "data", index))
    if not isinstance(kind, str):
        raise _malformed(f"content[{index}] has no 'type'")
    if kind == "server_tool_use" or kind.endswith("_tool_result"):
        # A server tool's call and result (the tool search's, above all): Anthropic ran it;
        # kept to be sent back, since its result is what keeps the tools it found loaded.
        return ProviderBlock(provider=_PROVIDER, data=_server_block(item, index))
    # Kinds newer than this adapter: nucleo never asks for them.
    _log.warning("Anthropic reply block content[%d] of type %r was left out", index, kind)
    return None


def _server_block(item: object, index: int) -> dict[str, object]:
    """A server-tool block as the JSON object it came as (to be sent back unchanged)."""
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)  # the SDK's block model (extra fields kept)
    data = dump(mode="json", exclude_none=True) if callable(dump) else None
    if not isinstance(data, dict):
        raise _malformed(f"content[{index}] is not an object")
    return cast("dict[str, object]", data)


def _string(item: object, field: str, index: int) -> str:
    value = getattr(item, field, None)
    if not isinstance(value, str):
        kind = getattr(item, "type", "?")
        raise _malformed(f"content[{index}] ({kind}) has no string '{field}'")
    return value


def _usage(usage: object) -> Usage:
    """The reply's token counts; zeros when the reply carries no usage at all.

    Some Anthropic-compatible servers omit ``usage``; a count that is present must be an integer.
    """
    if usage is None:
        return Usage()

    def count(field: str) -> int:
        value = getattr(usage, field, None)
        if value is None:
            return 0
        if not isinstance(value, int) or isinstance(value, bool):
            raise _malformed(f"usage.{field} is not an integer")
        return value

    cache_read, cache_write = count("cache_read_input_tokens"), count("cache_creation_input_tokens")
    # Anthropic's input_tokens excludes cached tokens; the neutral count includes them (as
    # OpenAI's prompt_tokens does), so one figure means the same for every provider.
    return Usage(
        input_tokens=count("input_tokens") + cache_read + cache_write,
        output_tokens=count("output_tokens"),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )


# --- errors ----------------------------------------------------------------------------------


def _translatable() -> tuple[type[Exception], ...]:
    """The exceptions an SDK call can raise that `_translate` turns into nucleo's.

    Beside the SDK's own errors: the SDK lets a JSON decoding error of the body out as a raw
    ``ValueError``, a transport failure while a stream is read as a raw ``httpx2`` error, and
    a stream with events out of order as ``LookupError``/``AttributeError``/``TypeError``
    from its accumulator.
    """
    import anthropic
    import httpx2

    return (
        anthropic.AnthropicError,
        httpx2.HTTPError,
        httpx2.StreamError,
        ValueError,
        LookupError,
        AttributeError,
        TypeError,
    )


def _translate(exc: Exception) -> ModelError:
    """The nucleo error for an exception an SDK call raised."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        return _status_error(exc)
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelConnectionError(
            f"The Anthropic API at {_host(exc.request)} did not answer in time", provider=_PROVIDER
        )
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__
        reason = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        return ModelConnectionError(
            f"Could not reach the Anthropic API at {_host(exc.request)}{reason}",
            provider=_PROVIDER,
        )
    if isinstance(exc, anthropic.APIResponseValidationError):
        return ModelResponseMalformed(
            f"Anthropic's reply (HTTP {exc.status_code}) did not fit the Messages API schema",
            provider=_PROVIDER,
            status=exc.status_code,
        )
    if isinstance(exc, httpx2.TimeoutException):
        return ModelConnectionError(
            "The Anthropic API stopped answering mid-stream (timed out)", provider=_PROVIDER
        )
    if isinstance(exc, httpx2.TransportError):
        return ModelConnectionError(
            f"The connection to the Anthropic API failed mid-stream: {type(exc).__name__}: {exc}",
            provider=_PROVIDER,
        )
    if isinstance(exc, anthropic.AnthropicError):
        return ModelError(f"The Anthropic SDK failed: {type(exc).__name__}", provider=_PROVIDER)
    # What is left is the SDK failing to decode or assemble the body it was sent.
    return ModelResponseMalformed(
        f"Anthropic's reply could not be decoded ({type(exc).__name__}); "
        "it is not the Messages API's JSON or event stream",
        provider=_PROVIDER,
    )


def _status_error(exc: APIStatusError) -> ModelError:
    """The nucleo error for an HTTP error status, or for an ``error`` event inside a stream."""
    status = exc.status_code
    error_type = exc.type or "no error type"
    detail = exc.api_message or "no message"
    request_id = f" [request-id {exc.request_id}]" if exc.request_id else ""
    in_stream = status < 400
    where = "in its event stream" if in_stream else f"HTTP {status}"
    message = f"Anthropic API error ({where}): {error_type}: {detail}{request_id}"
    http_status = None if in_stream else status

    if status == 429 or (in_stream and exc.type == "rate_limit_error"):
        retry_after = None if in_stream else read_retry_after(exc.response.headers)
        if retry_after is not None:
            message += f"; retry after {retry_after:g}s"
        return ModelRateLimited(
            message, provider=_PROVIDER, status=http_status, retry_after=retry_after
        )
    if status >= 500 or (in_stream and exc.type not in _CLIENT_ERROR_TYPES):
        return ModelServerError(message, provider=_PROVIDER, status=http_status)
    if status in (401, 403):
        message += f"; check the API key ({API_KEY_ENV}) and its permissions"
    return ModelRequestRejected(message, provider=_PROVIDER, status=http_status)


def _host(request: httpx2.Request) -> str:
    """Where a request went, without path or query (which could carry anything)."""
    url = request.url
    port = f":{url.port}" if url.port is not None else ""
    return f"{url.scheme}://{url.host}{port}"
