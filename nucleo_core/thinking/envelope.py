"""The JSON envelope protocol, for models without native tool calling."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from nucleo_core.tools.spec import ToolSpec

__all__ = ["envelope_instructions"]


def envelope_instructions(tools: Iterable[ToolSpec], answer_schema: Mapping[str, Any]) -> str:
    """The system-text section that teaches a model the envelope and lists the tools.

    The tool list is written in the registry's stable order, so the prompt prefix stays stable
    across turns exactly as native tool definitions do.
    """
    lines = [
        "Reply with exactly one JSON object and nothing else, with these fields:",
        '- "final_answer": true when you give your answer, false when you call tools;',
        '- "answer": your answer when final_answer is true, matching this JSON schema: '
        + json.dumps(answer_schema, separators=(",", ":")),
        '- "tool_calls": a list of {"name": <tool name>, "input": <object matching the tool\'s '
        "input schema>} when final_answer is false;",
        '- "reasoning": a short explanation of your step.',
    ]
    specs = list(tools)
    if specs:
        lines.append("Tools you may call:")
        for spec in specs:
            schema = json.dumps(spec.input_schema, separators=(",", ":"))
            lines.append(f"- {spec.name}: {spec.description} Input schema: {schema}")
    else:
        lines.append("No tools are available: set final_answer to true.")
    return "\n".join(lines)
