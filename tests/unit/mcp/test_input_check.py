"""The quick check of an MCP tool's input never says yes where jsonschema says no.

``jsonschema`` is the authority on a published schema; the quick check only saves its walk for
inputs that are certainly valid. Properties over random schemas of the covered kind and random
JSON values: a quick yes implies jsonschema's yes (soundness), and for the covered kind the two
agree exactly (so the quick path is taken wherever it can be); through `MCPToolProvider`,
``parse_input`` accepts exactly what jsonschema accepts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from nucleo_core import InvalidToolInput
from nucleo_core.mcp import MCPServerConfig, MCPToolProvider, MCPToolResult
from nucleo_core.mcp._input_check import quick_check

NAMES = ["a", "b", "c"]
TYPES = ["string", "integer", "number", "boolean", "null", "object", "array"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-5, max_value=5)
    | st.floats(min_value=-5, max_value=5)
    | st.sampled_from([0.0, 1.0, -1.0, 2.5, float("nan"), float("inf")])
    | st.text(alphabet="ab", max_size=4),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from([*NAMES, "d"]), children, max_size=3)
    ),
    max_leaves=8,
)
strings = st.text(alphabet="ab", max_size=3)
bounds = st.integers(min_value=-3, max_value=3) | st.sampled_from([0.5, -1.5, 2.0])


def covered_schemas() -> st.SearchStrategy[dict[str, Any]]:
    """Schemas whose every keyword the quick check covers."""

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        keywords: dict[str, st.SearchStrategy[Any]] = {
            "type": st.sampled_from(TYPES)
            | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True),
            "properties": st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
            "required": st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
            "additionalProperties": st.booleans() | children,
            "items": children,
            "enum": st.lists(strings | st.none(), min_size=1, max_size=3),
            "const": strings | st.none(),
            "minLength": st.integers(min_value=0, max_value=3),
            "maxLength": st.integers(min_value=0, max_value=3),
            "minimum": bounds,
            "maximum": bounds,
            "exclusiveMinimum": bounds,
            "exclusiveMaximum": bounds,
            "minItems": st.integers(min_value=0, max_value=3),
            "maxItems": st.integers(min_value=0, max_value=3),
            "title": st.just("A title"),
            "format": st.sampled_from(["uri", "date-time", "email"]),
        }
        return st.fixed_dictionaries({}, optional=keywords)

    leaf = st.fixed_dictionaries(
        {}, optional={"type": st.sampled_from(TYPES), "minLength": st.integers(0, 2)}
    )
    return st.recursive(leaf, lambda children: extend(children | st.just(True)), max_leaves=6)


def valid(schema: Mapping[str, Any], value: object) -> bool:
    return Draft202012Validator(schema).is_valid(value)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(covered_schemas(), json_values)
def test_a_quick_yes_is_jsonschemas_yes_and_they_agree_on_covered_schemas(
    schema: dict[str, Any], value: object
) -> None:
    check = quick_check(schema)
    assert check is not None, f"the schema should be covered: {schema}"
    assert check(value) == valid(schema, value), (schema, value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(covered_schemas(), json_values)
def test_parse_input_accepts_exactly_what_jsonschema_accepts(
    schema: dict[str, Any], value: object
) -> None:
    schema = {**schema, "type": "object"}  # MCP input schemas describe objects
    provider = provider_for(schema)
    text = json.dumps(value)
    if valid(schema, json.loads(text)):
        assert provider.parse_input(text) == json.loads(text)
    else:
        with pytest.raises(InvalidToolInput):
            provider.parse_input(text)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}},
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}},
        {"enum": [1, 2]},  # Python's 1 == True is not JSON's equality
        {"const": 1.0},
        {"items": [{"type": "string"}]},  # an array of schemas: not 2020-12's items
        {"minLength": -1},
        {"minimum": "1"},
        {"type": "text"},
        {"properties": {"a": False}},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},
        {"type": "object", "properties": {"a": {"$schema": "x"}}},
        {"required": "a"},
    ],
)
def test_schemas_outside_the_covered_kind_get_no_quick_check(schema: dict[str, Any]) -> None:
    assert quick_check(schema) is None


def test_a_schema_is_interpreted_never_evaluated() -> None:
    """Property names and values from a server are data: nothing of them is run."""
    name = "__import__('os')._exit(3)"
    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "enum": ["'); import os; os._exit(4) #"]}},
        "required": [name],
    }
    check = quick_check(schema)
    assert check is not None
    assert check({name: "'); import os; os._exit(4) #"})
    assert not check({name: "other"})
    assert not check({})


class _Unused:
    """Stands where the pool would: parse_input never reaches it."""

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,
        structured: bool = False,
    ) -> MCPToolResult:
        raise AssertionError("parse_input must not call the server")


def provider_for(schema: Mapping[str, Any]) -> MCPToolProvider:
    config = MCPServerConfig(name="s", command="server")
    descriptor = {"name": "t", "description": "A tool.", "inputSchema": dict(schema)}
    return MCPToolProvider.from_descriptor(config, descriptor, _Unused())


def test_a_missing_field_declared_by_a_boolean_schema_is_named_in_the_error() -> None:
    """``"a": true`` (anything goes) still makes a clear error when ``a`` is required."""
    provider = provider_for({"type": "object", "properties": {"a": True}, "required": ["a"]})
    with pytest.raises(InvalidToolInput) as raised:
        provider.parse_input("{}")
    assert "a: is required (declared type: a value matching the schema)" in str(raised.value)
