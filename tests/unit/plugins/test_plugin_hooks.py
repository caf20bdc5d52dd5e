"""Unit tests of how `PluginHost` calls hooks: one implementation at a time, isolated."""

import threading
import types
from collections.abc import Callable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from _plugin_site import FakeSite

from nucleo_core import FunctionToolProvider, tool
from nucleo_core.plugins import HookVerdict, PluginError, PluginHost, Verdict, hookimpl
from nucleo_core.skills.skill import Skill


@tool
def alpha(text: str) -> str:
    """Alpha."""
    return text


@tool
def beta(text: str) -> str:
    """Beta."""
    return text


ALPHA = FunctionToolProvider(alpha)
BETA = FunctionToolProvider(beta)


def plugin(name: str, **hooks: Callable[..., Any]) -> types.ModuleType:
    """A plugin module named ``name`` implementing ``hooks`` (values may carry hookimpl opts)."""
    module = types.ModuleType(name)
    for hook, function in hooks.items():
        marked = function if hasattr(function, "nucleo_impl") else hookimpl(function)
        setattr(module, hook, marked)
    return module


def host_with(*plugins: types.ModuleType, strict: bool = False) -> PluginHost:
    """A host with ``plugins`` registered directly, each attributed to ``dist-<name>``."""
    host = PluginHost(strict=strict, environment={})
    for each in plugins:
        record = host.register_plugin(each, distribution=f"dist-{each.__name__}")
        assert record.status == "loaded", record
    return host


def _raise(exc: Exception) -> Any:
    raise exc


class Thinker:
    """Stands in for a thinker class."""


def test_tool_hooks_are_attributed_to_their_plugin_in_load_order() -> None:
    """Every implementation's tools come back, in load order, with plugin and distribution."""
    host = host_with(
        plugin("first", nucleo_system_wide_tools=lambda: [alpha]),
        plugin("none", nucleo_system_wide_tools=lambda: None),
        plugin("second", nucleo_system_wide_tools=lambda: (BETA, alpha)),
    )
    found = host.system_wide_tools()
    assert [(c.provider, c.plugin, c.distribution) for c in found] == [
        (ALPHA, "first", "dist-first"),
        (BETA, "second", "dist-second"),
        (ALPHA, "second", "dist-second"),
    ]


def test_compatible_tools_passes_the_thinker_class() -> None:
    """nucleo_compatible_tools receives the thinker class being resolved."""
    host = host_with(
        plugin(
            "picky",
            nucleo_compatible_tools=lambda thinker_class: (
                [beta] if thinker_class is Thinker else []
            ),
        )
    )
    assert [c.provider for c in host.compatible_tools(Thinker)] == [BETA]
    assert host.compatible_tools(object) == []


def test_an_implementation_may_take_fewer_arguments_than_the_hook() -> None:
    """As in pluggy, an implementation is passed only the arguments it names."""
    host = host_with(plugin("lazy", nucleo_compatible_tools=lambda: [alpha]))
    assert [c.provider for c in host.compatible_tools(Thinker)] == [ALPHA]


def test_the_plugins_argument_restricts_the_call_to_those_plugins() -> None:
    """Only the named plugins are asked: how the hub widens catalogs with newly loaded ones."""
    host = host_with(
        plugin("old", nucleo_compatible_tools=lambda thinker_class: [alpha]),
        plugin("new", nucleo_compatible_tools=lambda thinker_class: [beta]),
    )
    assert [c.plugin for c in host.compatible_tools(Thinker, plugins={"new"})] == ["new"]
    assert [c.plugin for c in host.system_wide_tools(plugins=set())] == []


@pytest.mark.parametrize(
    ("answer", "got"),
    [
        ("alpha", "str"),
        (ALPHA, "FunctionToolProvider"),
        ([alpha, 3], "list holding int"),
        ({"alpha": alpha}, "dict holding str"),
    ],
)
def test_a_tool_hook_returning_the_wrong_type_is_recorded_and_skipped(
    answer: object, got: str
) -> None:
    """A wrong answer contributes nothing, is recorded on the plugin, and others still count."""
    host = host_with(
        plugin("wrong", nucleo_system_wide_tools=lambda: answer),
        plugin("right", nucleo_system_wide_tools=lambda: [beta]),
    )
    assert [c.provider for c in host.system_wide_tools()] == [BETA]
    record = host.record("wrong")
    assert record is not None
    assert record.status == "loaded"
    assert record.hook_errors == (
        "returned the wrong type from nucleo_system_wide_tools: expected an iterable of tool "
        f"providers, @tool classes or @tool functions, or None, got {got}",
    )


