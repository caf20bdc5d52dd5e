"""RequestToolsSchemaTest: the catalog as the input schema of ``request_tools`` (seed 000).

The schema is rebuilt per turn from the thinker's reconciled catalog as ``oneOf`` ``const``
entries, each with the member's own description, so the model provider's own validation refuses
a name off the catalog before it can reach admission; the catalog never appears as prompt text.
Two providers are one registry entry (equality by type), so per-turn re-registration replaces.
"""

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from _hub_kit import Deploy, github_issues, lookup, write_record

from nucleo_core import (
    InvalidToolInput,
    Risk,
    ThinkerBase,
    ToolHub,
    ToolProvider,
    ToolRegistry,
    ToolSelector,
    UnknownTool,
    render_tools,
)
from nucleo_core.hub import REQUEST_TOOLS, RequestSkillProvider, RequestToolsProvider
from nucleo_core.tools import provider_for

CATALOG: list[Any] = [lookup, write_record, Deploy]


class Librarian(ThinkerBase):
    """A thinker with a three-tool catalog; its model may be made to see fewer per turn."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of(CATALOG)

    def __init__(self, *, hub: ToolHub, hidden: frozenset[str] = frozenset()) -> None:
        super().__init__(hub=hub)
        self.hidden = set(hidden)

    def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
        return [provider for provider in catalog if provider.name not in self.hidden]


class Toolless(ThinkerBase):
    """A thinker that declares no catalog."""


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub."""
    return ToolHub()


def offered(thinker: ThinkerBase) -> RequestToolsProvider:
    """Assemble the turn's palette and return its request_tools provider."""
    provider = thinker.reconcile_tool_registry().get(REQUEST_TOOLS)
    assert isinstance(provider, RequestToolsProvider)
    return provider


def choices(provider: ToolProvider) -> list[dict[str, Any]]:
    return provider.input_schema["properties"]["tools"]["items"]["oneOf"]  # type: ignore[no-any-return]


# -- the schema ----------------------------------------------------------------------------------


def test_the_meta_tool_is_spelled_in_snake_case() -> None:
    """The tool is request_tools and its one field is tools."""
    provider = RequestToolsProvider([provider_for(lookup)])

    assert REQUEST_TOOLS == "request_tools"
    assert provider.name == "request_tools"
    assert provider.source == "native:request_tools"
    assert list(provider.input_schema["properties"]) == ["tools"]


def test_the_schema_is_the_catalog_as_one_of_const_names(hub: ToolHub) -> None:
    """The input is a non-empty array of names, each a const of the catalog."""
    provider = offered(Librarian(hub=hub))

    assert provider.input_schema == {
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {
                    "oneOf": [
                        {"const": "lookup", "description": "Look a term up in the glossary."},
                        {"const": "write_record", "description": "Write one record to the store."},
                        {"const": "deploy", "description": "Deploy a service to production."},
                    ]
                },
                "minItems": 1,
                "description": provider.input_schema["properties"]["tools"]["description"],
            }
        },
        "required": ["tools"],
        "additionalProperties": False,
    }
    assert provider.members == ("lookup", "write_record", "deploy")


def test_each_member_carries_its_own_tools_description(hub: ToolHub) -> None:
    """A const's description is exactly the description of the tool it names."""
    thinker = Librarian(hub=hub)
    catalog = {provider.name: provider for provider in thinker.tool_catalog()}

    for choice in choices(offered(thinker)):
        assert choice["description"] == catalog[choice["const"]].description


def test_the_schema_is_a_valid_draft_2020_12_schema(hub: ToolHub) -> None:
    """The published schema passes the Draft 2020-12 meta-schema."""
    jsonschema.Draft202012Validator.check_schema(offered(Librarian(hub=hub)).input_schema)


def test_the_catalog_never_appears_as_prompt_text(hub: ToolHub) -> None:
    """Outside the const entries, no catalog name or description is in the tool definition."""
    provider = offered(Librarian(hub=hub))
    (definition,) = render_tools([provider.spec()], "anthropic")
    stripped = copy.deepcopy(definition)
    stripped["input_schema"]["properties"]["tools"]["items"]["oneOf"] = []

    text = json.dumps(stripped)

    for member in CATALOG:
        about = provider_for(member)
        assert about.name not in text
        assert about.description not in text


