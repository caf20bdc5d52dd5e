"""Unit tests of plugin failures: recorded with distribution and reason, or raised when strict."""

import pytest
from _plugin_site import FakeSite

from nucleo_core.errors import MisuseError
from nucleo_core.plugins import PluginError, PluginHost

GOOD = """
from nucleo_core.plugins import hookimpl


@hookimpl
def nucleo_admit_tool(thinker, provider):
    return None
"""

#: Entry point name -> (module source, the reason its record must show).
BROKEN = {
    "a-syntax": ("def broken(:\n", "failed to import: SyntaxError: "),
    "b-raises": ("raise RuntimeError('no config')\n", "failed to import: RuntimeError: no config"),
    "c-missing-dep": (
        "import surely_not_installed_dependency\n",
        "missing dependency: surely_not_installed_dependency",
    ),
    "d-unknown-hook": (
        "from nucleo_core.plugins import hookimpl\n\n"
        "@hookimpl\ndef nucleo_admit_tools(thinker, provider):\n    return None\n",
        "names a hook that does not exist: nucleo_admit_tools",
    ),
    "e-unmarked-typo": (
        "def nucleo_system_tools():\n    return []\n",
        "names a hook that does not exist: nucleo_system_tools",
    ),
    "f-unmarked-known": (
        "def nucleo_admit_tool(thinker, provider):\n    return None\n",
        "nucleo_admit_tool is not marked with @nucleo_core.plugins.hookimpl, so it would never "
        "be called",
    ),
    "g-bad-arguments": (
        "from nucleo_core.plugins import hookimpl\n\n"
        "@hookimpl\ndef nucleo_admit_tool(thinker, provider, budget):\n    return None\n",
        "invalid hook implementation: Plugin 'nucleo.plugins:g-bad-arguments' for hook "
        "'nucleo_admit_tool' hookimpl definition: nucleo_admit_tool(thinker, provider, budget) "
        "Argument(s) {'budget'} are declared in the hookimpl but can not be found in the "
        "hookspec",
    ),
    "h-wrapper": (
        "from nucleo_core.plugins import hookimpl\n\n"
        "@hookimpl(wrapper=True)\ndef nucleo_admit_tool(thinker, provider):\n"
        "    return (yield)\n",
        "nucleo_admit_tool is a hook wrapper, which nucleo does not support: it calls each "
        "implementation on its own",
    ),
}


def _module(name: str) -> str:
    return "broken_" + name.replace("-", "_")


@pytest.fixture
def broken(site: FakeSite) -> FakeSite:
    """One distribution per failure kind, plus a good plugin sorted between them."""
    for name, (source, _) in BROKEN.items():
        site.distribution(f"dist-{name}", {"nucleo.plugins": {name: _module(name)}})
        site.module(_module(name), source)
    site.distribution("good-guard", {"nucleo.plugins": {"c-good": "good_guard"}})
    site.module("good_guard", GOOD)
    return site


def test_each_failure_is_recorded_with_its_distribution_and_reason(broken: FakeSite) -> None:
    """Every broken plugin is listed as failed, naming its distribution and why."""
    host = PluginHost(path=[broken.root], environment={})
    records = {record.name: record for record in host.load()}
    for name, (_, reason) in BROKEN.items():
        record = records[name]
        assert record.status == "failed", name
        assert record.distribution == f"dist-{name}"
        assert record.error is not None
        assert record.error.startswith(reason), (name, record.error)
        assert record.contributed == ()


def test_the_rest_still_loads_around_broken_plugins(broken: FakeSite) -> None:
    """A good plugin sorted among broken ones loads, and only its hooks are called."""
    host = PluginHost(path=[broken.root], environment={})
    host.load()
    assert host.record("nucleo.plugins:c-good") is not None
    assert [said.plugin for said in host.admit_tool(None, None)] == ["nucleo.plugins:c-good"]


def test_a_failed_plugin_leaves_no_hook_registered(site: FakeSite) -> None:
    """A plugin failing validation has none of its hooks called, not even its valid ones."""
    site.distribution("half", {"nucleo.plugins": {"half": "half_guard"}})
    site.module(
        "half_guard",
        GOOD + "\n\n@hookimpl\ndef nucleo_no_such_hook():\n    return None\n",
    )
    host = PluginHost(path=[site.root], environment={})
    [record] = host.load()
    assert record.status == "failed"
    assert host.admit_tool(None, None) == []


def test_a_missing_own_module_is_a_failed_import_not_a_missing_dependency(site: FakeSite) -> None:
    """An entry point whose own module is absent names the distribution as broken."""
    site.distribution("hollow", {"nucleo.plugins": {"hollow": "hollow_pkg.guard"}})
    [record] = PluginHost(path=[site.root], environment={}).load()
    assert record.error == "failed to import: ModuleNotFoundError: No module named 'hollow_pkg'"


def test_a_missing_attribute_is_a_failed_import(site: FakeSite) -> None:
    """An entry point naming an attribute its module lacks fails to import."""
    site.distribution("noattr", {"nucleo.tools": {"noattr": "noattr_mod:missing"}})
    site.module("noattr_mod", "X = 1\n")
    [record] = PluginHost(path=[site.root], environment={}).load()
    assert record.status == "failed"
    assert record.error is not None
    assert record.error.startswith("failed to import: AttributeError: ")


