"""Unit tests of `PluginHost.load`: what each entry point group contributes, in what order."""

import sys

from _plugin_site import FakeSite

from nucleo_core import ClassToolProvider, FunctionToolProvider
from nucleo_core.plugins import PluginHost

TOOLS_MODULE = '''
from nucleo_core import tool
from nucleo_core.plugins import hookimpl
from nucleo_core.tools import Tool


@tool
def search(query: str) -> str:
    """Search the web."""
    return query


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    return url


def helper(text: str) -> str:
    return text


@hookimpl
def nucleo_system_wide_tools():
    return [fetch]
'''

GUARD_MODULE = """
from nucleo_core.plugins import Verdict, hookimpl


@hookimpl
def nucleo_admit_tool(thinker, provider):
    if provider.name == "forbidden":
        return Verdict.refuse("forbidden is off limits")
    return None
"""

KINDS_MODULE = '''
from pydantic import BaseModel

from nucleo_core import FunctionToolProvider, Tool, tool


class EchoInput(BaseModel):
    text: str


@tool
class Echo(Tool[EchoInput, str]):
    """Echo the text."""

    def run(self, input: EchoInput) -> str:
        return input.text


@tool
def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


@tool
def whisper(text: str) -> str:
    """Whisper the text."""
    return text.lower()


WHISPER = FunctionToolProvider(whisper)


@tool
def count(text: str) -> int:
    """Count the characters."""
    return len(text)


@tool
def reverse(text: str) -> str:
    """Reverse the text."""
    return text[::-1]


def make_tools():
    return [count, reverse]


class WhisperProvider(FunctionToolProvider):
    def __init__(self):
        super().__init__(whisper)
'''


def _records_by_name(host: PluginHost) -> dict[str, object]:
    return {record.name: record for record in host.records}


def test_nothing_is_read_or_imported_until_load_is_called(site: FakeSite) -> None:
    """Building a host neither reads entry points nor imports any plugin module."""
    site.distribution(
        "acme-tools", {"nucleo.tools": {"acme": "acme_lazy"}}, modules={"acme_lazy": TOOLS_MODULE}
    )
    host = PluginHost(path=[site.root], environment={})
    assert host.records == ()
    assert "acme_lazy" not in sys.modules
    host.load()
    assert "acme_lazy" in sys.modules


def test_a_tools_module_brings_its_own_tools_and_its_hooks(site: FakeSite) -> None:
    """A module under nucleo.tools contributes the tools it defines and registers its hooks."""
    site.distribution(
        "acme-tools",
        {"nucleo.tools": {"acme": "acme_tools"}},
        version="2.3",
        modules={"acme_tools": TOOLS_MODULE},
    )
    host = PluginHost(path=[site.root], environment={})
    [record] = host.load()
    assert record.status == "loaded"
    assert (record.group, record.name, record.value) == ("nucleo.tools", "acme", "acme_tools")
    assert (record.distribution, record.version) == ("acme-tools", "2.3")
    assert record.contributed == ("tool: search", "tool: fetch", "hooks: nucleo_system_wide_tools")
    assert record.error is None
    module = sys.modules["acme_tools"]
    assert [tool.provider for tool in host.pack_tools()] == [
        FunctionToolProvider(module.search),
        FunctionToolProvider(module.fetch),
    ]
    assert {(tool.plugin, tool.distribution, tool.pack) for tool in host.pack_tools()} == {
        ("nucleo.tools:acme", "acme-tools", "acme")
    }
    [hooked] = host.system_wide_tools()
    assert hooked.provider == FunctionToolProvider(module.fetch)
    assert (hooked.plugin, hooked.distribution) == ("nucleo.tools:acme", "acme-tools")


def test_each_kind_of_tools_entry_point_brings_its_tools(site: FakeSite) -> None:
    """A tool class, a function tool, a provider, a factory and a provider class each load."""
    site.distribution(
        "kinds",
        {
            "nucleo.tools": {
                "a-class": "kinds_pack:Echo",
                "b-function": "kinds_pack:shout",
                "c-provider": "kinds_pack:WHISPER",
                "d-factory": "kinds_pack:make_tools",
                "e-provider-class": "kinds_pack:WhisperProvider",
            }
        },
        modules={"kinds_pack": KINDS_MODULE},
    )
    host = PluginHost(path=[site.root], environment={})
    records = host.load()
    assert [(r.name, r.status, r.contributed) for r in records] == [
        ("a-class", "loaded", ("tool: echo",)),
        ("b-function", "loaded", ("tool: shout",)),
        ("c-provider", "loaded", ("tool: whisper",)),
        ("d-factory", "loaded", ("tool: count", "tool: reverse")),
        ("e-provider-class", "loaded", ("tool: whisper",)),
    ]
    module = sys.modules["kinds_pack"]
    assert host.pack_tools()[0].provider == ClassToolProvider(module.Echo)
    assert host.pack_tools()[2].provider is module.WHISPER
    assert [tool.pack for tool in host.pack_tools()] == [
        "a-class",
        "b-function",
        "c-provider",
        "d-factory",
        "d-factory",
        "e-provider-class",
    ]