def test_the_description_is_the_same_whatever_the_catalog() -> None:
    """The tool's description never varies with the catalog: only the schema carries it."""
    small = RequestToolsProvider([provider_for(lookup)])
    large = RequestToolsProvider([provider_for(tool) for tool in [*CATALOG, github_issues]])

    assert small.description == large.description
    assert small.spec().description == large.spec().description


def test_request_tools_declares_low_risk_and_is_not_read_only() -> None:
    """Not read-only (it admits catalog tools), low risk, restricting (narrowed, not removed)."""
    provider = RequestToolsProvider([provider_for(lookup)])

    assert (provider.risk, provider.risk_declared) == (Risk.LOW, True)
    assert provider.read_only is False
    assert provider.restricting is True


# -- rebuilt per turn ----------------------------------------------------------------------------


def test_the_schema_is_rebuilt_each_turn_from_the_reconciled_catalog(hub: ToolHub) -> None:
    """What reconcile_catalog withholds this turn leaves the schema; what it returns comes back."""
    thinker = Librarian(hub=hub)

    assert offered(thinker).members == ("lookup", "write_record", "deploy")
    thinker.hidden = {"deploy", "lookup"}
    assert offered(thinker).members == ("write_record",)
    thinker.hidden = set()
    assert offered(thinker).members == ("lookup", "write_record", "deploy")


def test_a_reconcile_catalog_that_reuses_its_list_still_rebuilds_the_schema(hub: ToolHub) -> None:
    """A narrowing returned in the same list object, changed in place, is this turn's schema."""

    class Reusing(Librarian):
        def __init__(self, *, hub: ToolHub) -> None:
            super().__init__(hub=hub)
            self.visible: list[ToolProvider] = []

        def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
            self.visible[:] = [provider for provider in catalog if provider.name not in self.hidden]
            return self.visible

    thinker = Reusing(hub=hub)
    assert offered(thinker).members == ("lookup", "write_record", "deploy")

    thinker.hidden = {"deploy"}

    assert offered(thinker).members == ("lookup", "write_record")


def test_per_turn_re_registration_replaces_in_place(hub: ToolHub) -> None:
    """Each turn leaves one request_tools entry, at the same place, holding that turn's schema."""
    thinker = Librarian(hub=hub)
    thinker.add_tool(github_issues)
    registry = thinker.reconcile_tool_registry()
    before = registry.names()

    thinker.hidden = {"write_record"}
    registry = thinker.reconcile_tool_registry()

    assert registry.names() == before
    assert registry.names().count(REQUEST_TOOLS) == 1
    assert [c["const"] for c in choices(registry.get(REQUEST_TOOLS))] == ["lookup", "deploy"]  # type: ignore[arg-type]


def test_an_unchanged_catalog_sends_the_same_definitions_every_turn(hub: ToolHub) -> None:
    """Re-assembling with nothing changed leaves every tool definition byte-identical."""
    thinker = Librarian(hub=hub)
    first = json.dumps(render_tools(thinker.reconcile_tool_registry().specs(), "openai"))
    second = json.dumps(render_tools(thinker.reconcile_tool_registry().specs(), "openai"))

    assert first == second


def test_two_request_tools_providers_are_one_registry_entry() -> None:
    """Equality is by type, whatever the catalogs; the later registration's schema wins."""
    narrow = RequestToolsProvider([provider_for(lookup)])
    wide = RequestToolsProvider([provider_for(lookup), provider_for(write_record)])
    registry = ToolRegistry()

    registry.register(narrow)
    registry.register(wide)

    assert narrow == wide
    assert hash(narrow) == hash(wide)
    assert narrow != RequestSkillProvider([])
    assert registry.names() == [REQUEST_TOOLS]
    assert registry.get(REQUEST_TOOLS) is wide


# -- present only while the catalog is non-empty ---------------------------------------------


def test_a_thinker_with_no_catalog_is_not_offered_request_tools(hub: ToolHub) -> None:
    """A thinker declaring no catalog has no request_tools, and a call to it is unknown."""
    thinker = Toolless(hub=hub)
    registry = thinker.reconcile_tool_registry()

    assert REQUEST_TOOLS not in registry
    with pytest.raises(UnknownTool):
        thinker.check_call(REQUEST_TOOLS)


