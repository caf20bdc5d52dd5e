"""The ``nucleo`` command line: listing and showing tools, and how it fails for users."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import nucleo_core
from nucleo_core import FunctionToolProvider, ToolRegistry, render_tools, tools_in_module
from nucleo_core.cli import main
from nucleo_core.cli.app import nucleo
from nucleo_core.cli.sources import FILE_MODULE_PREFIX, collect_registry, load_source
from nucleo_core.tools import ToolFormat

REPO = Path(__file__).resolve().parents[2]
WEATHER = str(REPO / "docs" / "examples" / "weather.py")
WEATHER_NAMES = ["forecast", "set_alert", "clear_alerts"]
# The modules the tests' sources are imported as: files under FILE_MODULE_PREFIX, and the
# packages and helpers the tests write, all named clitest_*.
OWN_MODULES = (FILE_MODULE_PREFIX, "clitest_")

# Keep rich's rendering independent of the machine (a fixed width and no forced colour), and
# the listing independent of the plugins installed where the tests run (tests/unit/
# test_cli_plugins.py installs its own).
PLAIN_ENV: dict[str, str | None] = {
    "COLUMNS": "120",
    "FORCE_COLOR": None,
    "TTY_COMPATIBLE": None,
    "TTY_INTERACTIVE": None,
    "NO_COLOR": "1",
    "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1",
    "NUCLEO_PLUGINS_ALLOW": None,
    "NUCLEO_PLUGINS_BLOCK": None,
}


@pytest.fixture(autouse=True)
def _isolated_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Undo what loading a source does to sys.path and sys.modules, so tests stay independent."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    for name in [name for name in sys.modules if name.startswith(OWN_MODULES)]:
        del sys.modules[name]


def run(*args: str) -> Result:
    return CliRunner().invoke(nucleo, list(args), env=PLAIN_ENV)


def write(directory: Path, name: str, source: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


MISDECLARED = """
    from nucleo_core import tool

    @tool(risk="low")
    def shout(text: str) -> str:
        return text.upper()
"""

BROKEN_REFINER = """
    from nucleo_core import tool

    def narrow(schema):
        raise KeyError("properties")

    @tool(refiner=narrow)
    def lookup(key: str) -> str:
        '''Look a key up.'''
        return key
"""


# -- listing --------------------------------------------------------------------------------


def test_list_shows_each_tool_with_source_read_only_risk_and_summary() -> None:
    """`nucleo tools --from FILE` prints one row per tool with its declared facts."""
    result = run("tools", "--from", WEATHER)
    assert result.exit_code == 0, result.output
    # A row starts at the left margin; a wrapped description continues on indented lines.
    rows = {line.split()[0]: line for line in result.output.splitlines()[2:] if line[:1].strip()}
    assert list(rows) == WEATHER_NAMES
    assert rows["forecast"].split()[1:4] == ["native:forecast", "yes", "low"]
    assert "Forecast the weather for a city." in rows["forecast"]
    assert rows["set_alert"].split()[1:4] == ["native:set_alert", "no", "medium"]


def test_list_marks_undeclared_risk_as_high_undeclared() -> None:
    """A tool that declares no risk is listed as "high (undeclared)", never as plain "high"."""
    result = run("tools", "--from", WEATHER)
    row = next(line for line in result.output.splitlines() if line.startswith("clear_alerts"))
    assert "high (undeclared)" in row


BRACKETS = """
    from nucleo_core import tool

    @tool(read_only=True, risk="low")
    def list_ids(prefix: str) -> list[str]:
        "Return [bold]ids[/bold] as a [list]; [/x] is not markup."
        return []
