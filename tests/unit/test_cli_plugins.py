"""The ``nucleo`` command with plugins installed: plugins, pack tools, skills, a thinker's catalog.

Plugins are real distributions without wheels: a ``*.dist-info`` folder (``METADATA`` and
``entry_points.txt``) next to the plugin's modules, in a folder put first on ``sys.path`` for
the in-process tests and on ``PYTHONPATH`` for the real-process ones.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner, Result

from nucleo_core.cli.app import nucleo
from nucleo_core.cli.sources import FILE_MODULE_PREFIX, collect_registry
from nucleo_core.hub import ToolHub
from nucleo_core.plugins import (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    PATH_ENVIRONMENT_VARIABLE,
)

REPO = Path(__file__).resolve().parents[2]
CLI_PAGE = REPO / "docs" / "cli.md"
TUTORIALS = REPO / "docs" / "examples"

# The modules these tests write: plugins under cliplug_*, thinkers under clitest_*, files
# imported by --from under FILE_MODULE_PREFIX.
OWN_MODULES = (FILE_MODULE_PREFIX, "clitest_", "cliplug_")

PLUGIN_VARIABLES = (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
)

# rich renders at a fixed width without colour; the developer's plugin variables are unset.
PLAIN_ENV: dict[str, str | None] = {
    "COLUMNS": "120",
    "FORCE_COLOR": None,
    "TTY_COMPATIBLE": None,
    "TTY_INTERACTIVE": None,
    "NO_COLOR": "1",
    **dict.fromkeys(PLUGIN_VARIABLES),
}


def _load_plugin_site() -> ModuleType:
    """tests/unit/plugins/_plugin_site.py, loaded from its file under a name of its own.

    Its folder is on sys.path only when pytest collects the plugin tests, which a run of this
    file alone does not.
    """
    path = Path(__file__).parent / "plugins" / "_plugin_site.py"
    spec = importlib.util.spec_from_file_location("cli_plugin_site", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FakeSite: Any = _load_plugin_site().FakeSite


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Keep sys.path, sys.modules and the plugin variables as they were before each test.

    Plugins are looked for only in an empty folder (the ``site`` fixture's, when a test takes
    it), never among the distributions installed where the tests run.
    """
    monkeypatch.setattr(sys, "path", list(sys.path))
    for variable in PLUGIN_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    no_plugins = tmp_path / "no-plugins"
    no_plugins.mkdir()
    monkeypatch.setenv(PATH_ENVIRONMENT_VARIABLE, str(no_plugins))
    yield
    for name in [name for name in sys.modules if name.startswith(OWN_MODULES)]:
        del sys.modules[name]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A folder on sys.path to add distributions to; its modules are forgotten afterwards."""
    fake = FakeSite(tmp_path / "site", monkeypatch)
    monkeypatch.setenv(PATH_ENVIRONMENT_VARIABLE, str(fake.root))
    try:
        yield fake
    finally:
        fake.forget_modules()


def run(*args: str, **env: str) -> Result:
    return CliRunner().invoke(nucleo, list(args), env={**PLAIN_ENV, **env})


def write(directory: Path, name: str, source: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


WEATHER_PACK = '''
from nucleo_core import tool


@tool(read_only=True, risk="low")
def current_weather(city: str) -> str:
    """Say what the weather is like in a city right now."""
    return city


@tool(risk="medium")
def subscribe_alerts(city: str, email: str) -> str:
    """Send weather alerts for a city to an email address."""
    return email
'''

CLOCK_PLUGIN = '''
from nucleo_core import tool
from nucleo_core.plugins import hookimpl


@tool(read_only=True, risk="low")
def clock() -> str:
    """Say what time it is."""
    return "12:00"


@hookimpl
def nucleo_system_wide_tools():
    return [clock]
'''

REPORT_SKILL = """\
---
name: weather-report
description: Write a short weather report for a city.
  Use when the user asks what the weather will be like.
allowed-tools: current_weather
license: Apache-2.0
metadata:
  author: acme
---

# Weather report

1. Call `current_weather` for the city the user named.
2. Answer in three sentences.
"""

STORM_SKILL = """\
---
name: storm-warning
description: Warn subscribers about a coming storm.
---