def test_request_tools_leaves_while_the_reconciled_catalog_is_empty_and_returns(
    hub: ToolHub,
) -> None:
    """When reconcile_catalog withholds everything the meta-tool goes; it returns with a tool."""
    thinker = Librarian(hub=hub)
    assert REQUEST_TOOLS in thinker.reconcile_tool_registry()

    thinker.hidden = {"lookup", "write_record", "deploy"}
    assert REQUEST_TOOLS not in thinker.reconcile_tool_registry()

    thinker.hidden = {"lookup", "deploy"}
    assert offered(thinker).members == ("write_record",)


def test_an_empty_selector_offers_no_request_tools(hub: ToolHub) -> None:
    """A selector that selects nothing is an empty catalog: no meta-tool."""

    class Empty(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector()

    assert REQUEST_TOOLS not in Empty(hub=hub).reconcile_tool_registry()


# -- the model provider's validation -------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    ['{"tools": ["deploy", "lookup"]}', {"tools": ["deploy", "lookup"]}],
    ids=["JSON text", "decoded object"],
)
def test_parse_input_accepts_catalog_names(raw: Any) -> None:
    """Names on the catalog parse to the list of names, from JSON text or a decoded object."""
    provider = RequestToolsProvider([provider_for(tool) for tool in CATALOG])

    assert provider.parse_input(raw) == ["deploy", "lookup"]


OFF_CATALOG = "exfiltrate_secrets_QX7"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"tools": [OFF_CATALOG]}, "tools[0]"),
        ({"tools": ["lookup", OFF_CATALOG]}, "tools[1]"),
        ({"tools": []}, "tools"),
        ({"tools": OFF_CATALOG}, "tools"),
        ({}, "tools"),
        ({"tools": ["lookup"], OFF_CATALOG: 1}, "input"),
        (f'{{"tools": ["{OFF_CATALOG}"', "input"),
    ],
    ids=[
        "off-catalog",
        "one off-catalog among good",
        "empty",
        "not an array",
        "missing",
        "extra field",
        "not JSON",
    ],
)
def test_parse_input_refuses_what_the_schema_does_not_allow(raw: Any, field: str) -> None:
    """A refusal is an InvalidToolInput naming the field, never echoing what the model sent."""
    provider = RequestToolsProvider([provider_for(tool) for tool in CATALOG])

    with pytest.raises(InvalidToolInput) as caught:
        provider.parse_input(raw)

    assert caught.value.tool == REQUEST_TOOLS
    assert field in str(caught.value)
    assert OFF_CATALOG not in str(caught.value)


def test_a_name_asked_twice_is_one_ask_not_a_refusal() -> None:
    """A repeated name is accepted and asked for once, in the order the names came."""
    provider = RequestToolsProvider([provider_for(tool) for tool in CATALOG])

    asked = provider.parse_input({"tools": ["write_record", "lookup", "write_record", "lookup"]})

    assert asked == ["write_record", "lookup"]


def test_a_name_off_the_catalog_is_refused_before_it_reaches_admission(hub: ToolHub) -> None:
    """Going through the registry as a call does, an off-catalog name never reaches the hub."""
    thinker = Librarian(hub=hub, hidden=frozenset({"deploy"}))
    registry = thinker.reconcile_tool_registry()
    provider = thinker.check_call(REQUEST_TOOLS)

    with pytest.raises(InvalidToolInput):
        provider.parse_input({"tools": ["deploy"]})

    assert hub.admission_record == ()
    assert "deploy" not in registry


@pytest.mark.parametrize(
    "build",
    [
        lambda: RequestToolsProvider([provider_for(lookup)]),
        lambda: RequestToolsProvider([provider_for(tool) for tool in CATALOG]),
    ],
    ids=["one tool", "three tools"],
)
def test_the_schema_and_parse_input_agree(build: Callable[[], RequestToolsProvider]) -> None:
    """Whatever validates against the published schema parses, and the reverse."""
    provider = build()
    validator = jsonschema.Draft202012Validator(provider.input_schema)
    candidates = [{"tools": [name]} for name in [*provider.members, "nope"]]

    for candidate in candidates:
        valid = validator.is_valid(candidate)
        try:
            provider.parse_input(candidate)
        except InvalidToolInput:
            assert not valid
        else:
            assert valid
