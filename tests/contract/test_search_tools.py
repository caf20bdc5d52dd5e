"""``search_tools`` and the offer modes: catalogs of any size, every match through admission.

Pins issue 12, acceptance 1 (the parts not provider-native): search results go through the
admission door and a refused match stays out, on the record; a read-only thinker is offered
neither ``search_tools`` nor ``request_tools``; ``auto`` switches from enumerating to searching
at the budget; a wrong name gets at most a few suggestions; the index follows a catalog that
widens and narrows.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

from _hub_kit import Rule
from _loop_kit import answer, call, calls, make, tool_names

from nucleo_core import ToolHub, ToolProvider, ToolSelector, tool
from nucleo_core.hub import REQUEST_TOOLS
from nucleo_core.hub.search_tool import OFFER_BUDGET, SEARCH_TOOLS, ToolOffer
from nucleo_core.models import ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.tools import provider_for

TOPICS = [
    ("send_email", "Send an email message to a recipient."),
    ("create_calendar_event", "Schedule a meeting on the calendar."),
    ("create_pull_request", "Open a pull request on a GitHub repository."),
    ("post_slack_message", "Post a message to a Slack channel."),
    ("read_weather_forecast", "Read the weather forecast for a city."),
    ("convert_currency", "Convert an amount between two currencies."),
]


def catalog_tool(name: str, description: str, *, read_only: bool = True) -> ToolProvider:
    """A function tool called ``name`` that answers with its name and the key."""

    def run(key: str) -> str:
        return f"{name}: {key}"

    run.__doc__ = description
    run.__name__ = name
    return provider_for(tool(name=name, read_only=read_only, risk="low")(run))


def filler(count: int) -> list[ToolProvider]:
    """``count`` unrelated tools, each with a one-line description."""
    return [
        catalog_tool(f"inventory_tool_{i}", f"Inventory operation number {i} on the warehouse.")
        for i in range(count)
    ]


class Searcher(SingleObjectiveThinker[str, str]):
    """A thinker whose catalog is searched."""

    tool_offer: ClassVar[ToolOffer | None] = "search"

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([catalog_tool(name, about) for name, about in TOPICS])


class Auto(SingleObjectiveThinker[str, str]):
    """A thinker on the default offer (``auto``), its catalog given by the test's hub."""


def run(thinker: Any, objective: str = "Help.") -> str:
    return str(asyncio.run(thinker.run(objective)))


def results_of(model: ScriptedModel, turn: int) -> list[ToolResultBlock]:
    """The tool results the request of ``turn`` carried back."""
    last = model.requests[turn].messages[-1]
    return [block for block in last.content if isinstance(block, ToolResultBlock)]


def test_search_tools_grants_the_matches_through_admission_and_a_refusal_stays_out() -> None:
    """A rule refusing a match keeps it out of the palette, says why, and is on the record."""
    hub = ToolHub()
    refusing = Rule.refuse("no email from this agent")
    hub.register_admission(None, "send_email", refusing)
    model = ScriptedModel(
        [
            calls(call(SEARCH_TOOLS, {"query": "email or calendar meeting", "limit": 3})),
            calls(call("create_calendar_event", {"key": "standup"})),
            answer("done"),
        ]
    )
    thinker = make(Searcher, model, hub=hub)
    assert run(thinker) == "done"
    assert SEARCH_TOOLS in tool_names(model.requests[0])
    assert "send_email" not in tool_names(model.requests[0])
    found = json.loads(results_of(model, 1)[0].content)
    granted = [entry["name"] for entry in found["granted"]]
    assert "create_calendar_event" in granted
    assert "send_email" not in granted
    assert found["refused"] == [{"name": "send_email", "reason": "no email from this agent"}]
    schema = next(e for e in found["granted"] if e["name"] == "create_calendar_event")
    assert schema["input_schema"]["properties"]["key"]["type"] == "string"
    assert "create_calendar_event" in tool_names(model.requests[1])
    assert "send_email" not in tool_names(model.requests[1])
    assert results_of(model, 2)[0].content == "create_calendar_event: standup"
    record = {(event.name, event.granted) for event in hub.admission_record}
    assert ("send_email", False) in record
    assert ("create_calendar_event", True) in record
    assert refusing.asked, "the rule was asked about the match"


