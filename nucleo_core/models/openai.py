"""`OpenAIChatClient`: OpenAI chat completions, and every server that speaks them.

One adapter serves OpenAI itself and the local servers with an OpenAI-compatible
``/v1/chat/completions`` endpoint (Ollama, vLLM, llama.cpp's ``llama-server``, LM Studio), through
the official ``openai`` SDK pointed at ``base_url``. The SDK is imported when a client is
constructed, never by ``import nucleo_core`` or ``import nucleo_core.models``.

How the neutral conversation is sent, and where chat completions cannot carry it as it is:

- ``request.system`` is the first message, ``{"role": "system"}`` (left out when empty).
- A user turn's text blocks become one user message, joined by a blank line.
- An assistant turn's text and tool uses become one assistant message with ``tool_calls``; the
  arguments are the JSON of the input, or the model's own raw text when it was not an object.
  A turn of tool calls alone carries ``"content": ""``, never ``null``: the specification
  allows both, and some servers (llama-cpp-python's) refuse ``null`` with a 500.
- Each tool result becomes one ``{"role": "tool"}`` message, placed before the text of its turn
  (chat completions wants the results right after the calls). Chat completions has no error
  flag, so a failed call's content is sent prefixed with ``"Error: "``.
- Reasoning blocks are dropped: chat completions takes no reasoning back (DeepSeek rejects it).
- The answer budget goes out as ``max_completion_tokens`` to OpenAI itself (its reasoning models
  refuse ``max_tokens``) and as ``max_tokens`` to every other server (the field Ollama, vLLM,
  llama.cpp and LM Studio all read); ``max_tokens_parameter`` overrides the choice.

How answers are read:

- ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or ``reasoning`` (the name some newer
  servers use) becomes a leading `ReasoningBlock`; ``refusal`` becomes a text block and the
  stop reason ``REFUSAL``.
- Tool call arguments that decode to a JSON object become the input; anything else stays the
  raw text for the response handler to correct (empty arguments count as ``{}``). A call
  without an id, which some local servers send, gets a minted ``call_…`` id so its result can
  answer it.
- ``finish_reason``: ``stop`` → ``END_TURN`` (chat completions does not tell a stop sequence
  apart), ``tool_calls``/``function_call`` → ``TOOL_USE``, ``length`` → ``MAX_TOKENS``,
  ``content_filter`` → ``REFUSAL``, anything else → ``OTHER``. A ``stop`` that carries tool calls
  (as older Ollama releases send) is ``TOOL_USE``.

How failures are told and retried:

- The SDK is built with ``max_retries=0``; nucleo retries itself (`nucleo_core.models._retry`),
  logging each retry on ``nucleo.models.<provider>``. A 5xx whose body is a validation report
  (pydantic's, FastAPI's ``detail`` list) is deterministic and raised at once.
- An error's message is the server's own, shortened; a validation report is summarized as the
  fields it names and what was wrong with each (``messages.2.content: Input should be a valid
  string``), never the values sent.
- Token usage is asked for in every stream (``stream_options.include_usage``); a server that
  refuses the option (a 4xx naming it) is asked again without it, and not asked again (said
  at ``INFO`` on ``nucleo.models.<provider>``).
- A server that answers a stream request with one whole JSON completion (some do not stream)
  is read as `complete` reads it: its text arrives as one delta.
- A stream offering tools that ends before its first chunk (llama-cpp-python's server cannot
  stream a tool call its model chose, and ends the stream empty) is asked again unstreamed, with
  a warning, and so is every later request with tools to that client that lets the model call
  them (``tool_choice`` other than ``"none"``): its text then arrives as one delta.
- A stream that goes on past the budget (more chunks carrying answer than ``max_tokens``: a
  server that ignores the field, as llama-cpp-python's does when tools are offered) is closed
  there and read as cut off (``length``), with a warning, so the escalation ceiling holds.

The SDK builds its response objects without validating them, so that a server's additions
survive; every field is therefore checked as it is read, and a reply that lacks what an answer
needs raises `ModelResponseMalformed` rather than an ``AttributeError``.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast, final
from urllib.parse import urlsplit

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
from nucleo_core.models._json_depth import (
    MAX_JSON_DEPTH,
    JSONTooDeep,
    loads,
    loads_cut,
    render,
    tool_input,
)
from nucleo_core.models._retry import is_transient, logger_for, retried, retried_stream
from nucleo_core.models._retry_after import retry_after as read_retry_after
from nucleo_core.models.client import ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    ReasoningBlock,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.tools.render import to_openai

if TYPE_CHECKING:
    import openai
    from openai._legacy_response import LegacyAPIResponse  # what with_raw_response returns
    from openai.types.chat import (
        ChatCompletionMessageParam,
        ChatCompletionToolChoiceOptionParam,
        ChatCompletionToolUnionParam,
    )
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase

__all__ = ["OpenAIChatClient"]

#: Which request field carries the answer budget.
MaxTokensParameter: TypeAlias = Literal["max_tokens", "max_completion_tokens"]

_OPENAI_BASE_URL = "https://api.openai.com/v1"

#: Seconds a listing request of `OpenAIChatClient.context_window` may take: it is a convenience,
#: and a server too slow to list its models is left to the configured window.
LISTING_TIMEOUT = 5.0
_OPENAI_HOST = "api.openai.com"
_API_KEY_VARIABLE = "OPENAI_API_KEY"

#: Sent as the bearer token to a custom ``base_url`` when no key is given. Local servers started
#: without a key ignore the header, and the SDK refuses to run without one. The environment's
#: ``OPENAI_API_KEY`` is deliberately not used there: it would hand an OpenAI key to another host.
KEYLESS_PLACEHOLDER = "not-needed"

_FINISH_REASONS: Mapping[str, StopReason] = {
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.REFUSAL,
}

#: Anything shaped like an OpenAI secret key, masked in error messages even when the provider
#: echoed only part of it.
_SECRET_KEY_PATTERN = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{4,}")
_PROVIDER_MESSAGE_LIMIT = 500

#: How deep a chat completion nests above a call's arguments (choices, choice, message,
#: tool_calls, call, function, and the body itself): a body is cut past the depth limit plus
#: these levels, so that every argument object keeps its own limit.
_BODY_LEVELS = 7


@final
class OpenAIChatClient(AsyncClosesOnExit):
    """A `ModelClient` over OpenAI chat completions, for OpenAI and OpenAI-compatible servers.

    Example:
        A local Ollama server needs no key::

            client = OpenAIChatClient(
                base_url="http://127.0.0.1:11434/v1", provider="openai-compatible"
            )
            response = await client.complete(ModelRequest(model="llama3.2", messages=...))
            await client.aclose()

    The client is also an async context manager that closes itself on exit.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float | None = 600.0,
        default_headers: Mapping[str, str] | None = None,
        provider: str = "openai",
        stream_usage: bool | None = None,
        max_tokens_parameter: MaxTokensParameter | None = None,
    ) -> None:
        """Build the SDK client; nothing is sent until the first request.

        Args:
            api_key: The bearer key. For OpenAI itself (no ``base_url``, or one on
                ``api.openai.com``) it defaults to the ``OPENAI_API_KEY`` environment variable.
                For any other ``base_url`` it is optional: local servers usually need none, and
                `KEYLESS_PLACEHOLDER` is sent instead.
            base_url: The server's OpenAI-compatible root, e.g. ``http://127.0.0.1:11434/v1``
                for Ollama or ``http://127.0.0.1:8000/v1`` for vLLM; ``None`` for OpenAI.
            max_retries: How often a request that failed transiently (a connection failure, a
                timeout, 408, 409, 429, a 5xx that names no cause) is sent again before the
                typed error is raised; each retry is logged on ``nucleo.models.<provider>``.
            timeout: Seconds one attempt may take before it counts as timed out (``None``:
                the SDK's default, 600 s).
            default_headers: Headers sent with every request.
            provider: The name errors carry (``ModelError.provider``), e.g. ``"openai"`` or
                ``"openai-compatible"``.
            stream_usage: Whether a stream asks for token usage (``stream_options``). By
                default every server is asked, and one that refuses the option is asked again
                without it; ``False`` never asks.
            max_tokens_parameter: The field that carries the answer budget; by default
                ``max_completion_tokens`` for OpenAI itself and ``max_tokens`` elsewhere.

        Raises:
            ModelNotConfigured: The ``openai`` SDK is not installed, or OpenAI itself is the
                endpoint and no key was given or found in ``OPENAI_API_KEY``.
        """
        try:
            import openai
        except ImportError as exc:
            raise ModelNotConfigured(missing_sdk("openai")) from exc

        official = base_url is None or _is_openai_endpoint(base_url)
        if official:
            key = api_key or os.environ.get(_API_KEY_VARIABLE)
            if not key:
                raise ModelNotConfigured(
                    f"No OpenAI API key: set the {_API_KEY_VARIABLE} environment variable "
                    "(or pass api_key= to OpenAIChatClient)"
                )
        else:
            key = api_key or KEYLESS_PLACEHOLDER
        self._provider = provider
        self._secret = key if key != KEYLESS_PLACEHOLDER else None
        self._endpoint = _printable_url(base_url or _OPENAI_BASE_URL)
        # None: ask, and stop asking once the server refused the option.
        self._stream_usage: bool | None = stream_usage
        # False once the server ended a stream offering tools empty: such requests are completed.
        self._stream_tools = True
        self._retries = max_retries
        self._logger = logger_for(provider)
        self._max_tokens_parameter: MaxTokensParameter = max_tokens_parameter or (
            "max_completion_tokens" if official else "max_tokens"
        )
        try:
            self._client = openai.AsyncOpenAI(
                api_key=key,
                # Explicit, so that an OPENAI_BASE_URL in the environment cannot reroute a
                # client configured for OpenAI itself.
                base_url=base_url or _OPENAI_BASE_URL,
                max_retries=0,  # retried here, each retry logged (`_retry`)
                timeout=600.0 if timeout is None else timeout,
                default_headers=default_headers,
            )
        except openai.OpenAIError as exc:
            raise ModelNotConfigured(
                f"The openai SDK refused the configuration of {provider}: {self._scrub(str(exc))}"
            ) from exc

    @property
    def provider(self) -> str:
        """The provider name errors carry."""
        return self._provider

    def __repr__(self) -> str:
        # Never the key.
        return f"OpenAIChatClient(provider={self._provider!r}, base_url={self._endpoint!r})"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request and return the whole response.

        Raises:
            ModelRateLimited: The server answered 429 (``retry_after`` when it said how long).
            ModelServerError: The server failed (5xx).
            ModelConnectionError: The server could not be reached or did not answer in time.
            ModelRequestRejected: The server refused the request (any other 4xx).
            ModelResponseMalformed: The reply could not be read as a chat completion.
        """
        return await retried(
            lambda: self._complete_once(request),
            retries=self._retries,
            logger=self._logger,
            retryable=_retryable,
        )

    async def _complete_once(self, request: ModelRequest) -> ModelResponse:
        body = self._body(request)
        with self._translated_errors():
            # The raw response, so that a body nesting too deep for the SDK's JSON decoding
            # can still be read (see `_parse_reply`).
            raw = await self._client.chat.completions.with_raw_response.create(**body)
            reply = _parse_reply(raw)
        return self._read_completion(reply, request)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send one request; yield text deltas as they arrive, then one `ResponseComplete`.

        Tool call fragments are gathered by their index and arrive whole in the final
        response. Raises the same errors as `complete`, at the start or midway; a failure
        before the first event is retried as `complete`'s are.
        """
        async with aclosing(
            retried_stream(
                lambda: self._stream_once(request),
                retries=self._retries,
                logger=self._logger,
                retryable=_retryable,
            )
        ) as events:
            async for event in events:
                yield event

    async def _stream_once(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        if request.tools and request.tool_choice != "none" and not self._stream_tools:
            async for event in self._whole(request):
                yield event
            return
        body = self._body(request)
        asked_usage = self._stream_usage is not False
        if asked_usage:
            body["stream_options"] = {"include_usage": True}
        try:
            chunks, whole = await self._open_stream(body, request)
        except ModelRequestRejected as refused:
            if not asked_usage or self._stream_usage or "stream_options" not in str(refused):
                raise
            # A server that does not know the option: asked again without it, and from now on.
            self._logger.info(
                "%s refused stream_options (streamed usage); streams go on without it, and "
                "their usage reads 0",
                self._provider,
            )
            self._stream_usage = False
            body.pop("stream_options", None)
            chunks, whole = await self._open_stream(body, request)
        if whole is not None:
            if whole.text:
                yield TextDelta(whole.text)
            yield ResponseComplete(whole)
            return
        draft = _StreamDraft()
        async with chunks:
            while True:
                with self._translated_errors():
                    try:
                        chunk: object = await anext(chunks)
                    except StopAsyncIteration:
                        break
                text = draft.add(chunk)
                if text:
                    yield TextDelta(text)
                if draft.pieces > request.max_tokens and draft.finish_reason is None:
                    # A server that ignores max_tokens (llama-cpp-python's, when tools are
                    # offered) would go on for thousands of tokens: the stream is closed at
                    # the budget and read as cut off there, so the escalation ceiling holds.
                    self._logger.warning(
                        "%s sent more than the budget of %d tokens; the stream is cut there",
                        self._provider,
                        request.max_tokens,
                    )
                    draft.finish_reason = "length"
                    break
        if not draft.received:
            if not request.tools:
                raise self._malformed("the stream ended before any chunk arrived")
            # llama-cpp-python's server cannot stream a tool call its model chose: it ends
            # the stream empty. Asked again whole, and requests with tools are from now on.
            self._logger.warning(
                "%s ended a stream offering tools before any chunk arrived (a server that "
                "cannot stream tool calls); it is asked again without streaming, and so are "
                "its requests with tools from now on",
                self._provider,
            )
            self._stream_tools = False
            async for event in self._whole(request):
                yield event
            return
        yield ResponseComplete(self._assemble(draft.answer(), request.model))

    async def _whole(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """``request`` completed rather than streamed: its text as one delta, then the whole."""
        response = await self._complete_once(request)
        if response.text:
            yield TextDelta(response.text)
        yield ResponseComplete(response)

    async def _open_stream(
        self, body: CompletionCreateParamsBase, request: ModelRequest
    ) -> tuple[Any, ModelResponse | None]:
        """Send a stream request: the SDK's chunk stream, or the whole answer sent instead.

        A server that does not stream (some ignore ``stream``) answers one JSON completion;
        it is read as `complete` reads it, and streams as one delta.
        """
        with self._translated_errors():
            raw = await self._client.chat.completions.with_raw_response.create(**body, stream=True)
            if "json" not in raw.headers.get("content-type", "").lower():
                return raw.parse(), None
            reply = raw.http_response
            await reply.aread()
            text = reply.text
        try:
            whole = loads_cut(text, MAX_JSON_DEPTH + _BODY_LEVELS)
        except ValueError:
            raise self._malformed("the reply is not JSON") from None
        return None, self._read_completion(whole, request)

    async def context_window(self, model: str) -> int | None:
        """The context window the server says it runs ``model`` with; ``None`` if it does not say.

        Meant for local servers, and asked once per model entry by the catalog
        (`ModelCatalog.learn_context_window`). The listings are asked in turn until one says
        it (see `nucleo_core.models._window`): ``GET <base_url>/models`` (vLLM, LM Studio,
        llama.cpp), llama.cpp's ``GET /props`` when the listing is llama.cpp's (the window it
        runs with, not the one the model was trained with), then Ollama's ``POST /api/show``.
        Each request may take `LISTING_TIMEOUT` seconds and is not retried. Never raises: a
        listing that fails, or says nothing readable, is passed over (logged at ``DEBUG``).
        """
        from nucleo_core.models import _window

        body = await self._listing("GET", "models")
        window, llama_cpp = _window.from_models(body, model)
        if llama_cpp or window is None:
            running = _window.from_props(await self._listing("GET", "/props"))
            if running is not None:
                return running
        if window is None:
            window = _window.from_ollama_show(
                await self._listing("POST", "/api/show", {"model": model})
            )
        return window

    async def _listing(self, method: str, path: str, body: object = None) -> object:
        """The decoded JSON body of one listing request, or ``None`` when it failed.

        A relative ``path`` is below ``base_url``; one starting with ``/`` is below the server's
        root (``base_url`` without its ``/v1``).
        """
        url = path
        if path.startswith("/"):
            root = str(self._client.base_url).rstrip("/")
            root = root.removesuffix("/v1")
            url = root + path
        options: Any = {"timeout": LISTING_TIMEOUT}
        try:
            # ``cast_to=str``: the body as the server sent it, decoded here with a depth limit.
            if method == "GET":
                text = await self._client.get(url, cast_to=str, options=options)
            else:
                text = await self._client.post(url, cast_to=str, body=body, options=options)
            return loads(text)
        except Exception as exc:  # fail-soft: a listing only ever adds what it says
            self._logger.debug("%s %s: no listing (%s)", method, path, type(exc).__name__)
            return None

    async def aclose(self) -> None:
        """Release the client's connections."""
        await self._client.close()

    # -- request ---------------------------------------------------------------------------

    def _body(self, request: ModelRequest) -> CompletionCreateParamsBase:
        body: CompletionCreateParamsBase = {"model": request.model, "messages": _messages(request)}
        if request.tools:
            body["tools"] = cast("list[ChatCompletionToolUnionParam]", to_openai(request.tools))
            body["tool_choice"] = _tool_choice(request.tool_choice)
        if self._max_tokens_parameter == "max_tokens":
            body["max_tokens"] = request.max_tokens
        else:
            body["max_completion_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.stop_sequences:
            body["stop"] = list(request.stop_sequences)
        return body

    # -- response --------------------------------------------------------------------------

    def _read_completion(self, reply: object, request: ModelRequest) -> ModelResponse:
        if isinstance(reply, str):
            # The SDK hands back the text when the reply was not declared as JSON.
            raise self._malformed("the reply is not JSON")
        choices = _field(reply, "choices")
        if not isinstance(choices, list) or not choices:
            raise self._malformed("the reply has no choices")
        choice = choices[0]
        message = _field(choice, "message")
        if message is None:
            raise self._malformed("the reply's first choice has no message")
        calls = _field(message, "tool_calls")
        tool_calls: list[_ToolCallDraft] = []
        if isinstance(calls, list):
            tool_calls = [_tool_call_draft(call) for call in calls]
        legacy_call = _field(message, "function_call")
        if not tool_calls and legacy_call is not None:
            # The deprecated single `function_call` has no id; one is minted below.
            tool_calls = [_tool_call_draft({"function": legacy_call})]
        answer = _Answer(
            reasoning=_reasoning_text(message),
            text=_text(_field(message, "content")),
            refusal=_text(_field(message, "refusal")),
            tool_calls=tool_calls,
            finish_reason=_field(choice, "finish_reason"),
            model=_field(reply, "model"),
            usage=_field(reply, "usage"),
        )
        return self._assemble(answer, request.model)

    def _assemble(self, answer: _Answer, fallback_model: str) -> ModelResponse:
        content: list[ContentBlock] = []
        if answer.reasoning:
            content.append(ReasoningBlock(text=answer.reasoning))
        if answer.text:
            content.append(TextBlock(text=answer.text))
        if answer.refusal:
            content.append(TextBlock(text=answer.refusal))
        for call in answer.tool_calls:
            # A call without a usable name (none, null, a number) is kept with the name "": the
            # response handler refuses that one call correctably, and the rest of the answer
            # goes on.
            content.append(
                ToolUseBlock(
                    id=call.id or f"call_{uuid.uuid4().hex[:24]}",
                    name=call.name,
                    input=tool_input(call.decoded)
                    if call.decoded is not None
                    else _decode(call.arguments),
                )
            )
        raw = answer.finish_reason if isinstance(answer.finish_reason, str) else None
        stop_reason = _FINISH_REASONS.get(raw or "", StopReason.OTHER)
        if answer.refusal:
            stop_reason = StopReason.REFUSAL
        elif stop_reason is StopReason.END_TURN and answer.tool_calls:
            stop_reason = StopReason.TOOL_USE
        model = answer.model if isinstance(answer.model, str) and answer.model else fallback_model
        return ModelResponse(
            content=tuple(content),
            stop_reason=stop_reason,
            usage=_usage(answer.usage),
            model=model,
            raw_stop_reason=raw,
        )

    # -- errors ----------------------------------------------------------------------------

    @contextmanager
    def _translated_errors(self) -> Iterator[None]:
        """Raise nucleo's typed errors for the SDK's, each chained to the original."""
        import openai

        try:
            yield
        except openai.APIResponseValidationError as exc:
            raise self._malformed("the reply does not fit the chat completion format") from exc
        except openai.APIStatusError as exc:
            raise self._status_error(exc) from exc
        except openai.APIConnectionError as exc:
            raise ModelConnectionError(
                f"Could not reach {self._provider} at {self._endpoint}: {exc.message}",
                provider=self._provider,
            ) from exc
        except openai.APIError as exc:
            # An error event inside a stream that had started well.
            raise ModelServerError(
                f"{self._provider} reported an error mid-stream: {self._scrub(exc.message)}",
                provider=self._provider,
            ) from exc
        except openai.OpenAIError as exc:
            raise ModelError(
                f"The openai SDK failed talking to {self._provider}: {self._scrub(str(exc))}",
                provider=self._provider,
            ) from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise self._malformed("the reply is not valid JSON") from exc
        except RecursionError as exc:
            # A stream event nesting too deep for the SDK's JSON decoding (a whole reply is
            # read by `_parse_reply` instead): the stream cannot be read on.
            raise self._malformed("the reply nests its JSON too deeply") from exc

    def _status_error(self, exc: openai.APIStatusError) -> ModelError:
        status = exc.status_code
        said = self._scrub(_provider_message(exc.body))
        if status == 429:
            retry_after = read_retry_after(exc.response.headers)
            wait = "" if retry_after is None else f"; retry after {retry_after:g}s"
            return ModelRateLimited(
                f"{self._provider} rate-limited the request (HTTP 429): {said}{wait}",
                provider=self._provider,
                status=status,
                retry_after=retry_after,
            )
        if status >= 500:
            failed = "refused the request" if _validation_issues(exc.body) else "failed"
            return ModelServerError(
                f"{self._provider} {failed} (HTTP {status}): {said}",
                provider=self._provider,
                status=status,
            )
        return ModelRequestRejected(
            f"{self._provider} rejected the request (HTTP {status}): {said}",
            provider=self._provider,
            status=status,
        )

    def _malformed(self, what: str) -> ModelResponseMalformed:
        return ModelResponseMalformed(
            f"Could not read the reply of {self._provider} at {self._endpoint}: {what}",
            provider=self._provider,
        )

    def _scrub(self, text: str) -> str:
        """``text`` without the key, in case the provider echoed it."""
        if self._secret:
            text = text.replace(self._secret, "***")
        return _SECRET_KEY_PATTERN.sub("sk-***", text)


# -- sending -------------------------------------------------------------------------------


def _messages(request: ModelRequest) -> list[ChatCompletionMessageParam]:
    sent: list[dict[str, Any]] = []
    if request.system:
        sent.append({"role": "system", "content": request.system})
    for message in request.messages:
        sent.extend(_turn(message))
    return cast("list[ChatCompletionMessageParam]", sent)


def _turn(message: Message) -> list[dict[str, Any]]:
    """One neutral turn as chat-completion messages: tool results first, then the turn."""
    sent: list[dict[str, Any]] = [
        {
            "role": "tool",
            "tool_call_id": block.tool_use_id,
            "content": f"Error: {block.content}" if block.is_error else block.content,
        }
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]
    texts = [block.text for block in message.content if isinstance(block, TextBlock)]
    if message.role == "user":
        if texts:
            sent.append({"role": "user", "content": "\n\n".join(texts)})
        return sent
    calls = [
        {
            "id": block.id,
            "type": "function",
            "function": {"name": block.name, "arguments": _encode(block.input)},
        }
        for block in message.content
        if isinstance(block, ToolUseBlock)
    ]
    # "" even for a turn of tool calls alone: the specification allows null there, but some
    # servers (llama-cpp-python's) answer it with a 500, and every server takes "".
    assistant: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        assistant["tool_calls"] = calls
    sent.append(assistant)
    return sent


def _encode(given: Mapping[str, Any] | str) -> str:
    if isinstance(given, str):
        return given
    # Never raises: an input nested too deep to encode is sent as its cut form.
    return render(given)


def _tool_choice(choice: str) -> ChatCompletionToolChoiceOptionParam:
    if choice == "auto":
        return "auto"
    if choice == "none":
        return "none"
    if choice == "any":
        return "required"
    return {"type": "function", "function": {"name": choice}}


def _is_openai_endpoint(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "").lower() == _OPENAI_HOST


def _printable_url(url: str) -> str:
    """``url`` without user info or query, which could hold credentials."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    if not parts.scheme:
        return "(a base_url without a scheme)"
    return f"{parts.scheme}://{host}{parts.path}"


# -- reading -------------------------------------------------------------------------------


@dataclass(slots=True)
class _ToolCallDraft:
    """One tool call as it is gathered: whole from a completion, in fragments from a stream."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    decoded: Mapping[str, Any] | None = None


@dataclass(slots=True)
class _Answer:
    """The parts of one answer, before they are checked and put in neutral terms."""

    reasoning: str
    text: str
    refusal: str
    tool_calls: list[_ToolCallDraft]
    finish_reason: object
    model: object
    usage: object


@dataclass(slots=True)
class _StreamDraft:
    """A streamed answer, gathered chunk by chunk."""

    received: bool = False
    reasoning: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    tool_calls: list[_ToolCallDraft] = field(default_factory=list)
    by_index: dict[int, _ToolCallDraft] = field(default_factory=dict)
    finish_reason: object = None
    model: object = None
    usage: object = None
    #: How many chunks carried some of the answer: about one token each, or more tokens.
    pieces: int = 0

    def add(self, chunk: object) -> str:
        """Take in one chunk; return its answer text, if it had any."""
        self.received = True
        if _field(chunk, "model"):
            self.model = _field(chunk, "model")
        if _field(chunk, "usage") is not None:
            # With include_usage the last chunk has usage and no choices; some servers put
            # usage on every chunk, and the last one counts.
            self.usage = _field(chunk, "usage")
        choices = _field(chunk, "choices")
        if not isinstance(choices, list):
            return ""
        text = ""
        carried = False
        for choice in choices:
            if _field(choice, "index") not in (0, None):
                continue  # only one answer is asked for; ignore any other
            if _field(choice, "finish_reason") is not None:
                self.finish_reason = _field(choice, "finish_reason")
            delta = _field(choice, "delta")
            if delta is None:
                continue
            reasoning, refusal = _reasoning_text(delta), _text(_field(delta, "refusal"))
            content = _text(_field(delta, "content"))
            self.reasoning.append(reasoning)
            self.refusal.append(refusal)
            text += content
            calls = _field(delta, "tool_calls")
            fragments = calls if isinstance(calls, list) else []
            for position, fragment in enumerate(fragments):
                self._add_tool_call(position, fragment)
            if reasoning or refusal or content or fragments:
                carried = True
        self.text.append(text)
        self.pieces += carried
        return text

    def _add_tool_call(self, position: int, fragment: object) -> None:
        index = _field(fragment, "index")
        key = index if isinstance(index, int) else position
        call_id = _text(_field(fragment, "id"))
        draft = self.by_index.get(key)
        if draft is None or (call_id and draft.id and call_id != draft.id):
            # A new id at a known index is a new call: some servers number every call 0.
            draft = _ToolCallDraft(id=call_id)
            self.by_index[key] = draft
            self.tool_calls.append(draft)
        elif call_id and not draft.id:
            draft.id = call_id
        function = _field(fragment, "function")
        name = _text(_field(function, "name"))
        if name and name != draft.name:
            # Names arrive whole in one chunk; a server that repeats it must not double it.
            draft.name = name if not draft.name else draft.name + name
        arguments = _field(function, "arguments")
        if isinstance(arguments, str):
            draft.arguments.append(arguments)
        elif isinstance(arguments, Mapping):
            draft.decoded = arguments

    def answer(self) -> _Answer:
        """The gathered answer."""
        return _Answer(
            reasoning="".join(self.reasoning),
            text="".join(self.text),
            refusal="".join(self.refusal),
            tool_calls=self.tool_calls,
            finish_reason=self.finish_reason,
            model=self.model,
            usage=self.usage,
        )


def _tool_call_draft(call: object) -> _ToolCallDraft:
    function = _field(call, "function")
    if function is None:
        # A custom (free-form) tool call carries its input as plain text.
        function = _field(call, "custom")
        arguments = _field(function, "input")
    else:
        arguments = _field(function, "arguments")
    return _ToolCallDraft(
        id=_text(_field(call, "id")),
        name=_text(_field(function, "name")),
        arguments=[arguments] if isinstance(arguments, str) else [],
        decoded=arguments if isinstance(arguments, Mapping) else None,
    )


def _field(value: object, name: str) -> object:
    """``value.name`` or ``value[name]``, or ``None``: the SDK does not validate replies."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _reasoning_text(message: object) -> str:
    """The reasoning a server added to a message or delta, under either name in use."""
    for name in ("reasoning_content", "reasoning"):
        text = _field(message, name)
        if isinstance(text, str) and text:
            return text
    return ""


def _decode(fragments: list[str]) -> Mapping[str, Any] | str:
    """The arguments as a JSON object, or the raw text when they are not one.

    Arguments nesting deeper than `MAX_JSON_DEPTH` are not decoded: they are kept in their cut
    form (`tool_input`), for the response handler to refuse.
    """
    raw = "".join(fragments)
    if not raw.strip():
        return {}
    try:
        decoded = loads(raw)
    except JSONTooDeep:
        return tool_input(raw)
    except ValueError:
        return raw
    return cast("dict[str, Any]", decoded) if isinstance(decoded, dict) else raw


def _parse_reply(raw: LegacyAPIResponse[Any]) -> object:
    """The reply the SDK parses from ``raw``; read here when its JSON nests too deep for it.

    A body nesting deeper than Python's JSON decoding can recurse makes the SDK raise
    ``RecursionError``. The body is then decoded with every container past the depth limit
    replaced by a marker, so the rest of the reply is read as usual and a too-deep argument
    object becomes its cut form for the response handler to refuse (`tool_input`).
    """
    try:
        return raw.parse()
    except RecursionError:
        return loads_cut(raw.text, MAX_JSON_DEPTH + _BODY_LEVELS)


def _usage(usage: object) -> Usage:
    if usage is None:
        return Usage()
    prompt_details = _field(usage, "prompt_tokens_details")
    completion_details = _field(usage, "completion_tokens_details")
    extra: dict[str, Any] = {}
    reasoning_tokens = _count(_field(completion_details, "reasoning_tokens"))
    if reasoning_tokens:
        extra["reasoning_tokens"] = reasoning_tokens
    return Usage(
        input_tokens=_count(_field(usage, "prompt_tokens")),
        output_tokens=_count(_field(usage, "completion_tokens")),
        cache_read_tokens=_count(_field(prompt_details, "cached_tokens")),
        cache_write_tokens=_count(_field(prompt_details, "cache_write_tokens")),
        extra=extra,
    )


def _retryable(error: ModelError) -> bool:
    """Transient, and not a 5xx whose body names its cause (it would answer the same again)."""
    cause = error.__cause__
    body = getattr(cause, "body", None)
    return is_transient(error) and not (
        isinstance(error, ModelServerError) and _validation_issues(body)
    )


#: A pydantic ``ValidationError`` as text: its header, then a location line and an indented
#: message line (``  Input should be ... [type=..., input_value=..., ...]``) per problem.
_PYDANTIC_HEADER = re.compile(r"\d+ validation errors? for \S+")
#: A problem in a dict or JSON rendering of pydantic's ``errors()``: ``'type': ..., 'loc': (...),
#: 'msg': ...``, in that order (the ``type`` may be missing).
_LOC_MSG = re.compile(
    r"""(?:["']type["']\s*:\s*["']([^"']*)["']\s*,\s*)?"""
    r"""["']loc["']\s*:\s*[\[(]([^\])]*)[\])]\s*,\s*["']msg["']\s*:\s*(["'])(.*?)(?<!\\)\3"""
)
_ISSUES_SHOWN = 3


@dataclass(frozen=True, slots=True)
class _Issue:
    kind: str
    location: tuple[str, ...]
    message: str

    def __str__(self) -> str:
        return f"{'.'.join(self.location) or '(the request)'}: {self.message}"


def _validation_issues(body: object) -> list[str]:
    """The problems a validation report in ``body`` names, as ``location: message``.

    Reads FastAPI's ``{"detail": [{"loc": ..., "msg": ...}]}``, pydantic's text rendering and
    a dict or JSON rendering of its ``errors()``, wherever the message is. The values the
    report echoes (``input_value``, ``input``) are left out. A message that fits none of a
    union's shapes is reported against each; the shapes whose ``role`` or ``type`` did not
    match are dropped, so what is left is the cause (``messages.1.…AssistantMessage.content:
    Input should be a valid string``). Empty when there is no report.
    """
    issues: list[_Issue] = []
    if isinstance(body, Mapping) and isinstance(body.get("detail"), list):
        issues = [
            _issue(item.get("type"), item.get("loc"), item.get("msg"))
            for item in body["detail"]
            if isinstance(item, Mapping) and isinstance(item.get("msg"), str)
        ]
    text = body if isinstance(body, str) else _raw_message(body)
    if not issues and text:
        issues = [
            _issue(kind, [part.strip().strip("'\"") for part in loc.split(",")], msg)
            for kind, loc, _, msg in _LOC_MSG.findall(text)
        ]
    if not issues and text and (header := _PYDANTIC_HEADER.search(text)) is not None:
        location = ""
        for line in text[header.end() :].splitlines():
            if not line.strip() or line.lstrip().startswith("For further information"):
                continue
            if not line[0].isspace():
                location = line.strip()
            elif location:
                message = line.strip().split(" [type=", 1)[0]
                issues.append(_Issue("", tuple(location.split(".")), message))
                location = ""
    return [str(issue) for issue in _causes(issues)]


def _issue(kind: object, location: object, message: object) -> _Issue:
    parts = (
        [str(part) for part in location if str(part)] if isinstance(location, list | tuple) else []
    )
    if parts and parts[0] == "body":
        parts = parts[1:]  # FastAPI's: every field of a request is in its body
    return _Issue(kind if isinstance(kind, str) else "", tuple(parts), str(message))


def _causes(issues: list[_Issue]) -> list[_Issue]:
    """``issues`` without those of the union members the value was never meant to be."""
    mismatched = {
        issue.location[:-1]
        for issue in issues
        if issue.kind == "literal_error" and issue.location[-1:] in (("role",), ("type",))
    }
    kept = [issue for issue in issues if issue.location[:-1] not in mismatched]
    return kept or issues


def _raw_message(body: object) -> str:
    if isinstance(body, Mapping):
        for candidate in (
            body.get("message"),
            body.get("error"),
            _field(body.get("error"), "message"),
        ):
            if isinstance(candidate, str) and candidate.strip():
                return candidate
    return ""


def _provider_message(body: object) -> str:
    """The provider's own error message, from the shapes OpenAI and local servers use.

    A validation report is summarized as the problems it names (`_validation_issues`).
    """
    issues = list(dict.fromkeys(_validation_issues(body)))
    if issues:
        more = len(issues) - _ISSUES_SHOWN
        shown = "; ".join(issues[:_ISSUES_SHOWN]) + (f"; and {more} more" if more > 0 else "")
        return _shorten(f"the request does not fit the server's schema: {shown}")
    if isinstance(body, Mapping):
        for candidate in (
            body.get("message"),
            body.get("error"),
            _field(body.get("error"), "message"),
        ):
            if isinstance(candidate, str) and candidate.strip():
                return _shorten(candidate)
    if isinstance(body, str) and body.strip():
        return _shorten(body)
    return "no error message"


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= _PROVIDER_MESSAGE_LIMIT:
        return text
    return text[: _PROVIDER_MESSAGE_LIMIT - 1] + "…"
