"""A turn after the catalog changed applies the change as a delta, and stays exact.

The hub's catalog view widens in O(1) (`CatalogView`: a prefix of an append-only list), the
offer decision and the thinker's search index read only the tools added, a plain-names
``request_tools`` keeps its provider, and the palette is re-registered only where it changed.
None of it may loosen admission: a newly visible tool still goes through the door, a
narrowed catalog revokes at once, and a tool put into the registry behind the palette's back
is still removed at the next turn.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from _hub_kit import Rule

from nucleo_core import ThinkerBase, ToolHub, ToolProvider, tool
from nucleo_core.errors import InvalidToolInput
from nucleo_core.hub import REQUEST_TOOLS, RequestToolsProvider
from nucleo_core.hub._catalog_view import CatalogView
from nucleo_core.hub.search_tool import SEARCH_TOOLS, ToolOffer
from nucleo_core.tools import provider_for


def catalog_tool(name: str, description: str = "", *, read_only: bool = True) -> ToolProvider:
    def run(key: str) -> str:
        return f"{name}: {key}"

    run.__doc__ = description or f"The {name.replace('_', ' ')} operation."
    run.__name__ = name
    return provider_for(tool(name=name, read_only=read_only, risk="low")(run))


class Searched(ThinkerBase):
    tool_offer: ClassVar[ToolOffer | None] = "search"


def searched_hub(count: int = 30) -> ToolHub:
    hub = ToolHub()
    hub.register_compatible(Searched, *[catalog_tool(f"tool_{i}") for i in range(count)])
    return hub


def test_a_widened_view_shares_its_tools_and_an_old_view_is_unchanged() -> None:
    hub = searched_hub(3)
    before = hub.compatible_catalog(Searched)
    assert before is hub.compatible_catalog(Searched), "the same view while unchanged"
    added = catalog_tool("tool_new")
    hub.register_compatible(Searched, added)
    after = hub.compatible_catalog(Searched)
    assert isinstance(after, CatalogView)
    assert after is not before
    assert [p.name for p in before] == ["tool_0", "tool_1", "tool_2"], "an old view keeps its tools"
    assert len(after) == 4
    assert after[-1] is added
    assert after[3] is added
    assert after.widens(before)
    assert not before.widens(after)
    assert after.added_since(before) == [added]
    assert after == tuple(after)
    assert after[1:3] == (after[1], after[2])
    with pytest.raises(IndexError):
        after[4]


def test_a_narrowed_view_does_not_pass_for_a_widening() -> None:
    hub = searched_hub(3)
    before = hub.compatible_catalog(Searched)
    hub.withdraw_compatible(Searched, "tool_1")
    hub.register_compatible(Searched, catalog_tool("tool_9"))
    after = hub.compatible_catalog(Searched)
    assert [p.name for p in after] == ["tool_0", "tool_2", "tool_9"]
    assert [p.name for p in before] == ["tool_0", "tool_1", "tool_2"]
    assert not after.widens(before)
    with pytest.raises(ValueError, match="does not widen"):
        after.added_since(before)


def test_a_plain_names_request_tools_follows_a_widening_without_a_new_provider() -> None:
    hub = searched_hub()
    thinker = Searched(hub=hub)
    first = thinker.reconcile_tool_registry().get_provider_by_name(REQUEST_TOOLS)
    assert isinstance(first, RequestToolsProvider)
    assert not first.enumerated
    with pytest.raises(InvalidToolInput):
        first.parse_input({"tools": ["tool_late"]})
    hub.register_compatible(Searched, catalog_tool("tool_late"))
    second = thinker.reconcile_tool_registry().get_provider_by_name(REQUEST_TOOLS)
    assert second is first, "the same definition, kept"
    assert first.parse_input({"tools": ["tool_late"]}) == ["tool_late"], (
        "checked against the new catalog"
    )
    assert "tool_late" in first.members


def test_a_tool_newly_visible_after_a_widening_goes_through_admission() -> None:
    hub = searched_hub()
    hub.register_admission(Searched, "tool_late", Rule.refuse("not for this thinker"))
    thinker = Searched(hub=hub)
    thinker.reconcile_tool_registry()
    hub.register_compatible(Searched, catalog_tool("tool_late"), catalog_tool("tool_fine"))
    thinker.reconcile_tool_registry()
    answer = thinker.request_tools(["tool_late", "tool_fine"])
    assert answer.granted == ("tool_fine",)
    assert [refusal.name for refusal in answer.refused] == ["tool_late"]
    names = thinker.reconcile_tool_registry().names()
    assert "tool_fine" in names
    assert "tool_late" not in names
    decided = {(event.name, event.granted) for event in hub.admission_record}
    assert ("tool_late", False) in decided
    assert ("tool_fine", True) in decided


def test_a_narrowing_after_widenings_revokes_the_grant_at_once() -> None:
    hub = searched_hub()
    thinker = Searched(hub=hub)
    assert thinker.request_tools(["tool_3"]).granted == ("tool_3",)
    thinker.reconcile_tool_registry()
    for i in range(3):  # turns on widened views, each applied as a delta
        hub.register_compatible(Searched, catalog_tool(f"extra_{i}"))
        assert "tool_3" in thinker.reconcile_tool_registry().names()
    hub.withdraw_compatible(Searched, "tool_3")
    assert "tool_3" not in thinker.reconcile_tool_registry().names()
    revoked = [e for e in hub.admission_record if e.name == "tool_3" and not e.granted]
    assert revoked, "the revocation is on the record"


def test_a_tool_registered_behind_the_palettes_back_is_removed_at_the_next_turn() -> None:
    hub = searched_hub()
    thinker = Searched(hub=hub)
    registry = thinker.reconcile_tool_registry()
    before = registry.names()
    registry.register(catalog_tool("smuggled"))
    assert thinker.reconcile_tool_registry().names() == before
    hub.register_compatible(Searched, catalog_tool("tool_new"))  # a changed turn too
    registry.register(catalog_tool("smuggled"))
    assert thinker.reconcile_tool_registry().names() == before


def test_an_unchanged_turn_and_a_changed_one_leave_the_palette_a_fresh_thinker_gets() -> None:
    hub = searched_hub()
    thinker = Searched(hub=hub)
    thinker.request_tools(["tool_1", "tool_2"])
    thinker.reconcile_tool_registry()
    for i in range(4):
        hub.register_compatible(Searched, catalog_tool(f"later_{i}"))
        thinker.reconcile_tool_registry()
        thinker.reconcile_tool_registry()
    fresh = Searched(hub=hub)
    fresh.request_tools(["tool_1", "tool_2"])
    expected = [(p.name, type(p)) for p in fresh.reconcile_tool_registry().providers()]
    assert [(p.name, type(p)) for p in thinker.registry.providers()] == expected
    assert SEARCH_TOOLS in thinker.registry.names()


def test_the_search_index_follows_a_widened_view_by_its_delta() -> None:
    hub = searched_hub()
    thinker = Searched(hub=hub)
    thinker.reconcile_tool_registry()
    index = thinker._catalog_index.synced(hub.compatible_catalog(Searched))
    hub.register_compatible(Searched, catalog_tool("translate_text", "Translate text into French."))
    view = hub.compatible_catalog(Searched)
    assert thinker._catalog_index.synced(view) is index
    assert [hit.name for hit in index.search("translate text", 1)] == ["translate_text"]
    hub.withdraw_compatible(Searched, "translate_text")
    assert "translate_text" not in thinker._catalog_index.synced(hub.compatible_catalog(Searched))


def test_a_read_only_thinker_keeps_sweeping_after_a_widening() -> None:
    class Reader(ThinkerBase):
        tool_offer: ClassVar[ToolOffer | None] = "search"

        @classmethod
        def declare_default_tools(cls) -> list[Any]:
            return [catalog_tool("look"), catalog_tool("change", read_only=False)]

    hub = ToolHub()
    hub.register_compatible(Reader, *[catalog_tool(f"tool_{i}") for i in range(30)])
    thinker = Reader(hub=hub, read_only=True)
    assert thinker.reconcile_tool_registry().names() == ["look"]
    hub.register_compatible(Reader, catalog_tool("tool_more"))
    assert thinker.reconcile_tool_registry().names() == ["look"]
