"""Reading a Messages API reply into a `ModelResponse`, field by field.

The SDK builds replies leniently and does not validate them, so a reply missing what a
conversation needs is `ModelResponseMalformed`, not an ``AttributeError`` three layers up.
Anthropic's server-tool blocks (its tool search's) are kept as `ProviderBlock`s, to be sent back.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, cast

from nucleo_core.models._anthropic_errors import malformed
from nucleo_core.models._anthropic_names import PROVIDER
from nucleo_core.models._json_depth import MAX_JSON_DEPTH, loads_cut, tool_input
from nucleo_core.models.messages import (
    ContentBlock,
    ProviderBlock,
    ReasoningBlock,
    StopReason,
    TextBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.models.request import ModelResponse

if TYPE_CHECKING:
    from anthropic import AsyncAPIResponse
    from anthropic.types import Message as WireMessage

__all__ = ["parse_reply", "to_response"]

_STOP_REASONS: Final[Mapping[str, StopReason]] = {
    "end_turn": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
}

# The adapter's own logger (its name from before the adapter was split into modules).
_log = logging.getLogger("nucleo_core.models.anthropic")

#: How deep a Messages API body nests above a tool use's input (message, content list, block):
#: a body is cut past the depth limit plus these levels, so every input keeps its own limit.
_BODY_LEVELS: Final = 3


async def parse_reply(raw: AsyncAPIResponse[WireMessage]) -> object:
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
        raise malformed(f"expected a message object, got {type(data).__name__}")
    return WireMessage.construct(**data)


def to_response(reply: object) -> ModelResponse:
    """Read a Messages API reply (as the SDK built it, unvalidated) into a `ModelResponse`.

    Raises:
        ModelResponseMalformed: The reply lacks a field a conversation needs, or holds one of
            the wrong type.
    """
    from anthropic.types import Message as WireMessage

    # The SDK hands back the body's text or list as they are when it is not a JSON object.
    if not isinstance(reply, WireMessage):
        raise malformed(f"expected a message object, got {type(reply).__name__}")
    blocks = getattr(reply, "content", None)
    if not isinstance(blocks, list):
        raise malformed("the message has no 'content' list")
    raw_stop = getattr(reply, "stop_reason", None)
    if not isinstance(raw_stop, str):
        raise malformed("the message has no 'stop_reason'")
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
        raise malformed(f"content[{index}] has no 'type'")
    if kind == "server_tool_use" or kind.endswith("_tool_result"):
        # A server tool's call and result (the tool search's, above all): Anthropic ran it;
        # kept to be sent back, since its result is what keeps the tools it found loaded.
        return ProviderBlock(provider=PROVIDER, data=_server_block(item, index))
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
        raise malformed(f"content[{index}] is not an object")
    return cast("dict[str, object]", data)


def _string(item: object, field: str, index: int) -> str:
    value = getattr(item, field, None)
    if not isinstance(value, str):
        kind = getattr(item, "type", "?")
        raise malformed(f"content[{index}] ({kind}) has no string '{field}'")
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
            raise malformed(f"usage.{field} is not an integer")
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