"""


def test_brackets_in_descriptions_print_as_written(tmp_path: Path) -> None:
    """A description that looks like rich markup is printed verbatim in the table and in show."""
    module = write(tmp_path, "brackets.py", BRACKETS)
    description = "Return [bold]ids[/bold] as a [list]; [/x] is not markup."
    listed = run("tools", "--from", str(module))
    assert listed.exit_code == 0, listed.output
    assert description in listed.output
    shown = run("tools", "show", "list_ids", "--from", str(module))
    assert shown.exit_code == 0, shown.output
    assert description in shown.output


def test_list_json_is_an_array_of_objects_with_stable_keys() -> None:
    """`--json` prints every tool as an object with keys in one documented order, origin last."""
    result = run("tools", "--from", WEATHER, "--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    assert [entry["name"] for entry in listed] == WEATHER_NAMES
    for entry in listed:
        assert list(entry) == [
            "name",
            "source",
            "read_only",
            "risk",
            "risk_declared",
            "description",
            "display_name",
            "origin",
        ]
    assert listed[0] == {
        "name": "forecast",
        "source": "native:forecast",
        "read_only": True,
        "risk": "low",
        "risk_declared": True,
        "description": "Forecast the weather for a city.",
        "display_name": "Forecast",
        "origin": f"--from {WEATHER}",
    }
    assert (listed[2]["risk"], listed[2]["risk_declared"]) == ("high", False)
    assert listed[1]["display_name"] == "Set weather alert"


def test_list_without_sources_says_none_are_registered_and_how_to_add_some() -> None:
    """With no pack and no --from, a clear message names both ways to add tools, exit 0."""
    result = run("tools")
    assert result.exit_code == 0
    assert "No tools are registered" in result.output
    assert "--from" in result.output
    assert "tool pack" in result.output


def test_list_json_without_sources_is_an_empty_array() -> None:
    """`--json` with no tools prints exactly an empty JSON array, nothing else."""
    result = run("tools", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []


def test_list_of_a_module_without_tools_says_so(tmp_path: Path) -> None:
    """A source that defines no tool is not an error, but the listing says what a tool is."""
    empty = write(tmp_path, "empty.py", "VALUE = 1\n")
    result = run("tools", "--from", str(empty))
    assert result.exit_code == 0
    assert "No tools found" in result.output
    assert "@tool" in result.output


def test_tools_of_several_sources_are_listed_under_their_origin(tmp_path: Path) -> None:
    """With more than one origin, each run of tools is titled with its --from source."""
    extra = write(
        tmp_path,
        "titled.py",
        """
        from nucleo_core import tool

        @tool(read_only=True, risk="low")
        def sunrise(city: str) -> str:
            '''When the sun rises in a city.'''
            return "06:00"
        """,
    )
    result = run("tools", "--from", str(extra), "--from", WEATHER)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[2] == f"--from {extra}"
    assert lines[3].startswith("sunrise ")
    assert lines[4] == ""
    assert lines[5] == f"--from {WEATHER}"
    assert lines[6].startswith("forecast ")


LONG_NAMED = """
    from nucleo_core import tool

    @tool(read_only=True, risk="low")
    def a_tool_with_a_rather_long_name(city: str) -> str:
        '''When the sun rises in a city.'''
        return "06:00"
    """


def test_a_narrow_line_keeps_the_groups_aligned_and_every_name_whole(tmp_path: Path) -> None:
    """At 70 columns one header still serves every origin, and each name is printed whole."""
    extra = write(tmp_path, "narrow.py", LONG_NAMED)
    result = CliRunner().invoke(
        nucleo,
        ["tools", "--from", str(extra), "--from", WEATHER],
        env={**PLAIN_ENV, "COLUMNS": "70"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if line.startswith("Name ")] == [lines[0]]
    for name in ["a_tool_with_a_rather_long_name", *WEATHER_NAMES]:
        assert any(line.split()[:1] == [name] for line in lines), name
    assert "…" not in result.output


def test_a_line_too_narrow_even_for_the_names_folds_them_and_cuts_nothing(tmp_path: Path) -> None:
    """Narrower than a name, each origin gets its own header and names fold, never end in `…`."""
    extra = write(tmp_path, "narrow.py", LONG_NAMED)
    result = CliRunner().invoke(
        nucleo,
        ["tools", "--from", str(extra), "--from", WEATHER],
        env={**PLAIN_ENV, "COLUMNS": "24"},
    )
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    headers = [line for line in result.output.splitlines() if line.startswith("Name")]
    assert len(headers) == 2
    # The name column's pieces, line after line, spell the whole name.
    first_cells = "".join(line.split()[0] for line in result.output.splitlines() if line.strip())
    assert "a_tool_with_a_rather_long_name" in first_cells


def test_tools_of_the_one_source_given_are_listed_without_a_title() -> None:
    """A title repeating the only --from given is left out: rows follow the header's rule."""
    result = run("tools", "--from", WEATHER)
    assert result.output.splitlines()[2].startswith("forecast ")
    assert f"--from {WEATHER}" not in result.output


