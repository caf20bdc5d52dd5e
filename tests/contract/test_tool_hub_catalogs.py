"""ToolHub's catalogs: resolved once per thinker class, kept, and widened without a rebuild.

The hub holds the system-wide tools, caches module scans forever, and resolves each thinker
class's compatible catalog once. ``register_compatible``, ``register_tool`` and
``load_plugins`` (distributions installed since the last load) widen cached catalogs, and a
thinker built before sees the new tools on its next turn. The palette is assembled in a stable
order, an admitted tool appends, and one hub serves several threads and event loops at once.
"""

import asyncio
import json
import logging
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import pytest
from _hub_kit import Deploy, Summarize, github_issues, github_pulls, lookup, write_record
from _sample_tools import StaticProvider

from nucleo_core import (
    PluginHost,
    SkillSelector,
    ThinkerBase,
    ToolHub,
    ToolProvider,
    ToolSelector,
    render_tools,
    run_tool,
    tool,
)
from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS, RequestSkillProvider, RequestToolsProvider


@pytest.fixture
def site(plugin_site: Any) -> Any:
    """A folder on sys.path holding real distributions (the suite's ``plugin_site``)."""
    return plugin_site


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub."""
    return ToolHub()


def counting(
    tools: list[Any], defaults: list[Any] | None = None, name: str = "Counted"
) -> type[ThinkerBase]:
    """A new thinker class with this catalog, counting how often its declarations are read."""

    class Counted(ThinkerBase):
        declared: ClassVar[int] = 0
        defaults_declared: ClassVar[int] = 0

        @classmethod
        def declare_default_tools(cls) -> list[Any]:
            cls.defaults_declared += 1
            return list(defaults or [])

        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            cls.declared += 1
            return ToolSelector.of(tools)

    Counted.__qualname__ = Counted.__name__ = name
    return Counted


def offered(thinker: ThinkerBase) -> tuple[str, ...]:
    """The names this turn's request_tools offers (empty when it is not offered)."""
    provider = thinker.reconcile_tool_registry().get(REQUEST_TOOLS)
    return provider.members if isinstance(provider, RequestToolsProvider) else ()


def make_tool(name: str) -> Callable[..., str]:
    """A fresh read-only function tool called ``name``."""

    def body(text: str) -> str:
        return text

    body.__doc__ = f"The {name} tool."
    return tool(name=name, read_only=True, risk="low")(body)


# -- the process hub -----------------------------------------------------------------------------


def test_default_is_one_hub_per_process_and_other_hubs_are_separate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """default() returns the same hub every time; a constructed hub is another one."""
    monkeypatch.setattr(ToolHub, "_default", None)  # restored afterwards: no process state leaks
    monkeypatch.setenv("NUCLEO_DISABLE_PLUGIN_AUTOLOAD", "1")

    first = ToolHub.default()

    assert ToolHub.default() is first
    assert ToolHub() is not first


# -- resolved once, kept -------------------------------------------------------------------------


def test_a_classs_catalog_is_declared_once_whatever_the_number_of_instances(hub: ToolHub) -> None:
    """declare_compatible_tools and declare_default_tools are read once per class per hub."""
    thinker_class = counting([Deploy, Summarize], defaults=[lookup])

    for _ in range(5):
        thinker = thinker_class(hub=hub)
        thinker.reconcile_tool_registry()
        thinker.request_tools(["summarize"])

    assert thinker_class.declared == 1  # type: ignore[attr-defined]
    assert thinker_class.defaults_declared == 1  # type: ignore[attr-defined]


def test_the_catalog_is_declared_once_even_when_threads_race_to_resolve_it(
    hub: ToolHub,
) -> None:
    """Eight threads resolving one class's catalog at once read the declaration once."""
    thinker_class = counting([Deploy, Summarize, lookup])
    barrier = threading.Barrier(8)

    def resolve(_: int) -> tuple[str, ...]:
        barrier.wait()
        return offered(thinker_class(hub=hub))

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(resolve, range(8)))

    assert thinker_class.declared == 1  # type: ignore[attr-defined]
    assert set(results) == {("deploy", "summarize", "lookup")}