Check the forecast first.
"""


def install_weather_pack(site: Any) -> None:
    site.distribution(
        "acme-weather-tools",
        {"nucleo.tools": {"acme-weather": "cliplug_weather"}},
        version="0.1.0",
        modules={"cliplug_weather": WEATHER_PACK},
    )


def install_broken_pack(site: Any) -> None:
    site.distribution(
        "acme-radar",
        {"nucleo.tools": {"acme-radar": "cliplug_radar"}},
        version="0.2.0",
        modules={"cliplug_radar": "import cliplug_radar_sdk\n"},
    )


def install_skilljar(site: Any) -> None:
    package = site.package("cliplug_skills", '"""Acme skills."""\n')
    for name, text in (("weather-report", REPORT_SKILL), ("storm-warning", STORM_SKILL)):
        (package / name).mkdir()
        (package / name / "SKILL.md").write_text(text, encoding="utf-8")
    site.distribution("acme-skills", {"nucleo.skills": {"acme-skills": "cliplug_skills"}})


def install_clock_plugin(site: Any) -> None:
    site.distribution(
        "acme-clock",
        {"nucleo.plugins": {"clock": "cliplug_clock"}},
        version="2.0",
        modules={"cliplug_clock": CLOCK_PLUGIN},
    )


def row(output: str, first_word: str) -> str:
    """The table row whose first cell is ``first_word``."""
    return next(line for line in output.splitlines() if line.split()[:1] == [first_word])


def assert_user_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ")
    assert len(result.output.splitlines()) == 1
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.output


# -- nucleo plugins ---------------------------------------------------------------------------


def test_plugins_lists_each_entry_point_with_its_distribution_and_contribution(site: Any) -> None:
    """A row per entry point: name, group, distribution and version, status, what it brought."""
    install_weather_pack(site)
    install_skilljar(site)
    result = run("plugins")
    assert result.exit_code == 0, result.output
    assert row(result.output, "acme-weather").split() == [
        "acme-weather",
        "nucleo.tools",
        "acme-weather-tools",
        "0.1.0",
        "loaded",
        "tools:",
        "current_weather,",
        "subscribe_alerts",
    ]
    assert row(result.output, "acme-skills").split()[1:] == [
        "nucleo.skills",
        "acme-skills",
        "1.0",
        "loaded",
        "skills",
        "package:",
        "cliplug_skills",
    ]


def test_plugins_shows_a_failing_plugin_with_its_reason_and_still_exits_0(site: Any) -> None:
    """A plugin that cannot load is a row saying why; the report itself succeeds."""
    install_weather_pack(site)
    install_broken_pack(site)
    result = run("plugins")
    assert result.exit_code == 0, result.output
    assert row(result.output, "acme-radar").split()[1:5] == [
        "nucleo.tools",
        "acme-radar",
        "0.2.0",
        "failed",
    ]
    assert "missing dependency: cliplug_radar_sdk" in row(result.output, "acme-radar")
    assert "loaded" in row(result.output, "acme-weather")
    assert "1 loaded, 1 failed" in result.output
    assert result.stderr == ""


def test_plugins_strict_exits_2_after_the_report_when_a_plugin_failed(site: Any) -> None:
    """`--strict` prints the whole report, then one Error line naming the failed plugin."""
    install_weather_pack(site)
    install_broken_pack(site)
    result = run("plugins", "--strict")
    assert result.exit_code == 2
    assert "acme-weather" in result.stdout
    assert result.stderr == "Error: 1 plugin failed: nucleo.tools:acme-radar\n"


def test_plugins_strict_exits_0_when_every_plugin_loaded(site: Any) -> None:
    """`--strict` with nothing failed is the plain report, exit code 0."""
    install_weather_pack(site)
    result = run("plugins", "--strict")
    assert result.exit_code == 0, result.output


def test_plugins_json_has_one_object_per_record_with_stable_keys(site: Any) -> None:
    """`plugins --json` prints every record's fields, in one order, as JSON only."""
    install_weather_pack(site)
    install_broken_pack(site)
    result = run("plugins", "--json")
    assert result.exit_code == 0, result.output
    listed = {entry["name"]: entry for entry in json.loads(result.stdout)}
    assert list(listed["acme-weather"]) == [
        "name",
        "group",
        "value",
        "distribution",
        "version",
        "status",
        "contributed",
        "error",
        "note",
        "hook_errors",
        "subplugins",
    ]
    assert listed["acme-weather"] == {
        "name": "acme-weather",
        "group": "nucleo.tools",
        "value": "cliplug_weather",
        "distribution": "acme-weather-tools",
        "version": "0.1.0",
        "status": "loaded",
        "contributed": ["tool: current_weather", "tool: subscribe_alerts"],
        "error": None,
        "note": None,
        "hook_errors": [],
        "subplugins": [],
    }
    assert listed["acme-radar"]["status"] == "failed"
    assert listed["acme-radar"]["error"] == "missing dependency: cliplug_radar_sdk"