def test_a_skills_package_is_recorded_for_the_skills_layer(site: FakeSite) -> None:
    """A package under nucleo.skills that implements no hook is kept as a skills package."""
    folder = site.package("acme_skills")
    (folder / "summarize").mkdir()
    (folder / "summarize" / "SKILL.md").write_text("---\nname: summarize\n---\n")
    site.distribution("acme-skills", {"nucleo.skills": {"acme": "acme_skills"}})
    host = PluginHost(path=[site.root], environment={})
    [record] = host.load()
    assert record.status == "loaded"
    assert record.contributed == ("skills package: acme_skills",)
    [package] = host.skill_packages()
    assert (package.package, package.plugin, package.distribution) == (
        "acme_skills",
        "nucleo.skills:acme",
        "acme-skills",
    )
    assert host.pack_tools() == []


def test_a_hook_module_under_nucleo_skills_is_registered_as_a_hook_plugin(
    site: FakeSite,
) -> None:
    """A module under nucleo.skills implementing hooks is a hook plugin, not a skills package."""
    source = """
    from pathlib import Path

    from nucleo_core.plugins import hookimpl


    @hookimpl
    def nucleo_skill_sources():
        return [str(Path(__file__).parent / "skills")]
    """
    site.distribution("acme-skills", {"nucleo.skills": {"acme": "acme_skill_hooks"}}, modules={})
    site.package("acme_skill_hooks", source)
    host = PluginHost(path=[site.root], environment={})
    [record] = host.load()
    assert record.contributed == ("hooks: nucleo_skill_sources",)
    assert host.skill_packages() == []
    [source_found] = host.skill_sources()
    assert str(source_found.source).endswith("skills")
    assert (source_found.plugin, source_found.distribution) == (
        "nucleo.skills:acme",
        "acme-skills",
    )


def test_a_plain_module_under_nucleo_skills_fails(site: FakeSite) -> None:
    """A module that is neither a package nor a hook module cannot bring skills."""
    site.distribution(
        "flat", {"nucleo.skills": {"flat": "flat_skills"}}, modules={"flat_skills": "X = 1\n"}
    )
    [record] = PluginHost(path=[site.root], environment={}).load()
    assert record.status == "failed"
    assert record.error == (
        "expected a package holding skill folders or a module implementing nucleo_* hooks, "
        "got module flat_skills"
    )


def test_a_hook_only_plugin_registers_its_hooks(site: FakeSite) -> None:
    """A nucleo.plugins entry point contributes its hooks, and the host calls them."""
    site.distribution(
        "acme-guard",
        {"nucleo.plugins": {"guard": "acme_guard"}},
        modules={"acme_guard": GUARD_MODULE},
    )
    host = PluginHost(path=[site.root], environment={})
    [record] = host.load()
    assert (record.status, record.contributed) == ("loaded", ("hooks: nucleo_admit_tool",))
    assert record.plugin == "nucleo.plugins:guard"
    assert host.record("nucleo.plugins:guard") == record


def test_a_hook_only_plugin_without_hooks_fails(site: FakeSite) -> None:
    """A nucleo.plugins entry point that implements no hook is reported, not silently kept."""
    site.distribution(
        "empty", {"nucleo.plugins": {"empty": "empty_plugin"}}, modules={"empty_plugin": "X = 1\n"}
    )
    [record] = PluginHost(path=[site.root], environment={}).load()
    assert (record.status, record.error) == (
        "failed",
        "implements no nucleo_* hook (module empty_plugin)",
    )


def test_entry_points_load_in_group_order_then_by_name(site: FakeSite) -> None:
    """Tools come before skills before plugins; inside a group, entry points sort by name."""
    site.distribution(
        "zeta",
        {"nucleo.plugins": {"a-guard": "zeta_guard"}, "nucleo.tools": {"zeta": "zeta_tools"}},
        modules={"zeta_guard": GUARD_MODULE, "zeta_tools": TOOLS_MODULE},
    )
    site.distribution(
        "alpha",
        {"nucleo.tools": {"alpha": "alpha_kinds:shout"}, "nucleo.skills": {"m": "alpha_skills"}},
        modules={"alpha_kinds": KINDS_MODULE},
    )
    site.package("alpha_skills")
    records = PluginHost(path=[site.root], environment={}).load()
    assert [record.plugin for record in records] == [
        "nucleo.tools:alpha",
        "nucleo.tools:zeta",
        "nucleo.skills:m",
        "nucleo.plugins:a-guard",
    ]


