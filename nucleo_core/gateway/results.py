"""What a gateway client gets back from a call: the outcome as an MCP ``CallToolResult``.

An upstream MCP tool's result passes through faithfully: its content blocks as the server sent
them (text, images, audio, embedded resources, resource links), its ``structuredContent`` (kept
where the tool declares an output schema, which the client is shown too) and its ``isError``.
Anything else — a refusal at the door, a denial, an input error, a timeout, a server that died
— is an error result whose text is what a model would read: it names the field, the type or
the reason, and never echoes what was sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.mcp.result import MCPToolResult

if TYPE_CHECKING:
    import mcp_types

    from nucleo_core.thinking.execution import CallOutcome

__all__ = ["call_result", "error_result"]


def error_result(text: str) -> mcp_types.CallToolResult:
    """An error result holding ``text`` (written for the client's model)."""
    import mcp_types

    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=text)], is_error=True
    )


def call_result(outcome: CallOutcome) -> mcp_types.CallToolResult:
    """The MCP result of one call's outcome (see the module)."""
    import mcp_types

    output = outcome.output
    result = outcome.result
    if isinstance(output, MCPToolResult) and output.blocks:
        wire: dict[str, Any] = {"content": list(output.blocks), "isError": output.is_error}
        if output.structured is not None:
            wire["structuredContent"] = dict(output.structured)
        return mcp_types.CallToolResult.model_validate(wire)
    text = result.content if isinstance(result.content, str) else str(result.content)
    structured = _structured(output) if not result.is_error else None
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=text)] if text else [],
        structured_content=structured,
        is_error=bool(result.is_error),
    )


def _structured(output: object) -> dict[str, Any] | None:
    """A native tool's output as structured content, when it is an object."""
    if isinstance(output, MCPToolResult):
        return dict(output.structured) if output.structured is not None else None
    if isinstance(output, Mapping):
        return dict(output)
    dump = getattr(output, "model_dump", None)
    if callable(dump):
        dumped = dump(mode="json")
        return dict(dumped) if isinstance(dumped, Mapping) else None
    return None