def test_plugins_with_autoload_switched_off_loads_nothing(site: Any) -> None:
    """With NUCLEO_DISABLE_PLUGIN_AUTOLOAD=1 every entry point is listed disabled, none imported."""
    install_weather_pack(site)
    install_broken_pack(site)
    result = run("plugins", "--json", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert result.exit_code == 0, result.output
    ours = [entry for entry in json.loads(result.stdout) if entry["name"].startswith("acme-")]
    assert [entry["status"] for entry in ours] == ["disabled", "disabled"]
    assert "NUCLEO_DISABLE_PLUGIN_AUTOLOAD=1" in ours[0]["note"]
    assert "cliplug_weather" not in sys.modules
    table, builtins = run("plugins", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1").output.split("Builtin")
    assert "loaded" not in table
    names = "artifact_tools, sub_thinker, request_tools, search_tools, request_skill, skill_files"
    assert f"plugins: {names} loaded" in builtins
    assert "2 disabled" in table
    assert "acme-weather" not in run("tools", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1").output


def test_plugins_shows_a_blocked_plugin_with_the_pattern_that_blocked_it(site: Any) -> None:
    """NUCLEO_PLUGINS_BLOCK keeps a plugin out, and its row says which pattern did."""
    install_weather_pack(site)
    result = run("plugins", NUCLEO_PLUGINS_BLOCK="acme-weather*")
    assert "blocked" in row(result.output, "acme-weather")
    assert "blocked: matches 'acme-weather*' in the block list" in result.output


def test_plugins_shows_what_a_hook_plugin_implements(site: Any) -> None:
    """A nucleo.plugins entry point's row names the hooks it implements."""
    install_clock_plugin(site)
    result = run("plugins")
    assert "hooks: nucleo_system_wide_tools" in row(result.output, "clock")


FAILING_HOOK = """
from nucleo_core.plugins import hookimpl


@hookimpl
def nucleo_system_wide_tools():
    raise RuntimeError("clock is unplugged")
"""


def test_a_hook_that_fails_while_loading_is_shown_and_fails_strict(site: Any) -> None:
    """A loaded plugin whose hook raised shows the failure in its row; --strict counts it."""
    site.distribution(
        "acme-clock",
        {"nucleo.plugins": {"clock": "cliplug_clock"}},
        modules={"cliplug_clock": FAILING_HOOK},
    )
    report = run("plugins")
    assert report.exit_code == 0, report.output
    assert row(report.output, "clock").split()[1:4] == ["nucleo.plugins", "acme-clock", "1.0"]
    assert "raised in nucleo_system_wide_tools: RuntimeError: clock is unplugged" in report.output
    assert report.stderr == ""
    strict = run("plugins", "--strict")
    assert strict.exit_code == 2
    assert strict.stderr == "Error: 1 plugin failed: nucleo.plugins:clock\n"
    listing = run("tools", "--json")
    assert listing.stderr.splitlines()[0] == (
        "Warning: plugin nucleo.plugins:clock (acme-clock 1.0) raised in "
        "nucleo_system_wide_tools: RuntimeError: clock is unplugged"
    )


def test_plugins_with_none_installed_says_what_a_plugin_is() -> None:
    """With no entry point in any nucleo group, the command explains what would be listed."""
    result = run("plugins")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "No nucleo plugins are installed.",
        "A plugin is a distribution with an entry point in one of the groups "
        "nucleo.tools, nucleo.skills, nucleo.plugins.",
        "Builtin plugins: artifact_tools, sub_thinker, request_tools, search_tools, "
        "request_skill, skill_files loaded.",
    ]


def test_plugins_names_a_blocked_builtin() -> None:
    """NUCLEO_PLUGINS_BLOCK=builtin:NAME switches a builtin off, and the listing says so."""
    result = run("plugins", NUCLEO_PLUGINS_BLOCK="builtin:sub_thinker")
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == (
        "Builtin plugins: artifact_tools, request_tools, search_tools, request_skill, "
        "skill_files loaded; sub_thinker blocked."
    )


def test_the_real_command_reports_plugins_found_on_pythonpath(site: Any, tmp_path: Path) -> None:
    """`python -m nucleo_core.cli plugins` finds distributions on PYTHONPATH, in a new process."""
    install_weather_pack(site)
    install_broken_pack(site)
    environment = {key: value for key, value in os.environ.items() if key not in PLUGIN_VARIABLES}
    environment["PYTHONPATH"] = str(site.root)
    completed = subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", "plugins", "--json", "--strict"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2
    statuses = {entry["name"]: entry["status"] for entry in json.loads(completed.stdout)}
    assert statuses["acme-weather"] == "loaded"
    assert statuses["acme-radar"] == "failed"
    assert completed.stderr == "Error: 1 plugin failed: nucleo.tools:acme-radar\n"

    environment[DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE] = "1"
    switched_off = subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", "tools", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=60,
        check=False,
    )
    assert switched_off.returncode == 0, switched_off.stderr
    assert json.loads(switched_off.stdout) == []
    assert switched_off.stderr == ""


# -- nucleo tools -----------------------------------------------------------------------------


def test_tools_lists_an_installed_packs_tools_under_its_origin(site: Any) -> None:
    """Without --from, the tools of each pack are listed under `pack NAME (DIST VERSION)`."""
    install_weather_pack(site)
    result = run("tools")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[2] == "pack acme-weather (acme-weather-tools 0.1.0)"
    assert row(result.output, "current_weather").split()[1:4] == [
        "native:current_weather",
        "yes",
        "low",
    ]
    assert "subscribe_alerts" in lines[4]


def test_tools_json_gives_each_tool_its_origin(site: Any, tmp_path: Path) -> None:
    """`--json` objects end with `origin`: the pack, system-wide, or --from SOURCE."""
    install_weather_pack(site)
    install_clock_plugin(site)
    own = write(
        tmp_path,
        "own.py",
        """
        from nucleo_core import tool

        @tool(read_only=True, risk="low")
        def sunrise(city: str) -> str:
            '''When the sun rises in a city.'''
            return "06:00"
        """,
    )
    result = run("tools", "--from", str(own), "--json")
    assert result.exit_code == 0, result.output
    origins = {entry["name"]: entry["origin"] for entry in json.loads(result.stdout)}
    assert origins == {
        "current_weather": "pack acme-weather (acme-weather-tools 0.1.0)",
        "subscribe_alerts": "pack acme-weather (acme-weather-tools 0.1.0)",
        "clock": "system-wide",
        "sunrise": f"--from {own}",
    }


def test_tools_lists_packs_then_system_wide_tools_then_sources_each_under_a_title(
    site: Any,
) -> None:
    """Each origin is a title over its rows: packs, then system-wide tools, then --from."""
    install_weather_pack(site)
    install_clock_plugin(site)
    weather = str(REPO / "docs" / "examples" / "weather.py")
    result = run("tools", "--from", weather)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    pack = lines.index("pack acme-weather (acme-weather-tools 0.1.0)")
    system_wide = lines.index("system-wide")
    source = lines.index(f"--from {weather}")
    assert pack == 2
    assert lines[pack + 1].startswith("current_weather ")
    assert lines[system_wide - 1] == ""
    assert lines[system_wide + 1].startswith("clock ")
    assert lines[source + 1].startswith("forecast ")
    assert pack < system_wide < source


def test_a_pack_tool_its_own_plugin_makes_system_wide_lists_both_origins(site: Any) -> None:
    """A tool that is both a pack's and system-wide is listed once, with both origins."""
    site.distribution(
        "acme-clock",
        {"nucleo.tools": {"clock": "cliplug_clock"}},
        modules={"cliplug_clock": CLOCK_PLUGIN},
    )
    result = run("tools", "--json")
    assert [(entry["name"], entry["origin"]) for entry in json.loads(result.stdout)] == [
        ("clock", "pack clock (acme-clock 1.0), system-wide")
    ]


def test_tools_show_finds_a_pack_tool_and_says_where_it_comes_from(site: Any) -> None:
    """`nucleo tools show NAME` shows an installed pack's tool, with its origin."""
    install_weather_pack(site)
    result = run("tools", "show", "subscribe_alerts")
    assert result.exit_code == 0, result.output
    assert "  origin:       pack acme-weather (acme-weather-tools 0.1.0)" in result.output
    shown = json.loads(run("tools", "show", "current_weather", "--json").stdout)
    assert shown["origin"] == "pack acme-weather (acme-weather-tools 0.1.0)"
    assert shown["input_schema"]["required"] == ["city"]


def test_a_from_tool_named_like_an_installed_one_exits_2_naming_the_pack(
    site: Any, tmp_path: Path
) -> None:
    """A --from tool under a pack tool's name is refused, naming the pack and how to drop it."""
    install_weather_pack(site)
    rival = write(
        tmp_path,
        "rival.py",
        """
        from nucleo_core import tool

        @tool(read_only=True, risk="low")
        def current_weather(city: str) -> str:
            '''Another weather.'''
            return city
        """,
    )
    result = run("tools", "--from", str(rival))
    assert_user_error(
        result,
        "tool 'current_weather' is already defined by pack acme-weather (acme-weather-tools 0.1.0)",
        "NUCLEO_PLUGINS_BLOCK",
    )


def test_the_pack_module_named_with_from_is_the_same_tools_not_a_clash(site: Any) -> None:
    """--from the module a pack loads lists its tools once, with both origins."""
    install_weather_pack(site)
    result = run("tools", "--from", "cliplug_weather", "--json")
    assert result.exit_code == 0, result.output
    origins = {entry["name"]: entry["origin"] for entry in json.loads(result.stdout)}
    assert origins["current_weather"] == (
        "pack acme-weather (acme-weather-tools 0.1.0), --from cliplug_weather"
    )


def test_two_packs_with_one_tool_name_list_the_first_and_warn_about_the_second(
    site: Any,
) -> None:
    """Installed tools clashing by name are not an error: the first is listed, the other warned."""
    install_weather_pack(site)
    site.distribution(
        "other-weather",
        {"nucleo.tools": {"other-weather": "cliplug_other"}},
        modules={
            "cliplug_other": '''
from nucleo_core import tool

@tool(read_only=True, risk="low")
def current_weather(city: str) -> str:
    """A second weather."""
    return city
'''
        },
    )
    result = run("tools", "--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    assert [entry["name"] for entry in listed] == ["current_weather", "subscribe_alerts"]
    assert result.stderr == (
        "Warning: tool 'current_weather' of pack other-weather (other-weather 1.0) is not "
        "listed: pack acme-weather (acme-weather-tools 0.1.0) already has a tool of that name\n"
    )


def test_a_pack_tool_that_does_not_check_is_left_out_with_a_warning(site: Any) -> None:
    """A pack tool whose schema refiner fails is warned about, and the others are listed."""
    site.distribution(
        "acme-lookup",
        {"nucleo.tools": {"lookup": "cliplug_lookup"}},
        modules={
            "cliplug_lookup": '''
from nucleo_core import tool

def narrow(schema):
    raise KeyError("properties")

@tool(refiner=narrow)
def lookup(key: str) -> str:
    """Look a key up."""
    return key

@tool(read_only=True, risk="low")
def ping() -> str:
    """Answer pong."""
    return "pong"
'''
        },
    )
    result = run("tools", "--json")
    assert result.exit_code == 0, result.output
    assert [entry["name"] for entry in json.loads(result.stdout)] == ["ping"]
    assert result.stderr.startswith("Warning: tool 'lookup' of pack lookup (acme-lookup 1.0)")


def test_tools_warns_on_stderr_about_a_plugin_that_failed(site: Any) -> None:
    """A failed plugin is a Warning line on stderr; stdout stays the listing (here, JSON)."""
    install_weather_pack(site)
    install_broken_pack(site)
    result = run("tools", "--json")
    assert result.exit_code == 0, result.output
    assert [entry["name"] for entry in json.loads(result.stdout)] == [
        "current_weather",
        "subscribe_alerts",
    ]
    assert result.stderr.splitlines() == [
        "Warning: plugin nucleo.tools:acme-radar (acme-radar 0.2.0) was not loaded: missing "
        "dependency: cliplug_radar_sdk",
        "Warning: `nucleo plugins` lists every plugin and what became of it.",
    ]


def test_no_tools_with_packs_not_loaded_points_at_nucleo_plugins(site: Any) -> None:
    """When packs are installed but none loaded, the empty listing says so, not "install one"."""
    install_broken_pack(site)
    result = run("tools")
    assert result.exit_code == 0
    assert "No tools are registered in this process." in result.stdout
    assert "1 installed tool pack was not loaded; `nucleo plugins` says why." in result.stdout


def test_show_with_no_tools_at_all_mentions_tool_packs(site: Any) -> None:
    """`show` with nothing registered exits 2, pointing at tool packs and --from."""
    result = run("tools", "show", "forecast", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert_user_error(result, "install a tool pack, or add some with --from")


def test_collect_registry_is_the_one_place_pack_and_system_wide_tools_are_gathered(
    site: Any,
) -> None:
    """collect_registry with a loaded hub holds packs' tools, then system-wide ones, attributed."""
    install_weather_pack(site)
    install_clock_plugin(site)
    hub = ToolHub()
    hub.load_plugins()
    collected = collect_registry(hub=hub)
    assert collected.registry.names() == ["current_weather", "subscribe_alerts", "clock"]
    assert collected.origins["clock"] == "system-wide"
    assert collect_registry().registry.names() == []


# -- nucleo skills ----------------------------------------------------------------------------


def test_skills_lists_every_skill_with_bundle_allowed_tools_and_summary(site: Any) -> None:
    """A row per skill of the installed skilljar: name, bundle, allowed tools, first line."""
    install_skilljar(site)
    result = run("skills")
    assert result.exit_code == 0, result.output
    report = row(result.output, "weather-report")
    assert report.split()[1:3] == ["cliplug_skills", "current_weather"]
    assert "Write a short weather report for a city. Use when" in report
    assert row(result.output, "storm-warning").split()[1:3] == ["cliplug_skills", "any"]


def test_skills_json_has_the_front_matter_fields(site: Any) -> None:
    """`skills --json` gives each skill's fields, allowed_tools null when it names none."""
    install_skilljar(site)
    listed = {entry["name"]: entry for entry in json.loads(run("skills", "--json").stdout)}
    report = listed["weather-report"]
    assert list(report) == [
        "name",
        "bundle",
        "description",
        "allowed_tools",
        "license",
        "compatibility",
        "metadata",
        "location",
        "disable_model_invocation",
        "extra",
        "resources",
        "unresolved_tools",
    ]
    assert report["allowed_tools"] == ["current_weather"]
    assert report["license"] == "Apache-2.0"
    assert report["metadata"] == {"author": "acme"}
    assert report["location"].endswith("weather-report")
    assert listed["storm-warning"]["allowed_tools"] is None


def test_skills_show_prints_the_front_matter_and_the_instructions(site: Any) -> None:
    """`skills show NAME` prints every front matter field, the description and instructions."""
    install_skilljar(site)
    result = run("skills", "show", "weather-report")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "weather-report"
    assert "  bundle:        cliplug_skills" in lines
    assert "  allowed-tools: current_weather" in lines
    assert "  license:       Apache-2.0" in lines
    assert '  metadata:      {"author": "acme"}' in lines
    assert "Instructions" in lines
    assert lines[-1] == "2. Answer in three sentences."
    shown = json.loads(run("skills", "show", "weather-report", "--json").stdout)
    assert shown["instructions"].startswith("# Weather report")


def test_skills_show_unknown_name_exits_2_listing_the_skills(site: Any) -> None:
    """An unknown skill name is one Error line naming the skills there are."""
    install_skilljar(site)
    assert_user_error(
        run("skills", "show", "tornado"),
        "no skill named 'tornado'. Available skills: ",
        "weather-report",
    )


def test_a_skill_that_cannot_be_read_is_a_warning_and_the_others_are_listed(site: Any) -> None:
    """A malformed SKILL.md in a skilljar is one Warning line on stderr, not a failed listing."""
    install_skilljar(site)
    broken = site.root / "cliplug_skills" / "no-description"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: no-description\n---\nDo it.\n", encoding="utf-8")
    result = run("skills", "--json")
    assert result.exit_code == 0, result.output
    assert {entry["name"] for entry in json.loads(result.stdout)} == {
        "weather-report",
        "storm-warning",
    }
    (warning,) = result.stderr.splitlines()
    assert warning.startswith("Warning: skill skipped: ")
    assert "no-description" in warning
    assert "the front matter has no 'description'" in warning


def test_skills_with_none_registered_says_how_to_get_some() -> None:
    """With no skilljar loaded the listing says so and names the entry point group."""
    result = run("skills", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert result.exit_code == 0
    assert "No skills are registered in this process." in result.output
    assert "nucleo.skills" in result.output
    assert json.loads(run("skills", "--json", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1").stdout) == []


# -- nucleo catalog ---------------------------------------------------------------------------

THINKERS = """
from nucleo_core import SkillSelector, ThinkerBase, ToolSelector, tool


@tool(read_only=True, risk="low")
def note(text: str) -> str:
    '''Write a note.'''
    return text


class Forecaster(ThinkerBase):
    '''Answers questions about the weather.'''

    @classmethod
    def declare_default_tools(cls):
        return [note]

    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_pack("acme-*")

    @classmethod
    def declare_default_skills(cls):
        return ["weather-report"]

    @classmethod
    def declare_compatible_skills(cls):
        return SkillSelector().add_bundle("cliplug_skills")

    class Night(ThinkerBase):
        '''A nested thinker, with nothing declared.'''


class NeedsModel(ThinkerBase):
    def __init__(self, model, *, hub=None):
        super().__init__(hub=hub)


class Exploding(ThinkerBase):
    def __init__(self, *, hub=None):
        raise RuntimeError("no config")


class BadSelector(ThinkerBase):
    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector("clitest_missing_tools")


def helper():
    return None


class NotAThinker:
    pass


ANSWER = 42
"""


@pytest.fixture
def thinkers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """clitest_thinkers.py in the working directory, importable by its module name."""
    path = write(tmp_path, "clitest_thinkers.py", THINKERS)
    monkeypatch.chdir(tmp_path)
    return path


def test_catalog_prints_palette_catalog_and_skills_of_a_thinker_class(
    site: Any, thinkers: Path
) -> None:
    """`nucleo catalog MODULE:CLASS` shows the palette in order, the catalog and the skills."""
    install_weather_pack(site)
    install_skilljar(site)
    install_clock_plugin(site)
    result = run("catalog", "clitest_thinkers:Forecaster")
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.startswith("clitest_thinkers.Forecaster\n")
    palette, catalog, attached, offered = (
        text.split("Palette:")[1].split("Catalog:")[0],
        text.split("Catalog:")[1].split("Skills attached:")[0],
        text.split("Skills attached:")[1].split("Skill catalog:")[0],
        text.split("Skill catalog:")[1],
    )
    firsts = [line.split()[0] for line in palette.splitlines()[3:] if line[:1].strip()]
    assert firsts[:4] == ["note", "clock", "request_tools", "request_skill"]
    # weather-report allows current_weather and forecast: request_tools stays, offering only
    # the catalog tools the restriction names.
    restricted = "Not available while the attached skills restrict it: note, clock"
    assert restricted + "\n" in palette
    assert [line.split()[0] for line in catalog.splitlines()[3:] if line[:1].strip()] == [
        "current_weather",
    ]
    assert "weather-report" in attached
    assert "storm-warning" in offered
    assert "weather-report" in offered


def test_catalog_json_has_the_palette_catalog_and_skills(site: Any, thinkers: Path) -> None:
    """`catalog --json` is one object: thinker, palette (with availability), catalog, skills."""
    install_weather_pack(site)
    install_skilljar(site)
    result = run("catalog", "clitest_thinkers.Forecaster", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert list(shown) == ["thinker", "palette", "catalog", "skills", "skill_catalog"]
    assert shown["thinker"] == "clitest_thinkers.Forecaster"
    assert [(tool["name"], tool["available"]) for tool in shown["palette"]] == [
        ("note", False),
        ("request_tools", True),
        ("request_skill", True),
    ]
    assert [tool["name"] for tool in shown["catalog"]] == ["current_weather"]
    assert [skill["name"] for skill in shown["skills"]] == ["weather-report"]
    assert {skill["name"] for skill in shown["skill_catalog"]} == {
        "weather-report",
        "storm-warning",
    }


def test_catalog_of_a_thinker_with_nothing_declared_says_none(thinkers: Path) -> None:
    """A nested class (dotted path) with no declarations prints `none` under each heading."""
    result = run("catalog", "clitest_thinkers.Forecaster.Night", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert result.exit_code == 0, result.output
    assert result.output.count("\n  none\n") == 4


def test_catalog_takes_a_file_path_and_class(tmp_path: Path) -> None:
    """THINKER may be path/to/file.py:ClassName, imported as --from imports a file."""
    path = write(tmp_path, "desk.py", THINKERS)
    result = run("catalog", f"{path}:Forecaster", "--json", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert result.exit_code == 0, result.output
    assert [tool["name"] for tool in json.loads(result.stdout)["palette"]] == ["note"]


@pytest.mark.parametrize(
    ("path", "fragments"),
    [
        ("clitest_thinkers:NotAThinker", ["not a thinker class: it does not subclass"]),
        ("clitest_thinkers:helper", ["is not a thinker class but a function"]),
        ("clitest_thinkers:ANSWER", ["is not a thinker class but an object of type int"]),
        ("clitest_thinkers", ["is not a class's import path"]),
        ("clitest_thinkers:", ["is not a class's import path"]),
        ("clitest_thinkers:Nobody", ["clitest_thinkers has no attribute 'Nobody'"]),
        ("clitest_thinkers.Nobody", ["clitest_thinkers has no attribute 'Nobody'"]),
        ("clitest_nowhere.Desk", ["cannot import thinker", "no module named 'clitest_nowhere'"]),
        ("clitest_thinkers:NeedsModel", ["only hub=", "missing a required argument: 'model'"]),
        ("clitest_thinkers:Exploding", ["raised RuntimeError: no config"]),
        ("clitest_thinkers:BadSelector", ["assembling the palette", "ModuleNotFoundError"]),
    ],
)
def test_catalog_mistakes_exit_2_with_one_error_line(
    thinkers: Path, path: str, fragments: list[str]
) -> None:
    """Whatever is wrong with THINKER, the command prints one Error line and exits 2."""
    assert_user_error(run("catalog", path, NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1"), *fragments)


def test_catalog_of_a_module_that_fails_to_import_names_the_error(tmp_path: Path) -> None:
    """A thinker module whose import raises is one Error line with the exception, exit 2."""
    broken = write(tmp_path, "broken_desk.py", "raise RuntimeError('no config found')\n")
    result = run("catalog", f"{broken}:Desk", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert_user_error(result, "cannot import thinker", "RuntimeError: no config found")


# -- the examples on docs/cli.md ----------------------------------------------------------------

# docs/cli.md shows commands run where plugins are installed. Those blocks cannot be checked by
# tests/unit/test_docs.py, which runs commands where none is; they are marked with this comment,
# whose value names the environment they run in, and checked here.
DOCS_MARKER = "<!-- checked by tests/unit/test_cli_plugins.py: "


def docs_blocks() -> list[tuple[str, int, str]]:
    """Each marked block of docs/cli.md: its environment, its line and its text."""
    lines = CLI_PAGE.read_text(encoding="utf-8").splitlines()
    blocks = []
    for index, line in enumerate(lines):
        if line.startswith(DOCS_MARKER):
            kind = line.removeprefix(DOCS_MARKER).removesuffix(" -->")
            start = index + 2
            end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
            blocks.append((kind, start, "\n".join(lines[start:end]) + "\n"))
    return blocks


def install_tutorial_project(site: Any, project: Path) -> set[str]:
    """Put a tutorial's project into the site as pip would install it; return its top modules."""
    metadata = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    top_level: set[str] = set()
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if path.is_file() and relative.parts != ("pyproject.toml",):
            target = site.root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
            top_level.add(relative.parts[0].removesuffix(".py"))
    site.distribution(metadata["name"], metadata["entry-points"], version=metadata["version"])
    return top_level


def test_the_docs_examples_with_plugins_installed_are_what_the_commands_print(
    site: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the marked blocks of docs/cli.md, each command prints exactly what is shown."""
    blocks = docs_blocks()
    assert blocks, "docs/cli.md marks the blocks this test checks"
    modules = install_tutorial_project(site, TUTORIALS / "tool_pack" / "acme-weather-tools")
    modules |= install_tutorial_project(site, TUTORIALS / "skilljar" / "acme-skills")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for kind, _, text in blocks:
        if kind.endswith(".py"):  # a module the commands use, wherever the page shows it
            (work / kind).write_text(text, encoding="utf-8")
            modules.add(kind.removesuffix(".py"))
    try:
        for kind, line, text in blocks:
            where = f"docs/cli.md:{line}"
            if kind.endswith(".py"):
                continue
            assert kind in ("installed", "with acme-radar"), f"{where}: unknown {kind!r}"
            radar = site.root / "acme_radar-0.2.0.dist-info"
            if kind == "with acme-radar":
                # A pack whose dependency is missing: it fails to load.
                site.distribution(
                    "acme-radar",
                    {"nucleo.tools": {"acme-radar": "acme_radar"}},
                    version="0.2.0",
                    modules={"acme_radar": "import radar_sdk\n"},
                )
            for command, shown in console_commands(text):
                check_command(where, command, shown)
            if radar.exists():
                shutil.rmtree(radar)
    finally:
        for name in [name for name in sys.modules if name.split(".")[0] in modules]:
            del sys.modules[name]


def check_command(where: str, command: str, shown: str) -> None:
    """Run a ``nucleo`` command of a docs block; it prints ``shown`` and exits as it says."""
    words = shlex.split(command, comments=True)
    assert words[0] == "nucleo", f"{where}: only nucleo commands are checked"
    result = CliRunner().invoke(nucleo, words[1:], env={**PLAIN_ENV, "COLUMNS": "100"})
    expected_exit = re.search(r"#\s*exit code (\d+)\s*$", command)
    assert result.exit_code == (int(expected_exit.group(1)) if expected_exit else 0), (
        f"{where}: `{command}` exited {result.exit_code}:\n{result.output}"
    )
    printed = "\n".join(part.rstrip() for part in result.output.rstrip("\n").split("\n"))
    assert printed == shown.rstrip("\n"), f"{where}: `{command}` prints otherwise:\n{printed}"


def console_commands(text: str) -> Iterator[tuple[str, str]]:
    """Each ``$ command`` of a block with the lines shown after it."""
    command: str | None = None
    shown: list[str] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, "\n".join(shown)
            command, shown = line[2:], []
        else:
            shown.append(line)
    if command is not None:
        yield command, "\n".join(shown)


# -- narrow terminals ---------------------------------------------------------------------------


def shown_or_named(output: str, headings: list[str]) -> None:
    """Each heading is in the table's header, or named on the line saying what was left out."""
    header = next(line for line in output.splitlines() if line.startswith(headings[0] + " "))
    # The note may wrap on a narrow line: read it as one paragraph.
    note = " ".join(output[output.find("Not shown at ") :].split())
    for heading in headings:
        assert heading in header or (note and heading in note), f"{heading!r} is lost"


def assert_whole(output: str, width: int, names: list[str]) -> None:
    """Every name appears whole, nothing is cut with an ellipsis, no line is wider than asked."""
    assert "…" not in output
    words = {word.strip(",") for line in output.splitlines() for word in line.split()}
    for name in names:
        assert name in words, f"{name!r} is not shown whole at {width} columns:\n{output}"
    assert max(map(len, output.splitlines())) <= width


@pytest.mark.parametrize("width", [60, 80])
def test_plugins_at_60_and_80_columns_shows_every_name_whole(site: Any, width: int) -> None:
    """`nucleo plugins` on a narrow terminal cuts no entry point nor tool name; it drops columns."""
    install_weather_pack(site)
    install_broken_pack(site)
    install_skilljar(site)
    result = run("plugins", COLUMNS=str(width))
    assert result.exit_code == 0, result.output
    assert_whole(
        result.output,
        width,
        ["acme-weather", "acme-radar", "acme-skills", "current_weather", "subscribe_alerts"],
    )
    shown_or_named(result.output, ["Name", "Group", "Distribution", "Status", "Details"])


@pytest.mark.parametrize("width", [60, 80])
def test_tools_at_60_and_80_columns_shows_every_tool_name_whole(site: Any, width: int) -> None:
    """`nucleo tools` on a narrow terminal shows `current_weather`, never `current_weath…`."""
    install_weather_pack(site)
    install_clock_plugin(site)
    result = run(
        "tools", "--from", str(REPO / "docs" / "examples" / "weather.py"), COLUMNS=str(width)
    )
    assert result.exit_code == 0, result.output
    names = ["current_weather", "forecast", "subscribe_alerts", "clock", "set_alert"]
    assert_whole(result.output, width, [*names, "clear_alerts"])
    shown_or_named(result.output, ["Name", "Source", "Read-only", "Risk", "Description"])


def test_tools_at_80_columns_leaves_out_the_source_ids_first_and_says_so(site: Any) -> None:
    """At 80 columns the Source column goes (named under the table) and the descriptions stay."""
    install_weather_pack(site)
    result = run("tools", COLUMNS="80")
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if line.startswith("Name "))
    assert header.split() == ["Name", "Read-only", "Risk", "Description"]
    assert "Say what the weather is like in a city right now." in " ".join(result.output.split())
    assert result.output.rstrip().endswith("Not shown at 80 columns: Source; --json shows all.")
    wide = run("tools", COLUMNS="120")
    assert "Not shown" not in wide.output
    assert "native:current_weather" in wide.output


@pytest.mark.parametrize("width", [60, 80])
def test_skills_at_60_and_80_columns_shows_every_skill_and_tool_name_whole(
    site: Any, width: int
) -> None:
    """`nucleo skills` on a narrow terminal cuts no skill name nor allowed tool's name."""
    install_skilljar(site)
    result = run("skills", COLUMNS=str(width))
    assert result.exit_code == 0, result.output
    assert_whole(result.output, width, ["weather-report", "storm-warning", "current_weather"])
    shown_or_named(result.output, ["Name", "Bundle", "Allowed tools", "Description"])


@pytest.mark.parametrize("width", [60, 80])
def test_catalog_at_60_and_80_columns_shows_every_name_whole(
    site: Any, thinkers: Path, width: int
) -> None:
    """`nucleo catalog` on a narrow terminal cuts no tool nor skill name in any of its tables."""
    install_weather_pack(site)
    install_skilljar(site)
    result = run("catalog", "clitest_thinkers:Forecaster", COLUMNS=str(width))
    assert result.exit_code == 0, result.output
    names = ["note", "request_tools", "request_skill", "current_weather", "weather-report"]
    assert_whole(result.output, width, [*names, "storm-warning"])


# -- a pack that brings plugins of its own (the llm bridge's shape) ---------------------------

BRIDGE_PACK = """
from nucleo_core import tool
from nucleo_core.plugins import PluginRecord, ToolPackResult


@tool(read_only=True, risk="low")
def shout(text: str) -> str:
    "Say it louder."
    return text.upper()


def bridged():
    return ToolPackResult(
        tools=[shout],
        subplugins=[
            PluginRecord(
                name="broken_pack", group="other", value="broken_pack",
                distribution="other-broken", version="0.1", status="failed",
                error="missing dependency: absent_sdk",
            ),
            PluginRecord(
                name="good_pack", group="other", value="good_pack", distribution="other-good",
                version="1.0", status="loaded", contributed=("tool: shout",),
            ),
        ],
    )
"""


def install_bridge_pack(site: Any) -> None:
    site.distribution(
        "acme-bridge",
        {"nucleo.tools": {"acme-bridge": "cliplug_bridge:bridged"}},
        modules={"cliplug_bridge": BRIDGE_PACK},
    )


def test_plugins_lists_a_packs_own_plugins_right_below_it(site: Any) -> None:
    """Each plugin a pack brought is a row under it: the broken one failed with its reason."""
    install_bridge_pack(site)
    result = run("plugins")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    pack = next(i for i, line in enumerate(lines) if line.startswith("acme-bridge"))
    assert "plugins of its own: 2 (below)" in "\n".join(lines[pack : pack + 3])
    broken = row(result.output, "└")
    assert broken.split()[1:6] == ["broken_pack", "other", "other-broken", "0.1", "failed"]
    assert lines.index(broken) > pack
    assert "missing dependency: absent_sdk" in broken
    good = next(line for line in lines if line.split()[:2] == ["└", "good_pack"])
    assert "tool: shout" in good
    assert "2 plugins brought by them: 1 loaded, 1 failed." in result.stdout


def test_plugins_strict_fails_on_a_packs_broken_plugin_naming_it(site: Any) -> None:
    """`--strict` counts a pack's failed plugin as a failed plugin, by its own name."""
    install_bridge_pack(site)
    result = run("plugins", "--strict")
    assert result.exit_code == 2
    assert result.stderr == "Error: 1 plugin failed: other:broken_pack\n"
