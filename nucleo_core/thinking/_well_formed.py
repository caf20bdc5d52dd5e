"""Whatever a model client answered, made safe to parse, keep, store and send back."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from nucleo_core.models._json_depth import exceeds, overflows, tool_input
from nucleo_core.models.messages import ContentBlock, ToolUseBlock

if TYPE_CHECKING:
    from nucleo_core.models.request import ModelResponse

__all__ = ["well_formed"]


def well_formed(response: ModelResponse) -> ModelResponse:
    """``response`` with every tool use in a shape the rest of nucleo can rely on.

    The adapters shipped with nucleo already answer so; a client of your own, or a scripted
    response, may not. A tool use's name that is not a string becomes ``""``, an id that is not
    a non-empty string is minted, and input that is not an object or text, or that nests
    deeper than `MAX_JSON_DEPTH`, becomes its bounded text form — so the response handler
    refuses that one call correctably, and the answer can be appended to the conversation,
    stored, rendered and sent back without anything recursing into it. ``response`` itself is
    returned when nothing needed changing.
    """
    content: list[ContentBlock] = []
    changed = False
    for block in response.content:
        if isinstance(block, ToolUseBlock):
            fixed = _tool_use(block)
            changed = changed or fixed is not block
            content.append(fixed)
        else:
            content.append(block)
    return replace(response, content=tuple(content)) if changed else response


def _tool_use(block: ToolUseBlock) -> ToolUseBlock:
    name: object = block.name
    call_id: object = block.id
    given: object = block.input
    if isinstance(given, str):
        sound = overflows(given) is None
    else:
        sound = isinstance(given, Mapping) and not exceeds(given)
    if isinstance(name, str) and isinstance(call_id, str) and call_id and sound:
        return block
    return ToolUseBlock(
        id=call_id if isinstance(call_id, str) and call_id else f"call_{uuid.uuid4().hex[:24]}",
        name=name if isinstance(name, str) else "",
        input=block.input if sound else tool_input(given),
    )
