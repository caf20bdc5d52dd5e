"""Render neutral `ToolSpec`s into the tool definitions each model provider expects.

The output is built only from the specs, in their order, with no set iteration and no
per-process state, so one registry renders to the same bytes in every process and every run.
The returned dicts are fresh at the top level (an adapter may add a cache marker to one);
the schemas inside are shared with the specs and must not be mutated.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from nucleo_core.tools.spec import ToolSpec

__all__ = ["ToolFormat", "render_tools", "to_anthropic", "to_mcp", "to_openai"]

ToolFormat = Literal["anthropic", "openai", "mcp"]


def to_anthropic(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Anthropic Messages ``tools``: ``{"name", "description", "input_schema"}``."""
    return [
        {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema}
        for spec in specs
    ]


def to_openai(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """OpenAI chat-completions ``tools``: ``{"type": "function", "function": {...}}``."""
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            },
        }
        for spec in specs
    ]


def to_mcp(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """MCP ``tools/list`` entries: name, title, description, schemas, ``readOnlyHint``."""
    rendered: list[dict[str, Any]] = []
    for spec in specs:
        entry: dict[str, Any] = {"name": spec.name}
        if spec.display_name:
            entry["title"] = spec.display_name
        entry["description"] = spec.description
        entry["inputSchema"] = spec.input_schema
        if spec.output_schema is not None:
            entry["outputSchema"] = spec.output_schema
        entry["annotations"] = {"readOnlyHint": spec.read_only}
        rendered.append(entry)
    return rendered


_RENDERERS = {"anthropic": to_anthropic, "openai": to_openai, "mcp": to_mcp}


def render_tools(specs: Iterable[ToolSpec], format: ToolFormat) -> list[dict[str, Any]]:
    """Render ``specs`` in ``format`` (``"anthropic"``, ``"openai"`` or ``"mcp"``).

    Raises:
        ValueError: ``format`` is not one of the three.
    """
    renderer = _RENDERERS.get(format)
    if renderer is None:
        raise ValueError(f"unknown tool format; expected one of {', '.join(_RENDERERS)}")
    return renderer(specs)