def test_each_hub_resolves_its_own_catalogs(hub: ToolHub) -> None:
    """Catalogs are per hub: a second hub resolves the class again and shares nothing."""
    thinker_class = counting([Deploy])
    hub.register_compatible(thinker_class, lookup)

    other = ToolHub()

    assert offered(thinker_class(hub=hub)) == ("deploy", "lookup")
    assert offered(thinker_class(hub=other)) == ("deploy",)
    assert thinker_class.declared == 2  # type: ignore[attr-defined]


def test_a_catalog_is_kept_by_class_not_inherited_by_subclasses(hub: ToolHub) -> None:
    """Widening one class's catalog leaves other classes' catalogs as they were."""
    base = counting([Deploy], name="Base")
    other = counting([Deploy], name="Other")
    offered(base(hub=hub))
    offered(other(hub=hub))

    hub.register_tool(base, Summarize)

    assert offered(base(hub=hub)) == ("deploy", "summarize")
    assert offered(other(hub=hub)) == ("deploy",)


# -- module scans --------------------------------------------------------------------------------


SCANNED_PACKAGE = '''
from nucleo_core import tool
from hubscan.helpers import helper_tool


@tool(read_only=True)
def package_tool(text: str) -> str:
    """A tool the package defines itself."""
    return text


def not_a_tool(text: str) -> str:
    return text
'''

SCANNED_SUBMODULE = '''
from nucleo_core import tool


@tool(read_only=True)
def helper_tool(text: str) -> str:
    """A tool a submodule defines."""
    return text
'''


def test_a_module_scan_is_cached_forever(site: Any, hub: ToolHub) -> None:
    """Scanning by name or by module object returns the very same tuple every time."""
    site.module("hubscan.helpers", SCANNED_SUBMODULE)
    site.package("hubscan", SCANNED_PACKAGE)

    first = hub.scan_module("hubscan")
    module = sys.modules["hubscan"]

    assert hub.scan_module("hubscan") is first
    assert hub.scan_module(module) is first
    assert isinstance(first, tuple)