def test_the_groups_parameter_limits_and_orders_the_groups_read(site: FakeSite) -> None:
    """A host built for some groups reads only those, in the order given."""
    site.distribution(
        "both",
        {"nucleo.tools": {"t": "both_tools"}, "nucleo.plugins": {"p": "both_guard"}},
        modules={"both_tools": TOOLS_MODULE, "both_guard": GUARD_MODULE},
    )
    records = PluginHost(path=[site.root], environment={}, groups=("nucleo.plugins",)).load()
    assert [record.plugin for record in records] == ["nucleo.plugins:p"]


def test_one_module_under_two_groups_loads_once(site: FakeSite) -> None:
    """The second entry point naming a loaded module is a duplicate and registers nothing."""
    site.distribution(
        "acme",
        {"nucleo.tools": {"acme": "acme_both"}, "nucleo.plugins": {"acme-hooks": "acme_both"}},
        modules={"acme_both": TOOLS_MODULE},
    )
    host = PluginHost(path=[site.root], environment={})
    first, second = host.load()
    assert (first.status, first.plugin) == ("loaded", "nucleo.tools:acme")
    assert (second.status, second.note) == ("duplicate", "already loaded as nucleo.tools:acme")
    assert second.contributed == ()
    assert len(host.system_wide_tools()) == 1
    assert len(host.pack_tools()) == 2


def test_a_second_load_finds_distributions_added_since_and_returns_only_them(
    site: FakeSite,
) -> None:
    """load() picks up a distribution put on sys.path after the first load, and only it."""
    site.distribution(
        "first", {"nucleo.tools": {"first": "first_tools"}}, modules={"first_tools": TOOLS_MODULE}
    )
    host = PluginHost(path=[site.root], environment={})
    assert [record.name for record in host.load()] == ["first"]
    assert host.load() == []
    site.distribution(
        "second",
        {"nucleo.plugins": {"second": "second_guard"}},
        modules={"second_guard": GUARD_MODULE},
    )
    new = host.load()
    assert [(record.name, record.status) for record in new] == [("second", "loaded")]
    assert [record.name for record in host.records] == ["first", "second"]
    assert [tool.plugin for tool in host.pack_tools({r.plugin for r in new})] == []


def test_register_plugin_takes_a_hook_plugin_from_code() -> None:
    """A plugin registered directly is recorded under its name and its hooks are called."""
    from nucleo_core.plugins import Verdict, hookimpl

    class Guard:
        @staticmethod
        @hookimpl
        def nucleo_admit_tool(thinker: object, provider: object) -> Verdict:
            return Verdict.refuse("no")

    host = PluginHost(environment={})
    record = host.register_plugin(Guard, name="guard", distribution="nucleo-core")
    assert (record.name, record.group, record.status) == ("guard", None, "loaded")
    assert record.plugin == "guard"
    assert record.distribution == "nucleo-core"
    assert record.version is not None  # looked up: nucleo-core is installed
    assert record.contributed == ("hooks: nucleo_admit_tool",)
    [said] = host.admit_tool(None, None)
    assert (said.plugin, said.distribution, said.verdict) == (
        "guard",
        "nucleo-core",
        Verdict.refuse("no"),
    )


def test_registering_the_same_plugin_twice_records_a_duplicate() -> None:
    """The same object registered again, under any name, is a duplicate of the first."""
    import types

    from nucleo_core.plugins import hookimpl

    plugin = types.ModuleType("twice_plugin")
    plugin.nucleo_system_wide_tools = hookimpl(lambda: None)  # type: ignore[attr-defined]
    host = PluginHost(environment={})
    first = host.register_plugin(plugin)
    second = host.register_plugin(plugin, name="again")
    assert (first.name, first.status) == ("twice_plugin", "loaded")
    assert (second.status, second.note) == ("duplicate", "already loaded as twice_plugin")


def test_a_plugin_name_already_taken_fails() -> None:
    """Two different plugins cannot share a plugin name; the second one is reported."""
    import types

    from nucleo_core.plugins import hookimpl

    plugins = []
    for _ in range(2):
        plugin = types.ModuleType("same")
        plugin.nucleo_system_wide_tools = hookimpl(lambda: None)  # type: ignore[attr-defined]
        plugins.append(plugin)
    host = PluginHost(environment={})
    host.register_plugin(plugins[0])
    record = host.register_plugin(plugins[1])
    assert (record.status, record.error) == (
        "failed",
        "the plugin name same is already taken by same",
    )


def test_a_plugin_object_is_named_after_its_class_by_default() -> None:
    """An instance registered without a name is recorded under its class's dotted name."""
    from nucleo_core.plugins import hookimpl

    class Policy:
        @hookimpl
        def nucleo_reconcile_catalog(self, thinker: object, catalog: list[str]) -> list[str]:
            return catalog[:1]

    host = PluginHost(environment={})
    record = host.register_plugin(Policy())
    assert record.name == f"{__name__}.{Policy.__qualname__}"
    assert host.withheld(None, ["a", "b"]) == {"a"}