def test_a_hook_raising_is_recorded_and_skipped() -> None:
    """A raising implementation is recorded as raised and the others still contribute."""
    host = host_with(
        plugin("crash", nucleo_compatible_tools=lambda: _raise(KeyError("cfg"))),
        plugin("fine", nucleo_compatible_tools=lambda: [alpha]),
    )
    assert [c.provider for c in host.compatible_tools(Thinker)] == [ALPHA]
    record = host.record("crash")
    assert record is not None
    assert record.hook_errors == ("raised in nucleo_compatible_tools: KeyError: 'cfg'",)


def test_a_generator_failing_midway_contributes_nothing() -> None:
    """An answer that raises while being read counts as raising; its first items are dropped."""

    def tools() -> Iterator[object]:
        yield alpha
        raise RuntimeError("lost connection")

    host = host_with(plugin("flaky", nucleo_system_wide_tools=tools))
    assert host.system_wide_tools() == []
    record = host.record("flaky")
    assert record is not None
    assert record.hook_errors == (
        "raised in nucleo_system_wide_tools: RuntimeError: lost connection",
    )


def test_the_same_hook_failure_is_recorded_once() -> None:
    """A hook failing the same way on every call adds one entry to its record."""
    host = host_with(plugin("crash", nucleo_system_wide_tools=lambda: _raise(ValueError("x"))))
    for _ in range(3):
        host.system_wide_tools()
    record = host.record("crash")
    assert record is not None
    assert len(record.hook_errors) == 1


def test_failures_are_logged_with_the_distribution(caplog: pytest.LogCaptureFixture) -> None:
    """A hook failure is logged naming the plugin, its distribution and the reason."""
    host = host_with(plugin("crash", nucleo_system_wide_tools=lambda: _raise(ValueError("x"))))
    with caplog.at_level("WARNING", logger="nucleo_core.plugins"):
        host.system_wide_tools()
    assert "plugin crash (dist-crash): raised in nucleo_system_wide_tools: ValueError: x" in (
        caplog.text
    )


def test_admission_asks_every_implementation_one_at_a_time() -> None:
    """A raising guardrail neither skips the others nor counts as a verdict."""
    asked: list[str] = []

    def refuse(thinker: object, provider: object) -> Verdict:
        asked.append("refuse")
        return Verdict.refuse("not today")

    def crash(thinker: object, provider: object) -> Verdict:
        asked.append("crash")
        raise RuntimeError("guardrail bug")

    def grant(thinker: object, provider: object) -> Verdict:
        asked.append("grant")
        return Verdict.grant("fine")

    host = host_with(
        plugin("refuser", nucleo_admit_tool=refuse),
        plugin("crasher", nucleo_admit_tool=crash),
        plugin("granter", nucleo_admit_tool=grant),
        plugin("silent", nucleo_admit_tool=lambda thinker, provider: None),
    )
    verdicts = host.admit_tool(Thinker(), ALPHA)
    assert asked == ["refuse", "crash", "grant"]
    assert verdicts == [
        HookVerdict(
            plugin="refuser", distribution="dist-refuser", verdict=Verdict.refuse("not today")
        ),
        HookVerdict(
            plugin="crasher",
            distribution="dist-crasher",
            verdict=None,
            error="raised in nucleo_admit_tool: RuntimeError: guardrail bug",
        ),
        HookVerdict(plugin="granter", distribution="dist-granter", verdict=Verdict.grant("fine")),
        HookVerdict(plugin="silent", distribution="dist-silent"),
    ]


def test_an_admission_answer_of_the_wrong_type_is_an_error_not_a_grant() -> None:
    """A guardrail returning True instead of a Verdict is reported as a failure."""
    host = host_with(plugin("truthy", nucleo_admit_skill=lambda thinker, skill: True))
    [said] = host.admit_skill(Thinker(), Skill(name="s", description="d", instructions=""))
    assert said.verdict is None
    assert said.error == (
        "returned the wrong type from nucleo_admit_skill: expected a Verdict (granted: bool, "
        "reason: str) or None, got bool"
    )


def test_admission_passes_the_thinker_and_the_subject() -> None:
    """nucleo_admit_tool receives the thinker and the provider, by name."""
    seen: list[tuple[object, object]] = []
    thinker = Thinker()
    host = host_with(
        plugin("spy", nucleo_admit_tool=lambda provider, thinker: seen.append((thinker, provider)))
    )
    host.admit_tool(thinker, ALPHA)
    assert seen == [(thinker, ALPHA)]


def test_withheld_is_the_union_of_answers_inside_the_catalog() -> None:
    """Names withheld by any plugin are withheld; names outside the catalog are ignored."""
    host = host_with(
        plugin("one", nucleo_reconcile_catalog=lambda thinker, catalog: ["alpha", "ghost"]),
        plugin("two", nucleo_reconcile_catalog=lambda thinker, catalog: {"beta"}),
        plugin("none", nucleo_reconcile_catalog=lambda thinker, catalog: None),
    )
    assert host.withheld(Thinker(), ["alpha", "beta", "gamma"]) == {"alpha", "beta"}