def test_a_module_selects_its_own_tools_not_its_submodules_or_imports(
    site: Any, hub: ToolHub
) -> None:
    """A selected module contributes the tools it defines, not those it imports or nests."""
    site.module("hubscan.helpers", SCANNED_SUBMODULE)
    site.package("hubscan", SCANNED_PACKAGE)

    class Scanner(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector("hubscan")

    class SubScanner(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector().add_module(sys.modules["hubscan.helpers"])

    assert offered(Scanner(hub=hub)) == ("package_tool",)
    assert offered(SubScanner(hub=hub)) == ("helper_tool",)
    assert [provider.name for provider in hub.scan_module("hubscan")] == ["package_tool"]


# -- widening ------------------------------------------------------------------------------------


def test_register_compatible_before_resolution_joins_the_catalog_when_resolved(
    hub: ToolHub,
) -> None:
    """Tools registered for a class not yet resolved are in its catalog once it is."""
    thinker_class = counting([Deploy])
    hub.register_compatible(thinker_class, lookup, StaticProvider("mcp_search"))
    hub.register_tool(thinker_class, write_record)

    assert offered(thinker_class(hub=hub)) == ("deploy", "lookup", "mcp_search", "write_record")


def test_a_thinker_built_before_widening_sees_the_new_tools_next_turn(hub: ToolHub) -> None:
    """register_compatible and register_tool widen a cached catalog; no thinker is rebuilt."""
    thinker_class = counting([Deploy])
    thinker = thinker_class(hub=hub)
    assert offered(thinker) == ("deploy",)

    hub.register_compatible(thinker_class, StaticProvider("mcp_search", source="mcp:srv:search"))
    hub.register_tool(thinker_class, Summarize)

    assert offered(thinker) == ("deploy", "mcp_search", "summarize")
    assert thinker.request_tools(["mcp_search", "summarize"]).granted == (
        "mcp_search",
        "summarize",
    )
    assert thinker_class.declared == 1  # type: ignore[attr-defined]


def test_widening_an_empty_catalog_brings_request_tools_in(hub: ToolHub) -> None:
    """A thinker with no catalog gets request_tools on the turn after one is registered."""
    thinker = ThinkerBase(hub=hub)
    assert REQUEST_TOOLS not in thinker.reconcile_tool_registry()

    hub.register_tool(ThinkerBase, lookup)

    assert offered(thinker) == ("lookup",)


def test_a_different_tool_under_a_catalog_name_is_logged_and_not_added(
    hub: ToolHub, caplog: pytest.LogCaptureFixture
) -> None:
    """Another tool claiming a catalog name is refused with a warning; the first one stays."""
    thinker_class = counting([lookup], name="Holder")
    thinker = thinker_class(hub=hub)
    offered(thinker)
    impostor = StaticProvider("lookup", source="mcp:elsewhere:lookup")

    with caplog.at_level(logging.WARNING, logger="nucleo.hub"):
        hub.register_compatible(thinker_class, impostor)
        hub.register_compatible(thinker_class, lookup)  # the same tool again is harmless

    (catalog_tool,) = hub.compatible_catalog(thinker_class)
    assert catalog_tool.source == "native:lookup"
    (record,) = [record for record in caplog.records if record.name == "nucleo.hub"]
    assert "lookup" in record.getMessage()
    assert "mcp:elsewhere:lookup" in record.getMessage()
    assert "Holder" in record.getMessage()


# -- system-wide tools ---------------------------------------------------------------------------


def test_system_wide_tools_are_in_every_thinkers_palette(hub: ToolHub) -> None:
    """A system-wide tool joins every palette, even of a thinker that declares nothing."""
    hub.register_system_wide_tool(lookup)
    first = counting([Deploy], defaults=[write_record])(hub=hub)
    second = ThinkerBase(hub=hub)

    assert first.reconcile_tool_registry().names() == ["write_record", "lookup", REQUEST_TOOLS]
    assert second.reconcile_tool_registry().names() == ["lookup"]


def test_a_system_wide_tool_registered_later_joins_running_palettes_once(hub: ToolHub) -> None:
    """Registered after construction, a system-wide tool is there next turn, once."""
    thinker = ThinkerBase(hub=hub)
    thinker.reconcile_tool_registry()

    hub.register_system_wide_tool(lookup, Summarize)
    hub.register_system_wide_tool(lookup)

    assert thinker.reconcile_tool_registry().names() == ["lookup", "summarize"]
    assert [provider.name for provider in hub.system_wide_tools()] == ["lookup", "summarize"]


def test_declared_default_providers_join_the_palette_after_default_tools(hub: ToolHub) -> None:
    """declare_default_providers brings tools that are not classes of your own, e.g. MCP ones."""

    class Bridged(ThinkerBase):
        @classmethod
        def declare_default_tools(cls) -> list[Any]:
            return [lookup]

        @classmethod
        def declare_default_providers(cls) -> list[ToolProvider]:
            return [StaticProvider("mcp_fetch", source="mcp:web:fetch")]

    thinker = Bridged(hub=hub)

    assert thinker.reconcile_tool_registry().names() == ["lookup", "mcp_fetch"]
    assert thinker.check_call("mcp:web:fetch").name == "mcp_fetch"


# -- palette order -------------------------------------------------------------------------------


class Ordered(ThinkerBase):
    """Declares a default tool and a catalog; a system-wide and an added tool join it."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [lookup]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Deploy, github_issues])


def test_the_palette_is_defaults_then_system_wide_tools_then_request_tools(hub: ToolHub) -> None:
    """The first assembly: declared defaults, then system-wide tools, then request_tools."""
    hub.register_system_wide_tool(Summarize)

    names = Ordered(hub=hub).reconcile_tool_registry().names()

    assert names == ["lookup", "summarize", REQUEST_TOOLS]


def test_a_tool_added_before_the_first_turn_takes_its_documented_place(hub: ToolHub) -> None:
    """Defaults, system-wide tools, tools added with add_tool, then request_tools."""
    hub.register_system_wide_tool(Summarize)
    thinker = Ordered(hub=hub)
    thinker.add_tool(write_record)

    names = thinker.reconcile_tool_registry().names()

    assert names == ["lookup", "summarize", "write_record", REQUEST_TOOLS]


def test_a_tool_added_to_a_running_thinker_appends_and_keeps_its_place(hub: ToolHub) -> None:
    """add_tool appends to the palette at once, and later turns keep every place."""
    hub.register_system_wide_tool(Summarize)
    thinker = Ordered(hub=hub)
    thinker.reconcile_tool_registry()

    thinker.add_tool(write_record)

    expected = ["lookup", "summarize", REQUEST_TOOLS, "write_record"]
    assert thinker.registry.names() == expected
    assert thinker.reconcile_tool_registry().names() == expected


def test_the_palette_is_byte_stable_across_turns_and_an_admitted_tool_appends(
    hub: ToolHub,
) -> None:
    """Unchanged turns render identically; a grant appends and earlier definitions stay as bytes."""
    hub.register_system_wide_tool(Summarize)
    thinker = Ordered(hub=hub)
    thinker.add_tool(write_record)

    def rendered() -> list[str]:
        specs = thinker.reconcile_tool_registry().specs()
        return [json.dumps(entry) for entry in render_tools(specs, "anthropic")]

    first = rendered()
    assert rendered() == first

    thinker.request_tools(["github_issues"])
    after = rendered()

    assert after[: len(first)] == first
    assert [json.loads(entry)["name"] for entry in after[len(first) :]] == ["github_issues"]
    assert rendered() == after


# -- plugins installed since the last load -------------------------------------------------------


PACK_MODULE = '''
from nucleo_core import tool


@tool(read_only=True)
def acme_search(query: str) -> str:
    """Search the Acme index."""
    return query
'''

COMPATIBLE_HOOK_MODULE = '''
from nucleo_core import hookimpl, tool


@tool(read_only=True)
def acme_translate(text: str) -> str:
    """Translate a text with Acme."""
    return text


@hookimpl
def nucleo_compatible_tools(thinker_class):
    return [acme_translate] if thinker_class.__name__ == "Seeker" else None
'''


class Seeker(ThinkerBase):
    """Selects every installed pack named acme-*."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector().add_pack("acme-*")


class Bystander(ThinkerBase):
    """Selects the github pack only."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([github_pulls]).add_pack("github")


def plugin_hub() -> ToolHub:
    """A hub whose host reads only the acme distributions and ignores the environment."""
    return ToolHub(plugins=PluginHost(allow=["acme-*"], environment={}))


def test_a_pack_installed_before_resolution_is_in_the_catalog(site: Any) -> None:
    """A pack selected by entry-point glob and loaded before resolution is in the catalog."""
    site.distribution(
        "acme-search",
        {"nucleo.tools": {"acme-search": "acme_search_tools"}},
        modules={"acme_search_tools": PACK_MODULE},
    )
    hub = plugin_hub()
    hub.load_plugins()

    assert offered(Seeker(hub=hub)) == ("acme_search",)
    assert offered(Bystander(hub=hub)) == ("github_pulls",)


def test_load_plugins_widens_cached_catalogs_that_select_the_new_pack(site: Any) -> None:
    """A pack installed after the catalog was resolved joins it on load, without a rebuild."""
    hub = plugin_hub()
    hub.load_plugins()
    seeker, bystander = Seeker(hub=hub), Bystander(hub=hub)
    assert offered(seeker) == ()
    assert offered(bystander) == ("github_pulls",)

    site.distribution(
        "acme-search",
        {"nucleo.tools": {"acme-search": "acme_search_tools"}},
        modules={"acme_search_tools": PACK_MODULE},
    )
    records = hub.load_plugins()

    assert [(record.name, record.status) for record in records] == [("acme-search", "loaded")]
    assert offered(seeker) == ("acme_search",)
    assert offered(bystander) == ("github_pulls",)
    assert seeker.request_tools(["acme_search"]).granted == ("acme_search",)
    assert hub.load_plugins() == []


def test_load_plugins_asks_new_plugins_for_the_cached_classes_compatible_tools(
    site: Any,
) -> None:
    """A nucleo_compatible_tools hook installed later widens the classes it answers for."""
    hub = plugin_hub()
    seeker, bystander = Seeker(hub=hub), Bystander(hub=hub)
    offered(seeker)
    offered(bystander)

    site.distribution(
        "acme-translate",
        {"nucleo.plugins": {"acme-translate": "acme_translate_plugin"}},
        modules={"acme_translate_plugin": COMPATIBLE_HOOK_MODULE},
    )
    hub.load_plugins()

    assert offered(seeker) == ("acme_translate",)
    assert offered(bystander) == ("github_pulls",)


def test_a_pack_is_selected_by_its_exact_entry_point_name(site: Any) -> None:
    """add_pack takes an exact entry-point name as well as a glob."""
    site.distribution(
        "acme-search",
        {"nucleo.tools": {"acme-search": "acme_search_tools"}},
        modules={"acme_search_tools": PACK_MODULE},
    )
    hub = plugin_hub()
    hub.load_plugins()

    class Exact(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector().add_pack("acme-search")

    class Lookalike(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector().add_pack("acme-searc")

    assert offered(Exact(hub=hub)) == ("acme_search",)
    assert offered(Lookalike(hub=hub)) == ()


SKILL_TEXT = """---
name: summarize-notes
description: Summarize meeting notes into decisions and actions.
---
List the decisions first, then the actions with their owners.
"""


class SkillSeeker(ThinkerBase):
    """May pull in every skill of the acme_skilljar bundle."""

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_bundle("acme_skilljar")


def test_load_plugins_widens_cached_skill_catalogs_with_a_new_skilljar(site: Any) -> None:
    """A skilljar installed after resolution joins the skill catalogs whose bundle it matches."""
    hub = plugin_hub()
    thinker = SkillSeeker(hub=hub)
    assert REQUEST_SKILL not in thinker.reconcile_tool_registry()

    folder = site.package("acme_skilljar")
    (folder / "summarize-notes").mkdir()
    (folder / "summarize-notes" / "SKILL.md").write_text(SKILL_TEXT, encoding="utf-8")
    site.distribution("acme-skills", {"nucleo.skills": {"acme-skills": "acme_skilljar"}})
    hub.load_plugins()

    offer = thinker.reconcile_tool_registry().get(REQUEST_SKILL)
    assert isinstance(offer, RequestSkillProvider)
    assert offer.members == ("summarize-notes",)
    assert thinker.request_skill("summarize-notes").granted
    assert [skill.bundle for skill in thinker.skills] == ["acme_skilljar"]


# -- threads and event loops ---------------------------------------------------------------------


def test_eight_threads_resolving_widening_and_requesting_leave_a_consistent_hub(
    hub: ToolHub,
) -> None:
    """Racing resolution, widening and requests: one declaration, every widening kept, no dupes."""
    shared = [make_tool(f"shared_{index}") for index in range(4)]
    extras = [make_tool(f"extra_{index}") for index in range(8)]
    classes = [counting(shared, name="Left"), counting(shared, name="Right")]
    barrier = threading.Barrier(8)

    def work(index: int) -> ThinkerBase:
        thinker_class = classes[index % 2]
        barrier.wait()
        thinker = thinker_class(hub=hub)
        for turn in range(25):
            thinker.reconcile_tool_registry()
            if turn == 5:
                hub.register_tool(thinker_class, extras[index])
                hub.register_system_wide_tool(extras[index])
            thinker.request_tools([f"shared_{turn % 4}", f"extra_{(index + turn) % 8}"])
        thinker.reconcile_tool_registry()
        return thinker

    with ThreadPoolExecutor(max_workers=8) as pool:
        thinkers = list(pool.map(work, range(8)))

    assert [thinker_class.declared for thinker_class in classes] == [1, 1]  # type: ignore[attr-defined]
    for parity, thinker_class in enumerate(classes):
        catalog = [provider.name for provider in hub.compatible_catalog(thinker_class)]
        assert catalog[:4] == [f"shared_{index}" for index in range(4)]
        assert sorted(catalog[4:]) == sorted(f"extra_{i}" for i in range(parity, 8, 2))
    assert sorted(provider.name for provider in hub.system_wide_tools()) == sorted(
        f"extra_{index}" for index in range(8)
    )
    granted: dict[str, list[str]] = {}
    for event in hub.admission_record:
        if event.granted:
            granted.setdefault(event.thinker, []).append(event.name)
    for thinker in thinkers:
        names = thinker.registry.names()
        assert len(names) == len(set(names))
        assert {f"shared_{index}" for index in range(4)} <= set(names)
        once = granted[repr(thinker)]
        assert len(once) == len(set(once))
        assert set(once) <= set(names)


def test_concurrent_requests_for_one_tool_on_one_thinker_grant_it_once(hub: ToolHub) -> None:
    """Parallel request_tools calls of one turn asking for the same tool leave one palette entry."""
    thinker_class = counting([Deploy, Summarize])
    thinker = thinker_class(hub=hub)
    registry = thinker.reconcile_tool_registry()
    barrier = threading.Barrier(8)

    def ask(_: int) -> tuple[str, ...]:
        barrier.wait()
        return thinker.request_tools(["summarize", "deploy"]).granted

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(ask, range(8)))

    assert set(answers) == {("summarize", "deploy")}
    assert registry.names() == [REQUEST_TOOLS, "summarize", "deploy"]
    assert thinker.reconcile_tool_registry().names() == [REQUEST_TOOLS, "summarize", "deploy"]


def test_several_event_loops_can_share_one_hub(hub: ToolHub) -> None:
    """asyncio.run in four threads, each calling request_tools as a model would, on one hub."""
    thinker_class = counting([Deploy, Summarize, lookup, github_issues])
    barrier = threading.Barrier(4)

    async def conversation(index: int) -> tuple[str, ...]:
        thinker = thinker_class(hub=hub)
        wanted = [["deploy"], ["summarize"], ["lookup"], ["github_issues"]]
        for names in wanted[index:] + wanted[:index]:
            registry = thinker.reconcile_tool_registry()
            provider: ToolProvider | None = registry.get(REQUEST_TOOLS)
            assert provider is not None
            meta = registry.create_tool(REQUEST_TOOLS, thinker)
            await run_tool(meta, provider.parse_input({"tools": names}))
            await asyncio.sleep(0)
        return tuple(thinker.reconcile_tool_registry().names())

    def in_its_own_loop(index: int) -> tuple[str, ...]:
        barrier.wait()
        return asyncio.run(conversation(index))

    with ThreadPoolExecutor(max_workers=4) as pool:
        palettes = list(pool.map(in_its_own_loop, range(4)))

    assert thinker_class.declared == 1  # type: ignore[attr-defined]
    for palette in palettes:
        assert palette[0] == REQUEST_TOOLS
        assert sorted(palette[1:]) == ["deploy", "github_issues", "lookup", "summarize"]
    assert len(hub.admission_record) == 16
    assert all(event.granted for event in hub.admission_record)
