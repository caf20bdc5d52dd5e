"""What a gateway client is shown of a tool: its MCP definition, hints from nucleo's declarations.

The annotations are set from what nucleo *declares* of the tool (its read-only binding and its
risk, as configured), never passed through from the server that published it: the MCP
specification says hints from untrusted servers must not be relied on, and a client that shows
"read-only" to its user must be able to trust it. ``readOnlyHint`` is the declared read-only;
``destructiveHint`` is set for a mutating tool whose risk is high or undeclared (undeclared
counts as high).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nucleo_core.tools.risk import Risk

if TYPE_CHECKING:
    import mcp_types

    from nucleo_core.tools.provider import ToolProvider

__all__ = ["declared_annotations", "tool_definition"]


def declared_annotations(provider: ToolProvider) -> dict[str, bool]:
    """The hints nucleo declares for ``provider``: ``readOnlyHint`` and ``destructiveHint``."""
    read_only = bool(provider.read_only)
    destructive = not read_only and (not provider.risk_declared or provider.risk is Risk.HIGH)
    return {"readOnlyHint": read_only, "destructiveHint": destructive}


def tool_definition(provider: ToolProvider) -> mcp_types.Tool:
    """``provider`` as an MCP ``Tool``: name, description, schemas and declared hints."""
    import mcp_types

    definition: dict[str, Any] = {
        "name": provider.name,
        "description": provider.description,
        "inputSchema": dict(provider.input_schema),
        "annotations": declared_annotations(provider),
    }
    output = provider.output_schema
    if output is not None:
        definition["outputSchema"] = dict(output)
    return mcp_types.Tool.model_validate(definition)
