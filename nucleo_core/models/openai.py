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

import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, final

from nucleo_core._closing import AsyncClosesOnExit
from nucleo_core._extras import missing_sdk
from nucleo_core.errors import ModelError, ModelNotConfigured, ModelRequestRejected
from nucleo_core.models._json_depth import MAX_JSON_DEPTH, loads_cut
from nucleo_core.models._openai_endpoint import OPENAI_BASE_URL, is_openai_endpoint, printable_url
from nucleo_core.models._openai_errors import OpenAIErrors, retryable
from nucleo_core.models._openai_listing import LISTING_TIMEOUT as LISTING_TIMEOUT
from nucleo_core.models._openai_reply import BODY_LEVELS, assemble, parse_reply, read_completion
from nucleo_core.models._openai_request import MaxTokensParameter, request_body
from nucleo_core.models._openai_stream import StreamDraft
from nucleo_core.models._retry import RetriedAttempts, logger_for
from nucleo_core.models.client import ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.request import ModelRequest, ModelResponse

if TYPE_CHECKING:
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase

__all__ = ["OpenAIChatClient"]

_API_KEY_VARIABLE = "OPENAI_API_KEY"

#: Sent as the bearer token to a custom ``base_url`` when no key is given. Local servers started
#: without a key ignore the header, and the SDK refuses to run without one. The environment's
#: ``OPENAI_API_KEY`` is deliberately not used there: it would hand an OpenAI key to another host.
KEYLESS_PLACEHOLDER = "not-needed"


@final
class OpenAIChatClient(RetriedAttempts, AsyncClosesOnExit):
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

        official = base_url is None or is_openai_endpoint(base_url)
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
        self._endpoint = printable_url(base_url or OPENAI_BASE_URL)
        self._errors = OpenAIErrors(
            provider=provider,
            endpoint=self._endpoint,
            secret=key if key != KEYLESS_PLACEHOLDER else None,
        )
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
                base_url=base_url or OPENAI_BASE_URL,
                max_retries=0,  # retried here, each retry logged (`_retry`)
                timeout=600.0 if timeout is None else timeout,
                default_headers=default_headers,
            )
        except openai.OpenAIError as exc:
            raise ModelNotConfigured(
                f"The openai SDK refused the configuration of {provider}: "
                f"{self._errors.scrub(str(exc))}"
            ) from exc

    @property
    def provider(self) -> str:
        """The provider name errors carry."""
        return self._provider

    def __repr__(self) -> str:
        # Never the key.
        return f"OpenAIChatClient(provider={self._provider!r}, base_url={self._endpoint!r})"

    def _retryable(self, error: ModelError) -> bool:
        return retryable(error)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request and return the whole response.

        Raises:
            ModelRateLimited: The server answered 429 (``retry_after`` when it said how long).
            ModelServerError: The server failed (5xx).
            ModelConnectionError: The server could not be reached or did not answer in time.
            ModelRequestRejected: The server refused the request (any other 4xx).
            ModelResponseMalformed: The reply could not be read as a chat completion.
        """
        return await self._completed(request)

    async def _complete_once(self, request: ModelRequest) -> ModelResponse:
        body = request_body(request, self._max_tokens_parameter)
        with self._errors.translated():
            # The raw response, so that a body nesting too deep for the SDK's JSON decoding
            # can still be read (see `parse_reply`).
            raw = await self._client.chat.completions.with_raw_response.create(**body)
            reply = parse_reply(raw)
        return read_completion(reply, request.model, self._errors.malformed)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send one request; yield text deltas as they arrive, then one `ResponseComplete`.

        Tool call fragments are gathered by their index and arrive whole in the final
        response. Raises the same errors as `complete`, at the start or midway; a failure
        before the first event is retried as `complete`'s are.
        """
        async with aclosing(self._streamed(request)) as events:
            async for event in events:
                yield event

    async def _stream_once(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        if request.tools and request.tool_choice != "none" and not self._stream_tools:
            async for event in self._whole(request):
                yield event
            return
        body = request_body(request, self._max_tokens_parameter)
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
        draft = StreamDraft()
        async with chunks:
            while True:
                with self._errors.translated():
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
                raise self._errors.malformed("the stream ended before any chunk arrived")
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
        yield ResponseComplete(assemble(draft.answer(), request.model))

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
        with self._errors.translated():
            raw = await self._client.chat.completions.with_raw_response.create(**body, stream=True)
            if "json" not in raw.headers.get("content-type", "").lower():
                return raw.parse(), None
            reply = raw.http_response
            await reply.aread()
            text = reply.text
        try:
            whole = loads_cut(text, MAX_JSON_DEPTH + BODY_LEVELS)
        except ValueError:
            raise self._errors.malformed("the reply is not JSON") from None
        return None, read_completion(whole, request.model, self._errors.malformed)

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
        from nucleo_core.models._openai_listing import asked_context_window

        return await asked_context_window(self._client, model, self._logger)

    async def aclose(self) -> None:
        """Release the client's connections."""
        await self._client.close()