@pytest.mark.parametrize(
    ("value", "source", "reason"),
    [
        (
            "bad_tools:make",
            "def make():\n    return 'search'\n",
            "returned the wrong type from bad_tools:make: expected a tool provider, a "
            "ToolPackResult or an iterable of tool providers, @tool classes or @tool functions, "
            "got str",
        ),
        (
            "bad_tools:make",
            "def make():\n    return [print]\n",
            "returned the wrong type from bad_tools:make: expected a tool provider, a "
            "ToolPackResult or an iterable of tool providers, @tool classes or @tool functions, "
            "got list holding builtin_function_or_method",
        ),
        (
            "bad_tools:make",
            "def make():\n    raise LookupError('no catalog')\n",
            "raised in bad_tools:make: LookupError: no catalog",
        ),
        (
            "bad_tools:NUMBER",
            "NUMBER = 3\n",
            "expected a module, a tool, a tool provider or a callable returning tools, got int",
        ),
        (
            "bad_tools:Undeclared",
            "from nucleo_core import Tool\n\nclass Undeclared(Tool):\n    def run(self, input):\n"
            "        return input\n",
            "Undeclared is a Tool class not declared with @tool",
        ),
    ],
)
def test_a_tools_entry_point_that_is_no_tool_fails(
    site: FakeSite, value: str, source: str, reason: str
) -> None:
    """A nucleo.tools value that neither is nor makes tools is reported with the reason."""
    site.distribution("bad-tools", {"nucleo.tools": {"bad": value}})
    site.module("bad_tools", source)
    host = PluginHost(path=[site.root], environment={})
    [record] = host.load()
    assert (record.status, record.error, record.distribution) == ("failed", reason, "bad-tools")
    assert host.pack_tools() == []


def test_a_tools_module_with_a_bad_hook_contributes_no_tools(site: FakeSite) -> None:
    """A tool pack whose hooks are invalid fails as a whole: none of its tools are taken."""
    site.distribution("pack", {"nucleo.tools": {"pack": "pack_mod"}})
    site.module(
        "pack_mod",
        "from nucleo_core import tool\n\n@tool\ndef ping(text: str) -> str:\n"
        '    """Ping."""\n    return text\n\ndef nucleo_ping():\n    return None\n',
    )
    host = PluginHost(path=[site.root], environment={})
    [record] = host.load()
    assert (record.status, record.error) == (
        "failed",
        "names a hook that does not exist: nucleo_ping",
    )
    assert host.pack_tools() == []


def test_a_tool_function_named_like_a_hook_is_a_tool(site: FakeSite) -> None:
    """A @tool function whose name starts with nucleo_ is not mistaken for a hook."""
    site.distribution("named", {"nucleo.tools": {"named": "named_mod"}})
    site.module(
        "named_mod",
        "from nucleo_core import tool\n\n@tool\ndef nucleo_status(text: str) -> str:\n"
        '    """Report the status."""\n    return text\n',
    )
    [record] = PluginHost(path=[site.root], environment={}).load()
    assert (record.status, record.contributed) == ("loaded", ("tool: nucleo_status",))


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_strict_host_raises_on_each_failure_after_recording_it(site: FakeSite, name: str) -> None:
    """strict=True raises PluginError naming the plugin, distribution and reason."""
    source, reason = BROKEN[name]
    site.distribution(f"dist-{name}", {"nucleo.plugins": {name: _module(name)}})
    site.module(_module(name), source)
    host = PluginHost(path=[site.root], strict=True, environment={})
    with pytest.raises(PluginError) as raised:
        host.load()
    error = raised.value
    assert isinstance(error, MisuseError)
    assert (error.plugin, error.distribution) == (f"nucleo.plugins:{name}", f"dist-{name}")
    assert error.reason.startswith(reason)
    assert str(error).startswith(f"plugin nucleo.plugins:{name} (distribution dist-{name}): ")
    [record] = host.records
    assert (record.status, record.error) == ("failed", error.reason)


def test_a_strict_host_stops_at_the_first_failure_and_resumes_on_the_next_load(
    broken: FakeSite,
) -> None:
    """Entry points after the failing one are left for the next load(), not skipped."""
    host = PluginHost(path=[broken.root], strict=True, environment={})
    with pytest.raises(PluginError, match="a-syntax"):
        host.load()
    assert [record.name for record in host.records] == ["a-syntax"]
    with pytest.raises(PluginError, match="b-raises"):
        host.load()
    assert [record.name for record in host.records] == ["a-syntax", "b-raises"]


def test_a_strict_host_chains_the_original_exception(site: FakeSite) -> None:
    """The plugin's own exception is kept as the PluginError's cause, for its traceback."""
    site.distribution("boom", {"nucleo.plugins": {"boom": "boom_mod"}})
    site.module("boom_mod", "raise RuntimeError('no config')\n")
    with pytest.raises(PluginError) as raised:
        PluginHost(path=[site.root], strict=True, environment={}).load()
    assert isinstance(raised.value.__cause__, RuntimeError)


def test_a_strict_host_raises_for_a_bad_direct_registration() -> None:
    """register_plugin on a strict host raises for a plugin with no hook."""
    import types

    host = PluginHost(strict=True, environment={})
    with pytest.raises(PluginError, match="implements no nucleo_\\* hook"):
        host.register_plugin(types.ModuleType("hookless"), distribution="acme")
