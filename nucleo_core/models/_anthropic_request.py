"""The Messages API call an Anthropic model is sent for a `ModelRequest`.

The system text and the loaded tools carry prompt-cache breakpoints; deferred tools go after
Anthropic's tool search tool (`TOOL_SEARCH_TOOL`), marked ``defer_loading``; reasoning goes back
only where Anthropic can verify it (see `nucleo_core.models.anthropic`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, TypedDict, cast

from nucleo_core.models._anthropic_names import PROVIDER
from nucleo_core.models._block_data import tool_result_data
from nucleo_core.models._json_depth import exceeds, loads
from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    ProviderBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.models.request import ModelRequest
from nucleo_core.tools.render import to_anthropic

if TYPE_CHECKING:
    from anthropic import Omit
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        TextBlockParam,
        ToolChoiceParam,
        ToolParam,
    )

__all__ = ["TOOL_SEARCH_TOOL", "WireRequest", "to_wire"]

#: The server tool sent ahead of deferred tools: Anthropic's BM25 tool search (2025-11-19).
TOOL_SEARCH_TOOL: Final[Mapping[str, str]] = {
    "type": "tool_search_tool_bm25_20251119",
    "name": "tool_search_tool_bm25",
}


class WireRequest(TypedDict):
    """The keyword arguments of one Messages API call, typed as the SDK expects them."""

    model: str
    max_tokens: int
    messages: list[MessageParam]
    system: list[TextBlockParam] | Omit
    tools: list[ToolParam] | Omit
    tool_choice: ToolChoiceParam | Omit
    stop_sequences: list[str] | Omit
    extra_body: dict[str, object] | None


def to_wire(request: ModelRequest) -> WireRequest:
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

    return WireRequest(
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
        if block.provider != PROVIDER:
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
