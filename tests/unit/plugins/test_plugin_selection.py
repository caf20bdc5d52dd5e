"""Unit tests of which plugins a `PluginHost` loads: allow and block lists, the autoload switch."""

import os
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from _plugin_site import FakeSite, fake_site

from nucleo_core.plugins import (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    PATH_ENVIRONMENT_VARIABLE,
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
    assert set(_statuses(PluginHost(path=[three.root], environment={})).values()) == {"loaded"}


def test_a_blocked_entry_point_is_recorded_and_never_imported(three: FakeSite) -> None:
    """A block pattern matching an entry point's name keeps its module from being imported."""
    host = PluginHost(path=[three.root], block=["beta-*"], environment={})
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
    host = PluginHost(path=[three.root], block=["gamma-policies"], environment={})
    assert _statuses(host)["gamma_policies"] == "blocked"


def test_a_block_pattern_may_name_the_plugin_with_its_group(three: FakeSite) -> None:
    """``<group>:<name>`` blocks one entry point precisely."""
    host = PluginHost(path=[three.root], block=["nucleo.plugins:acme-guard"], environment={})
    assert _statuses(host)["acme-guard"] == "blocked"


def test_an_allow_list_loads_only_what_it_names(three: FakeSite) -> None:
    """Entry points matching no allow pattern are recorded blocked, not imported."""
    host = PluginHost(path=[three.root], allow=["acme-guard", "gamma*"], environment={})
    assert _statuses(host) == {
        "acme-guard": "loaded",
        "beta-guard": "blocked",
        "gamma_policies": "loaded",
    }
    assert host.records[1].note == "blocked: not in the allow list"


def test_block_wins_over_allow(three: FakeSite) -> None:
    """An entry point both allowed and blocked is blocked."""
    host = PluginHost(path=[three.root], allow=["*"], block=["acme-guard"], environment={})
    assert _statuses(host)["acme-guard"] == "blocked"


def test_an_empty_allow_list_loads_nothing(three: FakeSite) -> None:
    """allow=[] is a list that names nothing, not the absence of a list."""
    host = PluginHost(
        path=[three.root], allow=[], environment={ALLOW_ENVIRONMENT_VARIABLE: "acme-guard"}
    )
    assert set(_statuses(host).values()) == {"blocked"}


def test_the_environment_allow_list_applies_when_the_parameter_is_none(three: FakeSite) -> None:
    """NUCLEO_PLUGINS_ALLOW (comma-separated) is the allow list when code gives none."""
    host = PluginHost(
        path=[three.root], environment={ALLOW_ENVIRONMENT_VARIABLE: " beta-guard , gamma* "}
    )
    assert _statuses(host) == {
        "acme-guard": "blocked",
        "beta-guard": "loaded",
        "gamma_policies": "loaded",
    }


def test_the_environment_block_list_adds_to_the_parameter(three: FakeSite) -> None:
    """NUCLEO_PLUGINS_BLOCK is added to block=, so an operator can always block a plugin."""
    host = PluginHost(
        path=[three.root],
        block=["acme-guard"],
        environment={BLOCK_ENVIRONMENT_VARIABLE: "beta-guard"},
    )
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
    assert _statuses(PluginHost(path=[three.root]))["acme-guard"] == "blocked"


def test_enabled_false_records_every_entry_point_as_disabled(three: FakeSite) -> None:
    """Switched off, load() imports nothing and records each entry point as disabled."""
    host = PluginHost(path=[three.root], enabled=False, environment={})
    assert set(_statuses(host).values()) == {"disabled"}
    assert host.records[0].note == "entry-point loading is switched off (enabled=False)"
    assert not any(name.endswith("_guard_mod") for name in sys.modules)


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_the_environment_switches_autoload_off(three: FakeSite, value: str) -> None:
    """NUCLEO_DISABLE_PLUGIN_AUTOLOAD set to a true value disables entry-point loading."""
    host = PluginHost(path=[three.root], environment={DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE: value})
    assert set(_statuses(host).values()) == {"disabled"}
    assert host.records[0].note == (
        f"entry-point loading is switched off ({DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE}={value})"
    )


@pytest.mark.parametrize("value", ["", "0", "false", "off"])
def test_a_false_environment_value_leaves_autoload_on(three: FakeSite, value: str) -> None:
    """NUCLEO_DISABLE_PLUGIN_AUTOLOAD set to an empty or false value changes nothing."""
    host = PluginHost(path=[three.root], environment={DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE: value})
    assert set(_statuses(host).values()) == {"loaded"}


def test_the_enabled_parameter_wins_over_the_environment(three: FakeSite) -> None:
    """enabled=True loads entry points even with NUCLEO_DISABLE_PLUGIN_AUTOLOAD set."""
    host = PluginHost(
        path=[three.root], enabled=True, environment={DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE: "1"}
    )
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


# -- where distributions are found ----------------------------------------------------------


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSite]:
    """A second site on sys.path, holding one plugin of its own (``delta-guard``)."""
    for other in fake_site(tmp_path / "elsewhere", monkeypatch):
        other.distribution(
            "delta-guard",
            {"nucleo.plugins": {"delta-guard": "delta_mod"}},
            modules={"delta_mod": GUARD},
        )
        yield other


