"""`CatalogIndex`: the index a thinker keeps of its catalog, synced by difference.

What a search after a catalog change must see: every tool the catalog holds now and none it
does not, each with its current provider, scored as a fresh index of the same catalog.
"""

from __future__ import annotations

from nucleo_core import ToolProvider, tool
from nucleo_core.hub.search_tool import CatalogIndex
from nucleo_core.search import ToolIndex
from nucleo_core.tools import provider_for


def catalog_tool(name: str, description: str) -> ToolProvider:
    """A function tool called ``name`` described by ``description``."""

    def run(key: str) -> str:
        return key

    run.__doc__ = description
    run.__name__ = name
    return provider_for(tool(name=name, read_only=True, risk="low")(run))


BASE = (
    catalog_tool("send_email", "Send an email message to a recipient."),
    catalog_tool("create_calendar_event", "Schedule a meeting on the calendar."),
    catalog_tool("read_weather_forecast", "Read the weather forecast for a city."),
)


def ranked(index: ToolIndex, query: str) -> list[tuple[str, float]]:
    return [(hit.name, hit.score) for hit in index.search(query, 10)]


def test_a_widened_catalog_adds_its_new_tools_scored_as_a_fresh_index() -> None:
    """Tools appended or inserted are found, with exactly a fresh index's scores."""
    synced = CatalogIndex()
    index = synced.synced(BASE)
    translate = catalog_tool("translate_text", "Translate text between languages.")
    mail = catalog_tool("archive_email", "Archive an email message.")
    wider = (mail, *BASE, translate)
    assert synced.synced(wider) is index
    assert sorted(index.names()) == sorted(provider.name for provider in wider)
    fresh = ToolIndex(list(wider))
    for query in ("translate some text", "email message", "weather"):
        assert ranked(index, query) == ranked(fresh, query)
    assert index.spec("archive_email").description == "Archive an email message."


def test_a_provider_replaced_under_its_name_is_indexed_with_its_new_text() -> None:
    """A new provider taking a name (the old one gone) replaces it in the index."""
    synced = CatalogIndex()
    index = synced.synced(BASE)
    replaced = catalog_tool("send_email", "Post a letter through the postal service.")
    synced.synced((replaced, *BASE[1:]))
    assert [hit.name for hit in index.search("postal letter", 3)] == ["send_email"]
    assert index.search("recipient", 3) == []  # the old text is gone


def test_a_name_given_twice_is_indexed_with_its_last_provider() -> None:
    """A catalog holding two providers of one name is read as its last one, as before."""
    synced = CatalogIndex()
    index = synced.synced(BASE)
    twin = catalog_tool("send_email", "Send a fax to a number.")
    synced.synced((*BASE, twin))
    assert index.spec("send_email").description == "Send a fax to a number."
    assert len(index) == len(BASE)


def test_a_narrowed_catalog_is_never_searched_beyond_itself() -> None:
    """A tool the catalog no longer holds is never found again, whatever the query."""
    synced = CatalogIndex()
    index = synced.synced(BASE)
    synced.synced(BASE[1:])
    assert "send_email" not in index
    assert all(hit.name != "send_email" for hit in index.search("send an email", 10))
    synced.synced(BASE)  # and widened back
    assert [hit.name for hit in index.search("send an email", 1)] == ["send_email"]