def test_show_says_where_the_tool_comes_from() -> None:
    """`nucleo tools show NAME` has an origin line naming the --from source."""
    result = run("tools", "show", "forecast", "--from", WEATHER)
    assert result.exit_code == 0, result.output
    assert f"  origin:       --from {WEATHER}" in result.output.splitlines()


def test_from_accepts_a_dotted_module_found_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dotted --from is imported as `python -m` would, with the working directory on the path."""
    package = tmp_path / "clitest_pack"
    package.mkdir()
    write(package, "__init__.py", "")
    write(
        package,
        "tools.py",
        """
        from nucleo_core import tool

        @tool(read_only=True, risk="low")
        def ping() -> str:
            '''Answer pong.'''
            return "pong"
        """,
    )
    monkeypatch.chdir(tmp_path)
    result = run("tools", "--from", "clitest_pack.tools", "--json")
    assert result.exit_code == 0, result.output
    assert [entry["name"] for entry in json.loads(result.stdout)] == ["ping"]


def test_a_file_source_can_import_its_sibling_modules(tmp_path: Path) -> None:
    """A file is imported as `python FILE` runs it: its own directory is on the path."""
    write(tmp_path, "clitest_helpers.py", "GREETING = 'hello'\n")
    tools = write(
        tmp_path,
        "greeter.py",
        """
        from clitest_helpers import GREETING
        from nucleo_core import tool

        @tool(read_only=True, risk="low")
        def greet(name: str) -> str:
            '''Greet someone.'''
            return f"{GREETING} {name}"
        """,
    )
    result = run("tools", "--from", str(tools), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["name"] == "greet"


def test_several_sources_list_in_source_order(tmp_path: Path) -> None:
    """Repeated --from options add up, each source's tools in definition order."""
    extra = write(
        tmp_path,
        "extra.py",
        """
        from nucleo_core import tool

        @tool(risk="high")
        def reboot() -> str:
            '''Reboot the weather station.'''
            return "rebooting"
        """,
    )
    result = run("tools", "--from", str(extra), "--from", WEATHER, "--json")
    assert result.exit_code == 0, result.output
    assert [entry["name"] for entry in json.loads(result.stdout)] == ["reboot", *WEATHER_NAMES]


def test_the_same_file_named_twice_is_loaded_once(tmp_path: Path) -> None:
    """One file given under two spellings is one source, not a name clash with itself."""
    relative_twin = str(Path(WEATHER).parent / "." / "weather.py")
    result = run("tools", "--from", WEATHER, "--from", relative_twin, "--json")
    assert result.exit_code == 0, result.output
    assert [entry["name"] for entry in json.loads(result.stdout)] == WEATHER_NAMES


def test_two_sources_defining_one_name_fail_instead_of_replacing_silently(tmp_path: Path) -> None:
    """Two different tools under one name from two sources exit 2, naming both sources."""
    rival = write(
        tmp_path,
        "rival.py",
        """
        from nucleo_core import tool

        @tool(read_only=True, risk="low")
        def forecast(city: str) -> str:
            '''Another forecast.'''
            return city
        """,
    )
    result = run("tools", "--from", WEATHER, "--from", str(rival))
    assert result.exit_code == 2
    assert "tool 'forecast' is already defined by" in result.output
    assert WEATHER in result.output


# -- showing --------------------------------------------------------------------------------


def test_show_prints_the_full_description_and_input_schema() -> None:
    """`nucleo tools show NAME` prints the tool's declarations, description and input schema."""
    result = run("tools", "show", "set_alert", "--from", WEATHER)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("set_alert\n")
    assert "Set weather alert" in result.output
    assert "Alert the user when a condition is forecast for a city." in result.output
    assert '"enum": [' in result.output
    assert "Output: text (no output schema)" in result.output


STRUCTURED = """
    from pydantic import BaseModel

    from nucleo_core import Tool, tool

    class Query(BaseModel):
        city: str

    class Reading(BaseModel):
        celsius: float

    @tool(read_only=True, risk="low")
    class Temperature(Tool[Query, Reading]):
        "The temperature in a city now."

        def run(self, input: Query) -> Reading:
            "Read the thermometer."
            return Reading(celsius=21.0)
"""