def test_a_match_already_in_the_palette_reads_as_granted() -> None:
    """Searching again for a tool already granted grants it again without a second admission."""
    hub = ToolHub()
    model = ScriptedModel(
        [
            calls(call(SEARCH_TOOLS, {"query": "weather forecast", "limit": 1})),
            calls(call(SEARCH_TOOLS, {"query": "weather forecast", "limit": 1})),
            answer("done"),
        ]
    )
    run(make(Searcher, model, hub=hub))
    second = json.loads(results_of(model, 2)[0].content)
    assert [entry["name"] for entry in second["granted"]] == ["read_weather_forecast"]
    grants = [e for e in hub.admission_record if e.name == "read_weather_forecast"]
    assert len(grants) == 1


def test_a_read_only_thinker_is_offered_neither_search_tools_nor_request_tools() -> None:
    """The read-only sweep treats search_tools like request_tools: neither is offered."""
    model = ScriptedModel([answer("done")])
    run(make(Searcher, model, read_only=True))
    assert SEARCH_TOOLS not in tool_names(model.requests[0])
    assert REQUEST_TOOLS not in tool_names(model.requests[0])


def test_a_read_only_thinker_calling_search_tools_is_refused_at_the_call() -> None:
    """A search_tools call from a read-only thinker grants nothing (the door refuses it)."""
    hub = ToolHub()
    model = ScriptedModel([calls(call(SEARCH_TOOLS, {"query": "weather"})), answer("done")])
    run(make(Searcher, model, hub=hub, read_only=True))
    result = results_of(model, 1)[0]
    assert result.is_error
    assert hub.admission_record == ()


def definition_bytes(model: ScriptedModel) -> int:
    spec = next(s for s in model.requests[0].tools if s.name == REQUEST_TOOLS)
    payload = {"name": spec.name, "description": spec.description}
    return len(json.dumps({**payload, "input_schema": spec.input_schema}))


def test_auto_enumerates_within_the_budget_and_searches_beyond_it() -> None:
    """Under auto, a catalog whose enumeration fits the budget is listed; a larger one searched."""
    small, large = ToolHub(), ToolHub()
    small.register_compatible(Auto, *filler(20))
    large.register_compatible(Auto, *filler(200))
    enumerated = ScriptedModel([answer("done")])
    run(make(Auto, enumerated, hub=small))
    assert SEARCH_TOOLS not in tool_names(enumerated.requests[0])
    assert definition_bytes(enumerated) <= OFFER_BUDGET
    assert "inventory_tool_7" in json.dumps(enumerated.requests[0].tools[-1].input_schema)
    searched = ScriptedModel([answer("done")])
    run(make(Auto, searched, hub=large))
    assert SEARCH_TOOLS in tool_names(searched.requests[0])
    assert definition_bytes(searched) < 1024  # plain names: no catalog in the schema
    assert "inventory_tool_7" not in json.dumps(
        [s.input_schema for s in searched.requests[0].tools]
    )


def test_auto_switches_once_the_catalog_widens_past_the_budget() -> None:
    """A catalog widened past the budget between turns is searched from the next turn."""
    hub = ToolHub()
    hub.register_compatible(Auto, *filler(20))

    def widen(key: str) -> str:
        """Widen the catalog past the budget."""
        hub.register_compatible(Auto, *filler(200))
        return key

    hub.register_system_wide_tool(tool(name="widen", read_only=True, risk="low")(widen))
    model = ScriptedModel([calls(call("widen", {"key": "k"})), answer("done")])
    run(make(Auto, model, hub=hub))
    assert SEARCH_TOOLS not in tool_names(model.requests[0])
    assert SEARCH_TOOLS in tool_names(model.requests[1])


def test_a_class_declaring_enumerate_is_listed_whatever_its_size() -> None:
    """tool_offer = "enumerate" lists a catalog past the budget (today's request_tools)."""

    class Lister(Auto):
        tool_offer: ClassVar[ToolOffer | None] = "enumerate"

    hub = ToolHub()
    hub.register_compatible(Lister, *filler(200))
    model = ScriptedModel([answer("done")])
    run(make(Lister, model, hub=hub))
    assert SEARCH_TOOLS not in tool_names(model.requests[0])
    assert definition_bytes(model) > OFFER_BUDGET


