"""Reading a chat completion: its message, tool calls, stop reason and usage, in neutral terms.

How an answer is read (reasoning, refusals, tool call arguments, ``finish_reason``) is told in
`nucleo_core.models.openai`'s docstring. The SDK builds its replies without validating them, so
every field is checked as it is read (`nucleo_core.models._lenient`), and a reply that lacks
what an answer needs raises `ModelResponseMalformed`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from nucleo_core.models._json_depth import MAX_JSON_DEPTH, JSONTooDeep, loads, loads_cut, tool_input
from nucleo_core.models._lenient import count_of, field_of, text_of
from nucleo_core.models.messages import (
    ContentBlock,
    ReasoningBlock,
    StopReason,
    TextBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.models.request import ModelResponse

if TYPE_CHECKING:
    from openai._legacy_response import LegacyAPIResponse  # what with_raw_response returns

    from nucleo_core.errors import ModelResponseMalformed

__all__ = [
    "BODY_LEVELS",
    "Answer",
    "ToolCallDraft",
    "assemble",
    "parse_reply",
    "read_completion",
    "reasoning_text",
]

_FINISH_REASONS: Mapping[str, StopReason] = {
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.REFUSAL,
}

#: How deep a chat completion nests above a call's arguments (choices, choice, message,
#: tool_calls, call, function, and the body itself): a body is cut past the depth limit plus
#: these levels, so that every argument object keeps its own limit.
BODY_LEVELS = 7


@dataclass(slots=True)
class ToolCallDraft:
    """One tool call as it is gathered: whole from a completion, in fragments from a stream."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    decoded: Mapping[str, Any] | None = None


@dataclass(slots=True)
class Answer:
    """The parts of one answer, before they are checked and put in neutral terms."""

    reasoning: str
    text: str
    refusal: str
    tool_calls: list[ToolCallDraft]
    finish_reason: object
    model: object
    usage: object


def read_completion(
    reply: object, fallback_model: str, malformed: Callable[[str], ModelResponseMalformed]
) -> ModelResponse:
    """A chat completion as a `ModelResponse`; ``malformed`` makes the error for what it lacks."""
    if isinstance(reply, str):
        # The SDK hands back the text when the reply was not declared as JSON.
        raise malformed("the reply is not JSON")
    choices = field_of(reply, "choices")
    if not isinstance(choices, list) or not choices:
        raise malformed("the reply has no choices")
    choice = choices[0]
    message = field_of(choice, "message")
    if message is None:
        raise malformed("the reply's first choice has no message")
    calls = field_of(message, "tool_calls")
    tool_calls: list[ToolCallDraft] = []
    if isinstance(calls, list):
        tool_calls = [_tool_call_draft(call) for call in calls]
    legacy_call = field_of(message, "function_call")
    if not tool_calls and legacy_call is not None:
        # The deprecated single `function_call` has no id; one is minted below.
        tool_calls = [_tool_call_draft({"function": legacy_call})]
    answer = Answer(
        reasoning=reasoning_text(message),
        text=text_of(field_of(message, "content")),
        refusal=text_of(field_of(message, "refusal")),
        tool_calls=tool_calls,
        finish_reason=field_of(choice, "finish_reason"),
        model=field_of(reply, "model"),
        usage=field_of(reply, "usage"),
    )
    return assemble(answer, fallback_model)


def assemble(answer: Answer, fallback_model: str) -> ModelResponse:
    """An answer, whole or gathered from a stream, in neutral terms."""
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


def _tool_call_draft(call: object) -> ToolCallDraft:
    function = field_of(call, "function")
    if function is None:
        # A custom (free-form) tool call carries its input as plain text.
        function = field_of(call, "custom")
        arguments = field_of(function, "input")
    else:
        arguments = field_of(function, "arguments")
    return ToolCallDraft(
        id=text_of(field_of(call, "id")),
        name=text_of(field_of(function, "name")),
        arguments=[arguments] if isinstance(arguments, str) else [],
        decoded=arguments if isinstance(arguments, Mapping) else None,
    )


def reasoning_text(message: object) -> str:
    """The reasoning a server added to a message or delta, under either name in use."""
    for name in ("reasoning_content", "reasoning"):
        text = field_of(message, name)
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


def parse_reply(raw: LegacyAPIResponse[Any]) -> object:
    """The reply the SDK parses from ``raw``; read here when its JSON nests too deep for it.

    A body nesting deeper than Python's JSON decoding can recurse makes the SDK raise
    ``RecursionError``. The body is then decoded with every container past the depth limit
    replaced by a marker, so the rest of the reply is read as usual and a too-deep argument
    object becomes its cut form for the response handler to refuse (`tool_input`).
    """
    try:
        return raw.parse()
    except RecursionError:
        return loads_cut(raw.text, MAX_JSON_DEPTH + BODY_LEVELS)


def _usage(usage: object) -> Usage:
    if usage is None:
        return Usage()
    prompt_details = field_of(usage, "prompt_tokens_details")
    completion_details = field_of(usage, "completion_tokens_details")
    extra: dict[str, Any] = {}
    reasoning_tokens = count_of(field_of(completion_details, "reasoning_tokens"))
    if reasoning_tokens:
        extra["reasoning_tokens"] = reasoning_tokens
    return Usage(
        input_tokens=count_of(field_of(usage, "prompt_tokens")),
        output_tokens=count_of(field_of(usage, "completion_tokens")),
        cache_read_tokens=count_of(field_of(prompt_details, "cached_tokens")),
        cache_write_tokens=count_of(field_of(prompt_details, "cache_write_tokens")),
        extra=extra,
    )