def test_a_failing_reconciliation_withholds_the_whole_catalog_and_is_recorded() -> None:
    """A reconcile hook returning a bare string is a wrong type, which fails closed."""
    host = host_with(plugin("stringy", nucleo_reconcile_catalog=lambda thinker, catalog: "alpha"))
    assert host.withheld(Thinker(), ["a", "alpha"]) == {"a", "alpha"}
    record = host.record("stringy")
    assert record is not None
    assert record.hook_errors == (
        "returned the wrong type from nucleo_reconcile_catalog: expected an iterable of tool "
        "names (str), or None, got str",
    )


def test_skill_sources_accept_skills_paths_and_traversables(tmp_path: Path) -> None:
    """Skills, str paths, PathLike and importlib.resources traversables all pass."""
    skill = Skill(name="s", description="d", instructions="")
    traversable = files("nucleo_core")
    host = host_with(
        plugin(
            "sources", nucleo_skill_sources=lambda: [skill, str(tmp_path), tmp_path, traversable]
        )
    )
    found = host.skill_sources()
    assert [c.source for c in found] == [skill, str(tmp_path), tmp_path, traversable]
    assert {(c.plugin, c.distribution) for c in found} == {("sources", "dist-sources")}


def test_a_skill_source_of_the_wrong_type_is_recorded_and_skipped() -> None:
    """A source that is neither a skill, a path nor a traversable drops that answer."""
    host = host_with(plugin("bad", nucleo_skill_sources=lambda: [42]))
    assert host.skill_sources() == []
    record = host.record("bad")
    assert record is not None
    assert record.hook_errors[0].endswith("got list holding int")


def test_tryfirst_and_trylast_reorder_calls_around_load_order() -> None:
    """Load order decides, except that tryfirst ones come first and trylast ones last."""
    host = host_with(
        plugin("last", nucleo_system_wide_tools=hookimpl(trylast=True)(lambda: [alpha])),
        plugin("plain", nucleo_system_wide_tools=lambda: [alpha]),
        plugin("first", nucleo_system_wide_tools=hookimpl(tryfirst=True)(lambda: [alpha])),
        plugin("plain-too", nucleo_system_wide_tools=lambda: [alpha]),
    )
    assert [c.plugin for c in host.system_wide_tools()] == ["first", "plain", "plain-too", "last"]


def test_a_strict_host_raises_when_a_hook_fails_after_recording_it() -> None:
    """strict=True turns a hook failure into PluginError naming plugin and distribution."""
    host = host_with(
        plugin("crash", nucleo_admit_tool=lambda thinker, provider: _raise(OSError("disk"))),
        strict=True,
    )
    with pytest.raises(PluginError) as raised:
        host.admit_tool(Thinker(), ALPHA)
    assert (raised.value.plugin, raised.value.distribution, raised.value.reason) == (
        "crash",
        "dist-crash",
        "raised in nucleo_admit_tool: OSError: disk",
    )
    assert isinstance(raised.value.__cause__, OSError)
    record = host.record("crash")
    assert record is not None
    assert record.hook_errors == ("raised in nucleo_admit_tool: OSError: disk",)


def test_entry_point_hooks_are_attributed_to_the_entry_point_plugin(site: FakeSite) -> None:
    """A hook of a loaded entry point answers as <group>:<name> with its distribution."""
    site.distribution(
        "acme-guard", {"nucleo.plugins": {"guard": "acme_guard_hooks"}}, version="3.1"
    )
    site.module(
        "acme_guard_hooks",
        "from nucleo_core.plugins import Verdict, hookimpl\n\n"
        "@hookimpl\ndef nucleo_admit_tool(thinker, provider):\n"
        "    return Verdict.refuse('acme says no')\n",
    )
    host = PluginHost(path=[site.root], environment={})
    host.load()
    assert host.admit_tool(Thinker(), ALPHA) == [
        HookVerdict(
            plugin="nucleo.plugins:guard",
            distribution="acme-guard",
            verdict=Verdict.refuse("acme says no"),
        )
    ]


def test_concurrent_loads_load_each_entry_point_once(site: FakeSite) -> None:
    """load() from several threads at once meets each entry point exactly once."""
    for index in range(5):
        site.distribution(
            f"pack-{index}", {"nucleo.tools": {f"pack-{index}": f"pack_{index}:alpha"}}
        )
        site.module(
            f"pack_{index}",
            "from nucleo_core import tool\n\n@tool\ndef alpha(text: str) -> str:\n"
            '    """Alpha."""\n    return text\n',
        )
    host = PluginHost(path=[site.root], environment={})
    barrier = threading.Barrier(4)
    results: list[int] = []

    def load() -> None:
        barrier.wait()
        results.append(len(host.load()))
        host.admit_tool(Thinker(), ALPHA)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [0, 0, 0, 5]
    assert [record.name for record in host.records] == [f"pack-{i}" for i in range(5)]