def test_the_hub_default_offer_applies_to_classes_declaring_none() -> None:
    """hub.tool_offer = "search" searches even a small catalog of a class declaring no offer."""
    hub = ToolHub()
    hub.tool_offer = "search"
    hub.register_compatible(Auto, *filler(3))
    model = ScriptedModel([answer("done")])
    run(make(Auto, model, hub=hub))
    assert SEARCH_TOOLS in tool_names(model.requests[0])


def test_a_wrong_name_gets_at_most_a_few_suggestions_never_the_catalog() -> None:
    """A mistyped name in request_tools is refused with the closest names (three at most)."""
    hub = ToolHub()
    hub.register_compatible(Auto, *filler(500))
    model = ScriptedModel(
        [calls(call(REQUEST_TOOLS, {"tools": ["inventory_tool_12x"]})), answer("done")]
    )
    run(make(Auto, model, hub=hub))
    result = results_of(model, 1)[0]
    assert result.is_error
    named = [n for n in (f"inventory_tool_{i}" for i in range(500)) if n in result.content]
    assert 1 <= len(named) <= 3
    assert "inventory_tool_12" in named
    assert len(result.content) < 400


def test_an_enumerated_request_tools_suggests_too() -> None:
    """Enumerated, a wrong name is still refused with close names, not the listed catalog."""
    model = ScriptedModel(
        [calls(call(REQUEST_TOOLS, {"tools": ["convert_curency"]})), answer("done")]
    )

    class Lister(Searcher):
        tool_offer: ClassVar[ToolOffer | None] = "enumerate"

    run(make(Lister, model))
    result = results_of(model, 1)[0]
    assert result.is_error
    assert "convert_currency" in result.content
    assert "send_email" not in result.content


def test_a_widened_catalog_is_found_and_a_withdrawn_tool_is_not() -> None:
    """The index follows the catalog: a tool added is found, a tool withdrawn is not."""
    hub = ToolHub()
    hub.register_compatible(Searcher, catalog_tool("x_placeholder", "Placeholder tool."))
    first = ScriptedModel([calls(call(SEARCH_TOOLS, {"query": "translate text"})), answer("a")])
    thinker = make(Searcher, first, hub=hub)
    run(thinker)
    assert json.loads(results_of(first, 1)[0].content)["granted"] == []
    index = thinker._catalog_index.index
    hub.register_compatible(Searcher, catalog_tool("translate_text", "Translate text."))
    hub.withdraw_compatible(Searcher, "read_weather_forecast")
    second = ScriptedModel(
        [
            calls(call(SEARCH_TOOLS, {"query": "translate text"})),
            calls(call(SEARCH_TOOLS, {"query": "weather forecast for a city"})),
            answer("b"),
        ]
    )
    thinker.client = second
    run(thinker)
    translated = json.loads(results_of(second, 1)[0].content)
    assert [entry["name"] for entry in translated["granted"]] == ["translate_text"]
    weather = json.loads(results_of(second, 2)[0].content)
    assert "read_weather_forecast" not in [e["name"] for e in weather["granted"]]
    assert thinker._catalog_index.index is index, "synced in place, not rebuilt"


def test_search_tools_searches_only_the_reconciled_catalog() -> None:
    """A tool the thinker's reconcile_catalog withholds is never found nor granted."""

    class Narrow(Searcher):
        def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
            return [provider for provider in catalog if provider.name != "convert_currency"]

    hub = ToolHub()
    model = ScriptedModel([calls(call(SEARCH_TOOLS, {"query": "convert currency"})), answer("x")])
    run(make(Narrow, model, hub=hub))
    found = json.loads(results_of(model, 1)[0].content)
    assert "convert_currency" not in [e["name"] for e in found["granted"]]
    assert all(event.name != "convert_currency" for event in hub.admission_record)


def test_search_tools_refuses_a_bad_input_correctably() -> None:
    """A limit outside 1..20 or an empty query is refused naming the field, granting nothing."""
    hub = ToolHub()
    model = ScriptedModel(
        [
            calls(call(SEARCH_TOOLS, {"query": "email", "limit": 500})),
            calls(call(SEARCH_TOOLS, {"query": "   "})),
            answer("x"),
        ]
    )
    run(make(Searcher, model, hub=hub))
    assert "limit" in results_of(model, 1)[0].content
    assert "query" in results_of(model, 2)[0].content
    assert hub.admission_record == ()