def test_a_default_host_finds_distributions_anywhere_on_sys_path(
    three: FakeSite, elsewhere: FakeSite
) -> None:
    """Without a path, the plugins of every folder on sys.path are found (whatever else is)."""
    found = _statuses(PluginHost(environment={}))
    assert {"acme-guard", "beta-guard", "gamma_policies", "delta-guard"} <= found.keys()


def test_a_host_given_a_path_sees_only_the_distributions_in_it(
    three: FakeSite, elsewhere: FakeSite
) -> None:
    """path= limits the search to its folders: another site on sys.path is not even imported."""
    host = PluginHost(path=[elsewhere.root], environment={})
    assert _statuses(host) == {"delta-guard": "loaded"}
    assert not any(name.endswith("_guard_mod") for name in sys.modules)
    assert host.path == (str(elsewhere.root),)


def test_the_environment_path_applies_when_the_parameter_is_none(
    three: FakeSite, elsewhere: FakeSite
) -> None:
    """NUCLEO_PLUGINS_PATH (os.pathsep-separated folders) is the path when code gives none."""
    listed = os.pathsep.join([str(three.root), str(elsewhere.root)])
    host = PluginHost(environment={PATH_ENVIRONMENT_VARIABLE: listed})
    assert set(_statuses(host)) == {"acme-guard", "beta-guard", "gamma_policies", "delta-guard"}
    only_three = PluginHost(
        path=[three.root], environment={PATH_ENVIRONMENT_VARIABLE: str(elsewhere.root)}
    )
    assert "delta-guard" not in _statuses(only_three)


def test_an_empty_environment_path_looks_everywhere(three: FakeSite) -> None:
    """NUCLEO_PLUGINS_PATH set to nothing is as if unset, not a path naming no folder."""
    host = PluginHost(environment={PATH_ENVIRONMENT_VARIABLE: ""})
    assert host.path is None
    assert {"acme-guard", "beta-guard", "gamma_policies"} <= _statuses(host).keys()


def test_a_relative_path_is_made_absolute_when_the_host_is_built(
    three: FakeSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative folder names the one under the directory the host was built in, later too."""
    monkeypatch.chdir(three.root.parent)
    host = PluginHost(path=[three.root.name], environment={})
    monkeypatch.chdir(tmp_path.parent)
    assert host.path == (str(three.root),)
    assert set(_statuses(host)) == {"acme-guard", "beta-guard", "gamma_policies"}


def test_a_path_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    """A misspelt folder is an error naming it, not a host that silently loads no guardrail."""
    missing = str(tmp_path / "no-such-folder")
    with pytest.raises(ValueError, match=r"^path names folder\(s\) that do not exist") as raised:
        PluginHost(path=[tmp_path, missing], environment={})
    assert repr([missing]) in str(raised.value)


def test_an_environment_path_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    """NUCLEO_PLUGINS_PATH naming a missing folder is an error naming the variable and folder."""
    missing = str(tmp_path / "no-such-folder")
    with pytest.raises(ValueError, match=rf"^{PATH_ENVIRONMENT_VARIABLE} names folder") as raised:
        PluginHost(environment={PATH_ENVIRONMENT_VARIABLE: missing})
    assert repr([missing]) in str(raised.value)


def test_a_distribution_in_two_path_folders_counts_once_the_first_winning(
    three: FakeSite, elsewhere: FakeSite
) -> None:
    """As along sys.path, the first folder holding a distribution shadows later copies of it."""
    elsewhere.distribution(
        "Acme_Guard", {"nucleo.plugins": {"acme-shadowed": "acme_guard_mod"}}, version="9.9"
    )
    first_elsewhere = PluginHost(path=[elsewhere.root, three.root], environment={})
    records = {record.name: record for record in first_elsewhere.load()}
    assert "acme-guard" not in records
    assert records["acme-shadowed"].version == "9.9"
    first_three = PluginHost(path=[three.root, elsewhere.root], environment={})
    assert "acme-shadowed" not in _statuses(first_three)


def test_the_command_line_refuses_a_missing_environment_path_folder(tmp_path: Path) -> None:
    """`nucleo plugins` with NUCLEO_PLUGINS_PATH naming no folder exits 2 with one error line."""
    from click.testing import CliRunner

    from nucleo_core.cli.app import nucleo

    missing = str(tmp_path / "no-such-folder")
    result = CliRunner().invoke(nucleo, ["plugins"], env={PATH_ENVIRONMENT_VARIABLE: missing})
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: {PATH_ENVIRONMENT_VARIABLE} names folder(s) ")
    assert missing in result.output
    assert "Traceback" not in result.output
