"""`ToolSpec`: the neutral description of a tool that renderers turn into a provider's format."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nucleo_core.tools.risk import Risk

__all__ = ["ToolSpec"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """What a model is shown of one tool, before it is put in any provider's format.

    Attributes:
        name: The name the model calls the tool by.
        description: What the tool does.
        input_schema: The published input schema (after any refiner). Shared: do not mutate.
        output_schema: The output schema, or ``None`` when the output ships as text.
        display_name: The human-readable name (MCP's ``title``).
        read_only: Whether the tool is declared read-only.
        risk: The tool's effective risk.
        source: ``native:<name>`` or ``mcp:<server>:<tool>``.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None
    display_name: str | None = None
    read_only: bool = False
    risk: Risk = Risk.HIGH
    source: str = ""
