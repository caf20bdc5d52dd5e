"""Unit tests of which plugins a `PluginHost` loads: allow and block lists, the autoload switch."""

import sys
import types

import pytest
from _plugin_site import FakeSite

from nucleo_core.plugins import (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    PluginHost,
    hookimpl,
)

GUARD = """
from nucleo_core.plugins import hookimpl


@hookimpl
def nucleo_admit_tool(thinker, provider):
    return None
"""


@pytest.fixture
def three(site: FakeSite) -> FakeSite:
    """Three distributions, each with one hook-only plugin named after it."""
    for name in ("acme-guard", "beta-guard", "Gamma_Policies"):
        module = name.lower().replace("-", "_") + "_mod"
        site.distribution(name, {"nucleo.plugins": {name.lower(): module}}, modules={module: GUARD})
    return site


def _statuses(host: PluginHost) -> dict[str, str]:
    return {record.name: record.status for record in host.load()}


def _direct_plugin(name: str) -> types.ModuleType:
    plugin = types.ModuleType(name)
    plugin.nucleo_system_wide_tools = hookimpl(lambda: None)  # type: ignore[attr-defined]
    return plugin


def test_without_lists_every_entry_point_loads(three: FakeSite) -> None:
    """With no allow or block list, every installed plugin loads."""
    assert set(_statuses(PluginHost(environment={})).values()) == {"loaded"}


def test_a_blocked_entry_point_is_recorded_and_never_imported(three: FakeSite) -> None:
    """A block pattern matching an entry point's name keeps its module from being imported."""
    host = PluginHost(block=["beta-*"], environment={})
    assert _statuses(host) == {
        "acme-guard": "loaded",
        "beta-guard": "blocked",
        "gamma_policies": "loaded",
    }
    [blocked] = [record for record in host.records if record.status == "blocked"]
    assert blocked.note == "blocked: matches 'beta-*' in the block list"
    assert blocked.distribution == "beta-guard"
    assert "beta_guard_mod" not in sys.modules


def test_a_block_pattern_may_name_the_distribution_normalized(three: FakeSite) -> None:
    """Distribution names match as packaging normalizes them: case and separators folded."""
    host = PluginHost(block=["gamma-policies"], environment={})
    assert _statuses(host)["gamma_policies"] == "blocked"


def test_a_block_pattern_may_name_the_plugin_with_its_group(three: FakeSite) -> None:
    """``<group>:<name>`` blocks one entry point precisely."""
    host = PluginHost(block=["nucleo.plugins:acme-guard"], environment={})
    assert _statuses(host)["acme-guard"] == "blocked"


def test_an_allow_list_loads_only_what_it_names(three: FakeSite) -> None:
    """Entry points matching no allow pattern are recorded blocked, not imported."""
    host = PluginHost(allow=["acme-guard", "gamma*"], environment={})
    assert _statuses(host) == {
        "acme-guard": "loaded",
        "beta-guard": "blocked",
        "gamma_policies": "loaded",
    }
    assert host.records[1].note == "blocked: not in the allow list"


def test_block_wins_over_allow(three: FakeSite) -> None:
    """An entry point both allowed and blocked is blocked."""
    host = PluginHost(allow=["*"], block=["acme-guard"], environment={})
    assert _statuses(host)["acme-guard"] == "blocked"


def test_an_empty_allow_list_loads_nothing(three: FakeSite) -> None:
    """allow=[] is a list that names nothing, not the absence of a list."""
    host = PluginHost(allow=[], environment={ALLOW_ENVIRONMENT_VARIABLE: "acme-guard"})
    assert set(_statuses(host).values()) == {"blocked"}


def test_the_environment_allow_list_applies_when_the_parameter_is_none(three: FakeSite) -> None:
    """NUCLEO_PLUGINS_ALLOW (comma-separated) is the allow list when code gives none."""
    host = PluginHost(environment={ALLOW_ENVIRONMENT_VARIABLE: " beta-guard , gamma* "})
    assert _statuses(host) == {
        "acme-guard": "blocked",
        "beta-guard": "loaded",
        "gamma_policies": "loaded",
    }


def test_the_environment_block_list_adds_to_the_parameter(three: FakeSite) -> None:
    """NUCLEO_PLUGINS_BLOCK is added to block=, so an operator can always block a plugin."""
    host = PluginHost(block=["acme-guard"], environment={BLOCK_ENVIRONMENT_VARIABLE: "beta-guard"})
    assert _statuses(host) == {
        "acme-guard": "blocked",
        "beta-guard": "blocked",
        "gamma_policies": "loaded",
    }


def test_the_process_environment_is_read_by_default(
    three: FakeSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without an environment argument, the host reads os.environ."""
    monkeypatch.setenv(BLOCK_ENVIRONMENT_VARIABLE, "acme-guard")
    assert _statuses(PluginHost())["acme-guard"] == "blocked"


def test_enabled_false_records_every_entry_point_as_disabled(three: FakeSite) -> None:
    """Switched off, load() imports nothing and records each entry point as disabled."""
    host = PluginHost(enabled=False, environment={})
    assert set(_statuses(host).values()) == {"disabled"}
    assert host.records[0].note == "entry-point loading is switched off (enabled=False)"
    assert not any(name.endswith("_guard_mod") for name in sys.modules)


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_the_environment_switches_autoload_off(three: FakeSite, value: str) -> None:
    """NUCLEO_DISABLE_PLUGIN_AUTOLOAD set to a true value disables entry-point loading."""
    host = PluginHost(environment={DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE: value})
    assert set(_statuses(host).values()) == {"disabled"}
    assert host.records[0].note == (
        f"entry-point loading is switched off ({DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE}={value})"
    )


@pytest.mark.parametrize("value", ["", "0", "false", "off"])
def test_a_false_environment_value_leaves_autoload_on(three: FakeSite, value: str) -> None:
    """NUCLEO_DISABLE_PLUGIN_AUTOLOAD set to an empty or false value changes nothing."""
    host = PluginHost(environment={DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE: value})
    assert set(_statuses(host).values()) == {"loaded"}


def test_the_enabled_parameter_wins_over_the_environment(three: FakeSite) -> None:
    """enabled=True loads entry points even with NUCLEO_DISABLE_PLUGIN_AUTOLOAD set."""
    host = PluginHost(enabled=True, environment={DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE: "1"})
    assert set(_statuses(host).values()) == {"loaded"}


def test_direct_registration_ignores_the_allow_list_and_the_switch() -> None:
    """Code that registers a plugin has chosen it: neither allow= nor enabled=False stops it."""
    host = PluginHost(allow=["something-else"], enabled=False, environment={})
    assert host.register_plugin(_direct_plugin("builtin_guard")).status == "loaded"


def test_direct_registration_obeys_the_block_list() -> None:
    """A directly registered plugin can be blocked by name or by distribution."""
    host = PluginHost(environment={BLOCK_ENVIRONMENT_VARIABLE: "builtin_*,nucleo-extras"})
    by_name = host.register_plugin(_direct_plugin("builtin_guard"))
    by_distribution = host.register_plugin(_direct_plugin("extra"), distribution="nucleo_extras")
    assert (by_name.status, by_name.note) == (
        "blocked",
        "blocked: matches 'builtin_*' in the block list",
    )
    assert by_distribution.status == "blocked"
    assert host.admit_tool(None, None) == []


def test_an_unknown_group_is_refused() -> None:
    """A host cannot be built for an entry point group nucleo does not define."""
    with pytest.raises(ValueError, match=r"unknown entry point group\(s\) \['nucleo.tool'\]"):
        PluginHost(groups=("nucleo.tool",), environment={})
