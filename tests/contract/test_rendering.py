"""Rendering specs as each model provider's tool definitions, byte-stable across processes."""

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from _sample_tools import SearchResult, rendered_bytes, sample_registry

from nucleo_core import ToolSpec, render_tools, to_anthropic, to_mcp, to_openai
from nucleo_core.tools import ToolFormat

SAMPLE_TOOLS = Path(__file__).with_name("_sample_tools.py")


@pytest.fixture
def specs() -> list[ToolSpec]:
    """The specs of the sample registry, in its order."""
    return sample_registry().specs()


def test_anthropic_definitions_are_name_description_and_input_schema(
    specs: list[ToolSpec],
) -> None:
    """Each Anthropic tool is exactly {name, description, input_schema}, in registry order."""
    rendered = to_anthropic(specs)
    assert [entry["name"] for entry in rendered] == [spec.name for spec in specs]
    for entry, spec in zip(rendered, specs, strict=True):
        assert entry == {
            "name": spec.name,
            "description": spec.description,
            "input_schema": spec.input_schema,
        }
        assert list(entry) == ["name", "description", "input_schema"]


def test_openai_definitions_are_typed_functions_with_parameters(specs: list[ToolSpec]) -> None:
    """Each OpenAI tool is {type: function, function: {name, description, parameters}}."""
    rendered = to_openai(specs)
    for entry, spec in zip(rendered, specs, strict=True):
        assert entry == {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            },
        }


def test_mcp_definitions_carry_title_schemas_and_read_only_hint(specs: list[ToolSpec]) -> None:
    """MCP tools carry title, schemas (outputSchema only when there is one) and readOnlyHint."""
    rendered = {entry["name"]: entry for entry in to_mcp(specs)}
    search = rendered["search"]
    assert search == {
        "name": "search",
        "title": "Search the workspace",
        "description": "Search the workspace for text.",
        "inputSchema": search["inputSchema"],
        "outputSchema": SearchResult.model_json_schema(mode="serialization"),
        "annotations": {"readOnlyHint": True},
    }
    note = rendered["write_note"]
    assert "outputSchema" not in note
    assert note["annotations"] == {"readOnlyHint": False}
    assert note["title"] == "Write note"
    assert note["inputSchema"]["type"] == "object"


def test_a_spec_without_display_name_renders_no_mcp_title() -> None:
    """MCP's optional title is left out when the spec has no display name."""
    spec = ToolSpec(name="bare", description="Bare.", input_schema={"type": "object"})
    assert to_mcp([spec]) == [
        {
            "name": "bare",
            "description": "Bare.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": False},
        }
    ]


@pytest.mark.parametrize(
    ("fmt", "renderer"), [("anthropic", to_anthropic), ("openai", to_openai), ("mcp", to_mcp)]
)
def test_render_tools_dispatches_to_the_named_format(
    specs: list[ToolSpec],
    fmt: ToolFormat,
    renderer: Callable[[Iterable[ToolSpec]], list[dict[str, Any]]],
) -> None:
    """render_tools(specs, fmt) equals the format's own renderer."""
    assert render_tools(specs, fmt) == renderer(specs)


def test_rendered_definitions_are_fresh_at_the_top_level(specs: list[ToolSpec]) -> None:
    """Adding a cache marker to one rendering does not leak into the next rendering."""
    first = to_anthropic(specs)
    first[-1]["cache_control"] = {"type": "ephemeral"}
    assert "cache_control" not in to_anthropic(specs)[-1]


def test_rendering_is_repeatable_in_one_process() -> None:
    """Two renderings of two equal registries are the same bytes."""
    assert rendered_bytes() == rendered_bytes()


def _render_in_fresh_interpreter(hash_seed: str) -> str:
    environment = {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(SAMPLE_TOOLS.parent), os.environ.get("PYTHONPATH")])
        ),
    }
    completed = subprocess.run(
        [sys.executable, str(SAMPLE_TOOLS)],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
        timeout=120,
    )
    return completed.stdout


def test_the_same_registry_renders_to_identical_bytes_in_separate_processes() -> None:
    """Fresh interpreters with different hash seeds render the same definitions byte for byte."""
    first = _render_in_fresh_interpreter("1")
    second = _render_in_fresh_interpreter("4242")
    assert first == second
    assert first.strip() == rendered_bytes()
    assert set(json.loads(first)) == {"anthropic", "openai", "mcp"}
