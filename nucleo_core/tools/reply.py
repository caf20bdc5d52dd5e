"""`ToolReply`: an output that says itself what the model reads of it, and whether it failed.

Most tools return a value, rendered as text for the model (`render_output`), and fail by
raising. Some outputs are results in their own right: an MCP tool's `MCPToolResult` holds the
text the model reads and the server's ``isError``. Such an output has a ``tool_reply`` method;
the thinker's tool execution takes the result block's text and its ``is_error`` flag from it,
so an error result reaches the model marked as one, which it can correct.
"""

from __future__ import annotations

from typing import Protocol, TypeGuard

__all__ = ["ToolReply", "is_reply"]


class ToolReply(Protocol):
    """An output that renders itself as a tool result."""

    def tool_reply(self) -> tuple[str, bool]:
        """The text the model reads, and whether the call failed (an error result)."""
        ...


def is_reply(output: object) -> TypeGuard[ToolReply]:
    """Whether ``output`` is a `ToolReply` (its class has a ``tool_reply`` method)."""
    return callable(getattr(type(output), "tool_reply", None))
