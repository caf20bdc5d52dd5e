"""The JSON objects of neutral blocks whose form is the same wherever one is written down.

A tool result reads the same on Anthropic's wire (a ``tool_result`` content block) and in the
conversation store's records (`nucleo_core.conversations.message_codec`): one function writes it
for both.
"""

from __future__ import annotations

from typing import Any

from nucleo_core.models.messages import ToolResultBlock

__all__ = ["tool_result_data"]


def tool_result_data(block: ToolResultBlock) -> dict[str, Any]:
    """``block`` as a ``tool_result`` object: its call's id, its text, and whether it failed."""
    return {
        "type": "tool_result",
        "tool_use_id": block.tool_use_id,
        "content": block.content,
        "is_error": block.is_error,
    }
