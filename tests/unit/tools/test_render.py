"""Unit tests of `render_tools` and the three renderers."""

import pytest

from nucleo_core import Risk, ToolSpec, render_tools, to_anthropic, to_mcp, to_openai

SPEC = ToolSpec(
    name="lookup",
    description="Look something up.",
    input_schema={"type": "object", "properties": {"key": {"type": "string"}}},
    output_schema={"type": "object", "properties": {"value": {"type": "string"}}},
    display_name="Look up",
    read_only=True,
    risk=Risk.LOW,
    source="native:lookup",
)


@pytest.mark.parametrize("fmt", ["gemini", "Anthropic", "", "mcp "])
def test_render_tools_rejects_an_unknown_format(fmt: str) -> None:
    """Any format but anthropic, openai and mcp is a ValueError naming the three."""
    with pytest.raises(ValueError, match="anthropic, openai, mcp"):
        render_tools([SPEC], fmt)  # type: ignore[arg-type]


def test_an_empty_spec_list_renders_empty() -> None:
    """No specs, no definitions, in every format."""
    assert to_anthropic([]) == to_openai([]) == to_mcp([]) == []


def test_renderers_accept_any_iterable_of_specs() -> None:
    """A generator of specs renders like a list."""
    assert to_anthropic(spec for spec in [SPEC]) == to_anthropic([SPEC])
    assert render_tools(iter([SPEC]), "mcp") == to_mcp([SPEC])


def test_risk_and_source_stay_out_of_every_rendering() -> None:
    """Risk and source are for policy and records, never shown to the model."""
    for rendered in (to_anthropic([SPEC]), to_openai([SPEC]), to_mcp([SPEC])):
        text = repr(rendered)
        assert "native:lookup" not in text
        assert "'risk'" not in text


def test_the_rendered_schemas_are_the_spec_schemas() -> None:
    """Renderers pass the published schema through rather than rewriting it."""
    assert to_anthropic([SPEC])[0]["input_schema"] is SPEC.input_schema
    assert to_openai([SPEC])[0]["function"]["parameters"] is SPEC.input_schema
    assert to_mcp([SPEC])[0]["inputSchema"] is SPEC.input_schema
    assert to_mcp([SPEC])[0]["outputSchema"] is SPEC.output_schema
