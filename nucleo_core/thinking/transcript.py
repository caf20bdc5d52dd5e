"""Transcripts: a run's conversation as text, every message, tool call and result in order."""

from __future__ import annotations

from collections.abc import Iterable

from nucleo_core.models._json_depth import render, tool_input
from nucleo_core.models.messages import (
    Message,
    ProviderBlock,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)

__all__ = ["render_transcript"]


def render_transcript(messages: Iterable[Message]) -> str:
    """The conversation as plain text, one block per line group, in order.

    Never raises on what a model sent: a tool input nested deeper than `MAX_JSON_DEPTH` is
    shown in its bounded cut form (its beginning, then ``…``), and a value JSON cannot hold as
    its ``str``.

    Example::

        [user] What is the weather in Lisbon?
        [assistant] tool_use toolu_1 forecast {"city": "Lisbon"}
        [user] tool_result toolu_1: Sunny, 24 °C
        [assistant] It is sunny and 24 °C in Lisbon.
    """
    lines: list[str] = []
    for message in messages:
        for block in message.content:
            lines.append(f"[{message.role}] {_block(block)}")
    return "\n".join(lines)


def _block(block: object) -> str:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ToolUseBlock):
        given = block.input
        shown = tool_input(given) if isinstance(given, str) else render(given, ascii_only=True)
        return f"tool_use {block.id} {block.name} {shown}"
    if isinstance(block, ToolResultBlock):
        marker = " (error)" if block.is_error else ""
        return f"tool_result {block.tool_use_id}{marker}: {block.content}"
    if isinstance(block, ReasoningBlock):
        return "reasoning (redacted)" if block.redacted else f"reasoning: {block.text}"
    if isinstance(block, ProviderBlock):
        return f"{block.provider} {block.kind}: {render(block.data, ascii_only=True)}"
    return repr(block)
