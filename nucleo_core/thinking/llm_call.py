"""`LLMCall`: the one dispatched exchange every thinker turn is."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from nucleo_core.errors import (
    AnswerRefused,
    ModelConnectionError,
    ModelRequestRejected,
    ModelResponseMalformed,
    ModelServerError,
    ResponseParseError,
    ResponseValidationError,
)
from nucleo_core.models.catalog import ModelCatalog
from nucleo_core.models.client import ResponseComplete, TextDelta
from nucleo_core.models.messages import Message, StopReason, TextBlock, Usage
from nucleo_core.models.request import ModelRequest, ModelResponse, ToolChoice
from nucleo_core.thinking._context_overflow import _with_context_hint
from nucleo_core.thinking._streamed_text import _Shown
from nucleo_core.thinking._well_formed import well_formed
from nucleo_core.thinking.correction import ResponseCorrection
from nucleo_core.thinking.envelope import envelope_instructions
from nucleo_core.thinking.handler import ThinkingResponseHandler

if TYPE_CHECKING:
    from nucleo_core.models.catalog import ModelEntry
    from nucleo_core.models.client import ModelClient
    from nucleo_core.models.declaration import ThinkerDeclaration
    from nucleo_core.telemetry.observer import RunObserver
    from nucleo_core.thinking.response import ThinkingResponse
    from nucleo_core.tools.registry import ToolRegistry

__all__ = ["LLMCall"]

AnswerT = TypeVar("AnswerT")

logger = logging.getLogger("nucleo.models")


@dataclass(kw_only=True, eq=False, repr=False)
class LLMCall(Generic[AnswerT]):
    """One exchange with a model: seat, send, parse; correct and escalate within bounds.

    - **Seat** — resolved when the call runs (requirements time), from the catalog: the pin
      when there is one, else the declaration's grade. Every request of the exchange —
      corrections and escalations included — goes to that seat, so a pin reaches every call.
    - **Corrections** — a refused answer goes back as a correction turn under the
      `ResponseCorrection` budget; when it is spent a parse failure raises
      `ResponseParseError` and a validation failure `ResponseValidationError`, so no caller
      ever receives an answer lacking a required field.
    - **Empty answers** — an answer with neither text nor a tool call to a request offering
      tools with ``tool_choice`` ``"auto"`` is asked again at once with ``"none"``, as are the
      exchange's later requests (a warning on ``nucleo.models``): some servers drop the text a
      model writes while tools are offered (llama-cpp-python's ``chatml-function-calling``).
      Any other empty answer is refused and corrected like any refusal; given up on, the error
      says that the model answered nothing. An empty answer is never returned.
    - **Truncation escalation** — an answer cut off at the budget (``max_tokens``) is asked
      again with twice the budget, up to the seat's ``max_output_tokens`` ceiling (which caps
      the first budget too).
    - **Deadline** — with the seat's ``deadline`` set, the whole exchange (every attempt,
      correction and escalation) ends with `ModelConnectionError` once it has passed.
    - **Context window** — a refusal in which the server says the conversation passes its
      context window says, besides, the window the seat is configured with and how to set it
      (and logs it as a warning on ``nucleo.models``).
    - **Turns** — `turns` holds the refused answers and their correction turns of the last
      run; when the run gives up (`ResponseParseError`, `ResponseValidationError`) it ends with
      the answer given up on, so a caller can keep them for the transcript.
    - **Streaming** — with ``on_text`` given, and an answer that is text (``output_type`` is
      ``str``) from a seat that calls tools natively, each request is streamed and its text is
      passed to ``on_text`` as it arrives; the response is assembled from the stream as
      `ModelClient.complete` would return it, so corrections, escalations and the deadline are
      unchanged. Text already passed on is never passed again: a later attempt of the same
      exchange (an escalation, a correction) passes on only what goes beyond the text shown,
      and nothing more once it says something else. `shown` holds what was passed on. (A
      typed answer, or the JSON envelope of a seat without native tools, is not for a reader
      as it streams, and is not streamed.)
    - **Client** — the catalog's (which answers the client `override_client` installed, the
      test seam), or the ``client`` passed in.

    Args:
        declaration: The thinker's seat declaration (grade and answer size).
        messages: The conversation so far; the exchange does not modify it.
        catalog: Where the seat is resolved; defaults to `ModelCatalog.discover()`.
        system: The system text.
        tools: The palette; its specs are sent in the registry's stable order, and tool names
            in the answer resolve through its ``available``.
        output_type: The declared answer type.
        pin: An entry id that beats the declaration's grade.
        tool_choice: Whether and which tool the model must call.
        correction: The correction budget; ``None``: `ResponseCorrection`'s default.
        client: A client to use instead of the catalog's.
        observer: Told of each request to the model and its answer (tracing); ``None``: none.
        on_text: Given the answer's text as it streams (see Streaming); ``None``: requests are
            not streamed.
    """

    declaration: ThinkerDeclaration
    messages: Sequence[Message]
    catalog: ModelCatalog | None = None
    system: str = ""
    tools: ToolRegistry | None = None
    output_type: type[AnswerT] | Any = str
    pin: str | None = None
    tool_choice: ToolChoice = "auto"
    correction: ResponseCorrection | None = None
    client: ModelClient | None = None
    observer: RunObserver | None = None
    on_text: Callable[[str], None] | None = None
    #: The text passed to ``on_text`` in the last run, in order (see Streaming).
    shown: str = field(default="", init=False)
    #: The refused answers and correction turns of the last run (see the class docstring).
    turns: list[Message] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        # Its own copy: a list the caller goes on changing is not the conversation sent.
        self.messages = tuple(self.messages)

    def seat(self) -> ModelEntry:
        """The catalog entry this exchange is seated on (the pin beats the grade)."""
        return self._catalog().resolve(self.declaration, self.pin)

    def _catalog(self) -> ModelCatalog:
        if self.catalog is None:
            self.catalog = ModelCatalog.discover()
        return self.catalog

    async def run(self) -> ThinkingResponse[AnswerT]:
        """Run the exchange to an accepted answer.

        Raises:
            ResponseParseError: The answer could not be parsed within the correction budget.
            ResponseValidationError: The answer did not fit the declared type within it.
            ModelError: The provider failed (rate limit, server error, connection), or the
                seat's deadline passed (`ModelConnectionError`).
            ModelNotConfigured: No seat, SDK or key.
        """
        seat = self.seat()
        self.turns = []
        self.shown = ""
        # Made before the deadline starts: importing an SDK is not the server's time.
        client = self.client if self.client is not None else self._catalog().client_for(seat)
        if seat.deadline is None:
            return await self._run(seat, client)
        try:
            async with asyncio.timeout(seat.deadline) as bound:
                return await self._run(seat, client)
        except TimeoutError as exc:
            if not bound.expired():
                raise
            raise ModelConnectionError(
                f"no answer within the deadline of {seat.deadline:g} s for one exchange "
                "(the deadline setting of the model entry, or --deadline)",
                provider=seat.provider,
            ) from exc

    async def _run(self, seat: ModelEntry, client: ModelClient) -> ThinkingResponse[AnswerT]:
        handler: ThinkingResponseHandler[AnswerT] = ThinkingResponseHandler(
            self.output_type, tools=self.tools, native_tools=seat.native_tools
        )
        specs = tuple(self.tools.specs()) if self.tools is not None else ()
        system = self.system
        if not seat.native_tools:
            section = envelope_instructions(specs, handler.answer_schema)
            system = f"{system}\n\n{section}" if system else section
            specs = ()
        budget = min(self.declaration.answer_tokens, seat.max_output_tokens)
        conversation = list(self.messages)
        turns = self.turns
        corrector = self.correction or ResponseCorrection()
        usage = Usage()
        corrections = escalations = 0
        tool_choice = self.tool_choice if specs else "auto"
        streamed = (
            _Shown(self.on_text)
            if self.on_text is not None and seat.native_tools and self.output_type is str
            else None
        )
        while True:
            request = ModelRequest(
                model=seat.model,
                system=system,
                messages=tuple(conversation),
                tools=specs,
                tool_choice=tool_choice,
                max_tokens=budget,
            )
            # Any client's answer, in a shape the handler, the conversation and the next request
            # can rely on: a malformed tool use is refused for that call, never for the run.
            try:
                answered = await (
                    _send(client, seat, request, streamed)
                    if self.observer is None
                    else self._observed(self.observer, client, seat, request, streamed)
                )
            except (ModelRequestRejected, ModelServerError) as refused:
                raise _with_context_hint(refused, seat) from refused
            finally:
                if streamed is not None:
                    self.shown = streamed.text
            response = well_formed(answered)
            usage = usage + response.usage
            if response.stop_reason is StopReason.MAX_TOKENS and budget < seat.max_output_tokens:
                budget = min(budget * 2, seat.max_output_tokens)
                escalations += 1
                continue
            empty = _said_nothing(response)
            if empty and tool_choice == "auto" and specs:
                # Some servers drop the text a model writes while tools are offered
                # (llama-cpp-python's chatml-function-calling answers "" to every such request
                # the model answers in text): asked again at once, the tools kept but not
                # callable, so that the model's text comes through.
                tool_choice = "none"
                logger.warning(
                    "%s answered nothing (no text, no tool call) with tools offered; asked "
                    "again with tool_choice none, so that it answers in text",
                    seat.id,
                )
                continue
            try:
                result = handler.handle(response)
            except AnswerRefused as refusal:
                if corrections >= corrector.budget:
                    turns.append(_replayable(response))
                    raise _exhausted(refusal, attempts=corrections + 1, empty=empty) from refusal
                corrections += 1
                answer, correction = _replayable(response), corrector.turn(response, refusal)
                conversation += (answer, correction)
                turns += (answer, correction)
                continue
            return replace(
                result,
                turns=(*turns, response.as_message()),
                usage=usage,
                seat=seat,
                corrections=corrections,
                escalations=escalations,
            )

    async def _observed(
        self,
        observer: RunObserver,
        client: ModelClient,
        seat: ModelEntry,
        request: ModelRequest,
        streamed: _Shown | None,
    ) -> ModelResponse:
        """One request, told to ``observer``: sent, then answered (well formed) or failed."""
        chat = observer.chat_started(seat, request)
        try:
            response = well_formed(await _send(client, seat, request, streamed))
        except BaseException as exc:
            chat.failed(exc)
            raise
        chat.answered(response)
        return response


async def _send(
    client: ModelClient, seat: ModelEntry, request: ModelRequest, streamed: _Shown | None
) -> ModelResponse:
    """One request: completed, or streamed with its text passed on through ``streamed``."""
    if streamed is None:
        return await client.complete(request)
    streamed.attempt()
    events = client.stream(request)
    try:
        # The adapters retry a stream only before its first event: a retry repeats no text.
        async for event in events:
            if isinstance(event, TextDelta):
                streamed.add(event.text)
            elif isinstance(event, ResponseComplete):
                return event.response
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:  # an async generator: its connection is released now
            await close()
    raise ModelResponseMalformed(
        "the model's stream ended without its final response (the server closed it early)",
        provider=seat.provider,
    )


def _replayable(response: ModelResponse) -> Message:
    """The refused answer as a turn a provider accepts back: never an empty one."""
    message = response.as_message()
    if any(not isinstance(block, TextBlock) or block.text for block in message.content):
        return message
    return Message(role="assistant", content=(TextBlock(text="(empty reply)"),))


def _said_nothing(response: ModelResponse) -> bool:
    """Whether ``response`` holds neither text (beyond whitespace) nor a tool use."""
    return not response.text.strip() and not response.tool_uses


def _exhausted(refusal: AnswerRefused, *, attempts: int, empty: bool = False) -> Exception:
    detail = "; ".join(refusal.problems) or str(refusal)
    if empty:
        detail = (
            "the model answered nothing (no text and no tool call; the server may drop the "
            f"text it generated: see docs/models.md, Running on a local model): {detail}"
        )
    if refusal.kind == "parse":
        return ResponseParseError(
            f"The model's answer could not be parsed after {attempts} attempt(s): {detail}",
            attempts=attempts,
        )
    return ResponseValidationError(
        f"The model's answer did not fit the declared type after {attempts} attempt(s): {detail}",
        attempts=attempts,
    )