def test_show_prints_the_output_schema_of_a_structured_output(tmp_path: Path) -> None:
    """A tool with a pydantic output shows its output schema, in both views."""
    module = write(tmp_path, "structured.py", STRUCTURED)
    shown = run("tools", "show", "temperature", "--from", str(module))
    assert shown.exit_code == 0, shown.output
    assert "Output schema" in shown.output
    assert '"celsius"' in shown.output
    as_json = json.loads(
        run("tools", "show", "temperature", "--from", str(module), "--json").stdout
    )
    assert as_json["output_schema"]["properties"]["celsius"]["type"] == "number"


def test_show_accepts_the_source_prefixed_name() -> None:
    """NAME may be given as native:NAME, the id a tool's source column shows."""
    bare = run("tools", "show", "forecast", "--from", WEATHER, "--json")
    prefixed = run("tools", "show", "native:forecast", "--from", WEATHER, "--json")
    assert prefixed.exit_code == 0, prefixed.output
    assert prefixed.stdout == bare.stdout


def test_show_json_carries_the_summary_and_both_schemas() -> None:
    """`show --json` is the listing's object plus the input and output schemas."""
    result = run("tools", "show", "forecast", "--from", WEATHER, "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    provider = collect_registry([WEATHER]).registry.get_provider_by_name("forecast")
    assert provider is not None
    listed = json.loads(run("tools", "--from", WEATHER, "--json").stdout)[0]
    assert shown == {**listed, "input_schema": shown["input_schema"], "output_schema": None}
    assert list(shown)[-2:] == ["input_schema", "output_schema"]
    assert shown["input_schema"] == provider.input_schema
    assert shown["output_schema"] is None
    assert shown["input_schema"]["properties"]["days"]["maximum"] == 7


@pytest.mark.parametrize("format", ["openai", "anthropic", "mcp"])
def test_show_format_prints_the_provider_definition(format: ToolFormat) -> None:
    """`--format openai|anthropic|mcp` prints exactly what that provider's renderer produces."""
    result = run("tools", "show", "set_alert", "--from", WEATHER, "--format", format)
    assert result.exit_code == 0, result.output
    provider = collect_registry([WEATHER]).registry.get_provider_by_name("set_alert")
    assert provider is not None
    expected = render_tools([provider.spec()], format)
    assert json.loads(result.stdout) == expected[0]


def test_from_and_json_may_be_given_before_show() -> None:
    """Group options placed before `show` reach it: `nucleo tools --from F --json show NAME`."""
    before = run("tools", "--from", WEATHER, "--json", "show", "forecast")
    after = run("tools", "show", "forecast", "--from", WEATHER, "--json")
    assert before.exit_code == 0, before.output
    assert before.stdout == after.stdout


def test_sources_before_and_after_show_add_up(tmp_path: Path) -> None:
    """A --from before `show` and one after it are both loaded."""
    extra = write(
        tmp_path,
        "extra2.py",
        """
        from nucleo_core import tool

        @tool(read_only=True, risk="low")
        def humidity(city: str) -> int:
            '''Relative humidity in a city, in percent.'''
            return 50
        """,
    )
    result = run("tools", "--from", WEATHER, "show", "humidity", "--from", str(extra), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["name"] == "humidity"
    result = run("tools", "--from", str(extra), "show", "set_alert", "--from", WEATHER, "--json")
    assert result.exit_code == 0, result.output


def test_show_unknown_name_exits_2_and_lists_the_available_names() -> None:
    """An unknown NAME exits with code 2 and says which names exist."""
    result = run("tools", "show", "hurricane", "--from", WEATHER)
    assert result.exit_code == 2
    assert "no tool named 'hurricane'" in result.output
    assert "Available tools: forecast, set_alert, clear_alerts" in result.output


def test_show_with_no_tools_at_all_says_how_to_add_some() -> None:
    """`show` with nothing registered exits 2 and points at --from."""
    result = run("tools", "show", "forecast")
    assert result.exit_code == 2
    assert "no tools are registered" in result.output
    assert "--from" in result.output


# -- failures for users ---------------------------------------------------------------------


def assert_user_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ")
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.output


def test_a_missing_file_exits_2_without_a_traceback(tmp_path: Path) -> None:
    """--from a .py path that does not exist is one clear error line, exit code 2."""
    assert_user_error(run("tools", "--from", str(tmp_path / "nope.py")), "no such file")


def test_a_missing_module_exits_2_naming_it() -> None:
    """--from an unimportable module name exits 2 and names the missing module."""
    result = run("tools", "--from", "clitest_no_such_package.tools")
    assert_user_error(result, "no module named 'clitest_no_such_package'")


def test_a_module_whose_dependency_is_missing_names_the_dependency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module that exists but imports a missing package is not reported as missing itself."""
    write(tmp_path, "clitest_needs_more.py", "import clitest_absent_dependency\n")
    monkeypatch.chdir(tmp_path)
    result = run("tools", "--from", "clitest_needs_more")
    assert_user_error(
        result,
        "'clitest_needs_more': importing it raised ModuleNotFoundError",
        "clitest_absent_dependency",
    )


def test_a_directory_exits_2_and_says_what_to_pass(tmp_path: Path) -> None:
    """--from a directory exits 2, asking for a .py file or a dotted module name."""
    assert_user_error(run("tools", "--from", str(tmp_path)), "is a directory")


def test_a_source_that_is_neither_path_nor_module_name_exits_2() -> None:
    """--from text that is no module name and no file is refused with exit code 2."""
    assert_user_error(run("tools", "--from", "not a module"), "dotted module name")


def test_a_module_that_raises_on_import_exits_2_naming_the_error(tmp_path: Path) -> None:
    """A source whose import raises exits 2 with the error's type and message, not a traceback."""
    broken = write(tmp_path, "broken.py", "import json\nraise RuntimeError('no config found')\n")
    assert_user_error(
        run("tools", "--from", str(broken)), "RuntimeError: no config found", str(broken)
    )


def test_a_module_with_a_syntax_error_exits_2(tmp_path: Path) -> None:
    """A source that does not parse exits 2, naming the SyntaxError."""
    broken = write(tmp_path, "unparsable.py", "def broken(:\n")
    assert_user_error(run("tools", "--from", str(broken)), "SyntaxError")


def test_a_misdeclared_tool_exits_2_with_the_declaration_problems(tmp_path: Path) -> None:
    """A ToolDeclarationError raised by @tool at import is printed as such, exit code 2."""
    module = write(tmp_path, "misdeclared.py", MISDECLARED)
    result = run("tools", "--from", str(module))
    assert_user_error(result, "is not a valid tool declaration", "missing description")


def test_a_failing_schema_refiner_exits_2_with_its_message(tmp_path: Path) -> None:
    """A refiner that raises fails the listing (SchemaRefinementError), exit code 2."""
    module = write(tmp_path, "refined.py", BROKEN_REFINER)
    result = run("tools", "--from", str(module))
    assert_user_error(result, "schema refiner of tool 'lookup' raised KeyError")


def test_any_failure_while_checking_tools_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking runs the module's own code; whatever it raises is one message, exit code 2."""

    def failing_check(self: object) -> None:
        raise RuntimeError("custom type exploded")

    monkeypatch.setattr(FunctionToolProvider, "check", failing_check)
    result = run("tools", "--from", WEATHER)
    assert_user_error(result, "checking its tools raised RuntimeError: custom type exploded")


def test_show_fails_the_same_way_as_the_listing(tmp_path: Path) -> None:
    """`show` loads its sources like the listing does, so a bad source exits 2 there too."""
    module = write(tmp_path, "misdeclared2.py", MISDECLARED)
    assert_user_error(run("tools", "show", "shout", "--from", str(module)), "missing description")


# -- the command itself -----------------------------------------------------------------------


@pytest.mark.parametrize("option", ["-V", "--version"])
def test_version_prints_the_package_version(option: str) -> None:
    """`nucleo -V`, like `nucleo --version`, prints nucleo_core.__version__."""
    result = run(option)
    assert result.exit_code == 0, result.output
    assert result.output == f"nucleo, version {nucleo_core.__version__}\n"


def test_collect_registry_registers_the_tools_a_module_defines() -> None:
    """collect_registry holds, in order, exactly what tools_in_module finds in each source."""
    collected = collect_registry([WEATHER])
    assert isinstance(collected.registry, ToolRegistry)
    assert collected.registry.names() == [p.name for p in tools_in_module(load_source(WEATHER))]
    assert set(collected.origins.values()) == {f"--from {WEATHER}"}
    assert collected.warnings == ()


def test_the_console_script_entry_point_is_main() -> None:
    """The installed `nucleo` script runs nucleo_core.cli:main."""
    (script,) = entry_points(group="console_scripts", name="nucleo")
    assert script.value == "nucleo_core.cli:main"
    assert script.load() is main


def run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    for key, value in PLAIN_ENV.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=60,
        check=False,
    )


def test_the_real_command_lists_weather_tools_as_json(tmp_path: Path) -> None:
    """`python -m nucleo_core.cli tools --from weather.py --json` works in a fresh process."""
    completed = run_module("tools", "--from", WEATHER, "--json", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert [entry["name"] for entry in json.loads(completed.stdout)] == WEATHER_NAMES


def test_the_readme_quickstart_command_runs_from_the_repository_root() -> None:
    """`nucleo tools --from docs/examples/weather.py` (docs/index.md) lists the weather tools."""
    completed = run_module("tools", "--from", "docs/examples/weather.py", cwd=REPO)
    assert completed.returncode == 0, completed.stderr
    for name in WEATHER_NAMES:
        assert name in completed.stdout


def test_the_real_command_reports_a_bad_source_with_exit_code_2(tmp_path: Path) -> None:
    """In a real process a misdeclared module prints one error on stderr, exit 2, no traceback."""
    module = write(tmp_path, "misdeclared3.py", MISDECLARED)
    completed = run_module("tools", "--from", str(module), cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.startswith("Error: cannot load tools from")
    assert "Traceback" not in completed.stderr


def test_importing_nucleo_core_does_not_import_the_cli() -> None:
    """`import nucleo_core` loads neither the CLI nor click nor rich; the CLI loads rich lazily."""
    probe = (
        "import sys, nucleo_core\n"
        "print(sorted(m for m in ('nucleo_core.cli', 'click', 'rich') if m in sys.modules))\n"
        "import nucleo_core.cli\n"
        "print('rich' in sys.modules)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert completed.stdout.splitlines() == ["[]", "False"]


@pytest.mark.parametrize(
    ("line", "word", "completion"),
    [("nucleo to", 1, "tools"), ("nucleo tools --f", 2, "--from"), ("nucleo plu", 1, "plugins")],
)
def test_the_shell_completion_docs_cli_md_describes_completes_commands_and_options(
    line: str, word: int, completion: str
) -> None:
    """`_NUCLEO_COMPLETE=bash_complete` (what docs/cli.md's bash line runs) completes a word."""
    environment = {
        **os.environ,
        "_NUCLEO_COMPLETE": "bash_complete",
        "COMP_WORDS": line,
        "COMP_CWORD": str(word),
    }
    completed = subprocess.run(
        [sys.executable, "-c", "from nucleo_core.cli import main; main()"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert f"plain,{completion}" in completed.stdout.splitlines()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_gets_a_completion_script(shell: str) -> None:
    """`_NUCLEO_COMPLETE=<shell>_source nucleo` prints the script docs/cli.md has you source."""
    completed = subprocess.run(
        [sys.executable, "-c", "from nucleo_core.cli import main; main()"],
        env={**os.environ, "_NUCLEO_COMPLETE": f"{shell}_source"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "_NUCLEO_COMPLETE" in completed.stdout
    assert "_nucleo_completion" in completed.stdout


def test_mcp_with_nothing_configured_points_at_what_a_pip_user_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No servers configured: an inline example, `nucleo mcp --help` and the online page."""
    monkeypatch.chdir(tmp_path)
    result = run("mcp")
    assert result.exit_code == 0, result.output
    assert "[tool.nucleo.mcp.servers.time]" in result.output
    assert "`nucleo mcp --help`" in result.output
    assert "https://nucleo-agents.github.io/nucleo/mcp/" in result.output
    assert "docs/mcp.md" not in result.output


def test_the_help_names_the_documentation_and_shell_completion_urls_whole() -> None:
    """`nucleo -h` ends with the docs' URL and the completion section's, each on one line."""
    result = run("-h")
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines()]
    assert "Documentation: https://nucleo-agents.github.io/nucleo/" in lines
    assert (
        "Shell completion (bash, zsh, fish): "
        "https://nucleo-agents.github.io/nucleo/cli/#shell-completion"
    ) in lines
    assert "-V, --version" in result.output
