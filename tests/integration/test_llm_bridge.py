"""The llm bridge with published ``llm`` tool packs, installed as a user installs them.

A fresh virtual environment gets nucleo-core and nucleo-tools-llm (wheels built from this
checkout) and four tool packs published on the package index: ``llm-tools-simpleeval`` (a
function), ``llm-tools-quickjs`` (a function that raises on a JavaScript error, and a Toolbox
keeping a JavaScript context), ``llm-tools-sqlite`` (a Toolbox whose constructor needs a
database path) and ``llm-tools-datasette`` (a Toolbox needing a URL, returning JSON). Tests
reach no network but 127.0.0.1, so everything is installed from a wheelhouse that ``.ci/run``
downloads in its install step; without it the tests fail, saying how to make it.

Every check runs the ``nucleo`` command or a script with that environment's Python, from a
working directory outside the repository holding the test's ``nucleo.toml``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _installed_packs import PackSource, write_pack
from _installed_venv import TIMEOUT, Venv, clean_environment

REPOSITORY = Path(__file__).resolve().parents[2]

#: Where the published packs and every dependency wait as wheels; ``NUCLEO_LLM_WHEELHOUSE``
#: names another folder.
WHEELHOUSE = Path(
    os.environ.get("NUCLEO_LLM_WHEELHOUSE") or REPOSITORY / ".ci" / "wheelhouse"
).resolve()

#: The published llm tool packs the tests install (versions pinned by .ci/run's download).
PACKS = ("llm-tools-simpleeval", "llm-tools-quickjs", "llm-tools-sqlite", "llm-tools-datasette")

#: The command that makes the wheelhouse, from the repository's root (as .ci/run runs it).
MAKE_WHEELHOUSE = (
    "python -m pip download -d .ci/wheelhouse . ./plugins/nucleo-tools-llm "
    "'hatchling>=1.25' " + " ".join(PACKS)
)

#: A pack of the llm ecosystem that cannot be imported: it needs a module never installed.
BROKEN_LLM_PACK = PackSource(
    distribution="llm-tools-broken",
    package="llm_tools_broken",
    entry_points={"llm": {"llm_tools_broken": "llm_tools_broken"}},
    dependencies=("llm-absent-dependency",),
    source="""\
        import llm
        import llm_absent_dependency  # declared, never installed (--no-deps)


        @llm.hookimpl
        def register_tools(register):
            register(len)
        """,
)

#: The configuration the tests run with: risk and read-only per tool, Toolbox and pack, and
#: the constructor arguments of the two Toolboxes that need some.
CONFIGURATION = """\
[llm.tools.simple_eval]
read_only = true
risk = "low"

[llm.tools.SQLite]
read_only = true
risk = "low"

[llm.tools.SQLite_schema]
risk = "medium"

[llm.packs.llm-tools-quickjs]
risk = "medium"

[llm.toolboxes.SQLite]
path = "notes.db"

[llm.toolboxes.Datasette]
url = "{datasette}"
"""


def _checked(
    command: list[str | os.PathLike[str]], **options: Any
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [os.fspath(part) for part in command],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        env=clean_environment(),
        **options,
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    )
    return done


def _pip_offline(*arguments: str | os.PathLike[str]) -> list[str | os.PathLike[str]]:
    return [sys.executable, "-m", "pip", *arguments, "--no-index", "--find-links", WHEELHOUSE]


@pytest.fixture(scope="module")
def wheelhouse() -> Path:
    """The wheelhouse .ci/run downloads.

    Its absence fails the tests where the wheelhouse is required (``.ci/run`` sets
    ``NUCLEO_REQUIRE_LLM_WHEELHOUSE=1``, having made it); elsewhere — the README's test command
    on a fresh clone, which downloads nothing — the tests are skipped with the fix, since
    tests may not reach the package index.
    """
    present = WHEELHOUSE.is_dir() and all(
        any(WHEELHOUSE.glob(f"{pack.replace('-', '_')}-*.whl")) for pack in PACKS
    )
    if not present:
        message = (
            f"the llm tool packs' wheelhouse {WHEELHOUSE} is missing or incomplete: the tests "
            "install published packs without the network. Make it from the repository's root "
            f"with:\n    {MAKE_WHEELHOUSE}\n(.ci/run does this in its install step; "
            "NUCLEO_LLM_WHEELHOUSE names another folder)"
        )
        if os.environ.get("NUCLEO_REQUIRE_LLM_WHEELHOUSE") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return WHEELHOUSE


@pytest.fixture(scope="module")
def built(wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Wheels of nucleo-core, the bridge and the broken llm pack, built offline."""
    into = tmp_path_factory.mktemp("llm-wheels")
    broken = write_pack(BROKEN_LLM_PACK, tmp_path_factory.mktemp("llm-broken-source"))
    sources = [REPOSITORY, REPOSITORY / "plugins" / "nucleo-tools-llm", broken]
    _checked(_pip_offline("wheel", "--quiet", "--no-deps", "-w", into, *sources))
    return into


@pytest.fixture(scope="module")
def venv(built: Path, wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """A fresh environment: nucleo-core, the bridge and the four published packs."""
    environment = Venv.create(tmp_path_factory.mktemp("llm-venv") / "env")
    wheels = [*built.glob("nucleo_core-*.whl"), *built.glob("nucleo_tools_llm-*.whl")]
    environment.pip_install(
        "--no-index", "--find-links", wheelhouse, "--find-links", built, *wheels, *PACKS
    )
    return environment


@pytest.fixture(scope="module")
def broken_venv(venv: Venv, built: Path, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """The first environment's packages, plus an llm pack that fails to import."""
    environment = Venv.layered_on(venv, tmp_path_factory.mktemp("llm-broken-venv") / "env")
    environment.pip_install("--no-index", "--no-deps", *built.glob("llm_tools_broken-*.whl"))
    return environment


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder outside the repository: a notes database and the configuration."""
    folder = tmp_path / "project"
    folder.mkdir()
    with sqlite3.connect(folder / "notes.db") as connection:
        connection.execute("create table notes (id integer primary key, text text)")
        connection.execute("insert into notes (text) values ('buy milk')")
    connection.close()
    # Nothing listens on port 9 of 127.0.0.1 (discard): a test that needs a server starts one.
    (folder / "nucleo.toml").write_text(
        CONFIGURATION.format(datasette="http://127.0.0.1:9/db"), encoding="utf-8"
    )
    return folder


def nucleo(venv: Venv, *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the environment's ``nucleo`` command in ``cwd``; fail on a non-zero exit.

    A layered environment has no console script of its own: its Python runs the command's
    module instead, which is what the script runs.
    """
    script = venv.root / "bin" / "nucleo"
    command = [script] if script.exists() else [venv.python, "-I", "-m", "nucleo_core.cli"]
    return _checked([*command, *arguments], cwd=cwd)


def listed(venv: Venv, cwd: Path) -> dict[str, dict[str, Any]]:
    """``nucleo tools --json`` run in ``cwd``, by tool name."""
    return {
        tool["name"]: tool for tool in json.loads(nucleo(venv, "tools", "--json", cwd=cwd).stdout)
    }


#: Script lines every thinker script starts with: a thinker selecting the bridge's pack, and a
#: scripted model making the given calls one per turn, then answering with every result.
THINKER = """\
import asyncio
import json

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub, ToolSelector
from nucleo_core.conversations import ConversationService
from nucleo_core.models import ToolResultBlock
from nucleo_core.testing import ScriptedModel, text_response, tool_use_response
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


class Assistant(SingleObjectiveThinker[str, str]):
    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_pack("llm")


def results(request):
    return [
        block.content
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def calling(*calls):
    def answer(request):
        done = results(request)
        if len(done) < len(calls):
            return tool_use_response(calls[len(done)])
        return text_response(json.dumps(done))

    return answer


def assistant(hub, *calls):
    return Assistant(
        ThinkerDeclaration("standard", "short"),
        hub=hub,
        catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
        conversations=ConversationService(":memory:"),
        client=ScriptedModel(calling(*calls)),
    )


def granting(*names):
    return ("request_tools", {"tools": list(names)})


async def run(hub, conversation_id, *calls):
    said = await assistant(hub, *calls).run("Work.", conversation_id=conversation_id)
    return json.loads(said)


hub = ToolHub()
hub.load_plugins()
"""


# -- listing ------------------------------------------------------------------------------------


def test_nucleo_tools_lists_the_packs_tools_with_llms_names_and_the_configured_declarations(
    venv: Venv, project: Path
) -> None:
    """`nucleo tools` lists every tool of the four packs, read-only and risk as configured."""
    tools = listed(venv, project)
    expected = {
        # name: (read-only, risk, declared), by the tool's, its Toolbox's or its pack's table
        "simple_eval": (True, "low", True),
        "quickjs": (False, "medium", True),
        "QuickJS_execute_javascript": (False, "medium", True),
        "QuickJS_reset_context": (False, "medium", True),
        "SQLite_query": (True, "low", True),
        "SQLite_schema": (True, "medium", True),  # its own table wins over its Toolbox's
        "Datasette_query": (False, "high", False),  # nothing declares it
        "Datasette_schema": (False, "high", False),
    }
    assert set(tools) == set(expected)
    for name, (read_only, risk, declared) in expected.items():
        tool = tools[name]
        assert (tool["read_only"], tool["risk"], tool["risk_declared"]) == (
            read_only,
            risk,
            declared,
        ), name
        assert tool["origin"].startswith("pack llm (nucleo-tools-llm ")
    assert tools["SQLite_query"]["source"] == "llm:llm_tools_sqlite:SQLite_query"
    assert tools["simple_eval"]["source"] == "llm:tools_simpleeval:simple_eval"
    # llm's descriptions are docstrings; the bridge takes their indentation away.
    assert tools["QuickJS_execute_javascript"]["description"].startswith(
        "Execute JavaScript code using a persistent QuickJS context.\nState is maintained"
    )


def test_the_published_schema_is_llms_own(venv: Venv, project: Path) -> None:
    """`nucleo tools show` publishes the input schema llm builds from the function signature."""
    shown = json.loads(nucleo(venv, "tools", "show", "SQLite_query", "--json", cwd=project).stdout)
    schema = shown["input_schema"]
    assert schema["type"] == "object"
    assert schema["required"] == ["sql"]
    assert schema["properties"]["sql"]["type"] == "string"


def test_undeclared_tools_are_mutating_and_high_and_unconfigured_toolboxes_left_out(
    venv: Venv, tmp_path: Path
) -> None:
    """Nothing declared: mutating and high; a Toolbox lacking arguments is left out, saying how."""
    empty = tmp_path / "empty"
    empty.mkdir()
    done = nucleo(venv, "tools", "--json", cwd=empty)
    tools = {tool["name"]: tool for tool in json.loads(done.stdout)}
    assert set(tools) == {
        "simple_eval",
        "quickjs",
        "QuickJS_execute_javascript",
        "QuickJS_reset_context",
    }
    assert all(
        not t["read_only"] and t["risk"] == "high" and not t["risk_declared"]
        for t in tools.values()
    )
    assert (
        "toolbox SQLite left out: its constructor needs path; set them in [llm.toolboxes.SQLite]"
        in done.stderr
    )
    assert "toolbox Datasette left out: its constructor needs url" in done.stderr


def test_a_read_only_thinker_is_granted_only_the_tools_configured_read_only(
    venv: Venv, project: Path
) -> None:
    """The configuration's read_only is what admission decides on: quickjs is refused."""
    said = venv.run(
        """
from nucleo_core import ThinkerBase, ToolHub, ToolSelector


class Reader(ThinkerBase):
    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_pack("llm")


hub = ToolHub()
hub.load_plugins()
result = Reader(hub=hub, read_only=True).request_tools(["SQLite_query", "quickjs"])
emit({"granted": list(result.granted), "refused": [r.name for r in result.refused]})
""",
        cwd=project,
    )
    assert said == {"granted": ["SQLite_query"], "refused": ["quickjs"]}


# -- calling -----------------------------------------------------------------------------------


def test_a_thinker_on_the_scripted_model_calls_function_and_toolbox_tools(
    venv: Venv, project: Path
) -> None:
    """A thinker is granted the bridged tools and its calls run the packs' own code."""
    said = venv.run(
        THINKER
        + """
emit(asyncio.run(run(
    hub,
    "c1",
    granting("simple_eval", "SQLite_query", "SQLite_schema"),
    ("simple_eval", {"expression": "2 ** 10"}),
    ("SQLite_query", {"sql": "select text from notes"}),
    ("SQLite_schema", {}),
)))
""",
        cwd=project,
    )
    granted, evaluated, rows, schema = said
    assert json.loads(granted)["granted"] == ["simple_eval", "SQLite_query", "SQLite_schema"]
    assert evaluated == "1024"
    assert json.loads(rows) == [{"text": "buy milk"}]  # from notes.db, the configured path
    assert "CREATE TABLE notes" in schema


def test_a_tool_that_raises_is_a_failed_call_whose_message_the_model_never_reads(
    venv: Venv, project: Path
) -> None:
    """A JavaScript error in quickjs, a refused connection in Datasette: the model reads types."""
    said = venv.run(
        THINKER
        + """
import logging

logging.disable(logging.CRITICAL)  # nucleo logs each failure with its traceback
hub.approver = lambda request: True  # Datasette declares no risk: it needs an approval to run
emit(asyncio.run(run(
    hub,
    "c1",
    granting("quickjs", "Datasette_query"),
    ("quickjs", {"javascript": "function execute() { throw new Error('the-secret-42') }"}),
    ("Datasette_query", {"sqlite_sql": "select 'the-secret-43'"}),
)))
""",
        cwd=project,
    )
    _, javascript, datasette = said
    assert javascript == (
        "Tool 'quickjs' failed: an internal error (JSException); the details were recorded "
        "for the developer."
    )
    assert datasette == (
        "Tool 'Datasette_query' failed: an internal error (Exception); the details were "
        "recorded for the developer."
    )


def test_a_return_value_that_is_not_text_reaches_the_model_as_json(
    venv: Venv, project: Path
) -> None:
    """Datasette_query returns the server's JSON rows as a list: the model reads them as JSON."""
    said = venv.run(
        THINKER
        + """
import http.server
import threading
import urllib.parse

import nucleo_tools_llm
from nucleo_tools_llm.config import LLMConfig


class Datasette(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        body = json.dumps([{"asked": query["sql"][0], "n": 1, "ok": True}]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Datasette)
threading.Thread(target=server.serve_forever, daemon=True).start()
config = LLMConfig.from_mapping(
    {"toolboxes": {"Datasette": {"url": f"http://127.0.0.1:{server.server_address[1]}/db"}}}
)
bridge = nucleo_tools_llm.LLMBridge(config).load()
provider = next(p for p in bridge.providers if p.name == "Datasette_query")
answer = asyncio.run(provider.call(provider.parse_input({"sqlite_sql": "select 1"})))
server.shutdown()
emit(answer)
""",
        cwd=project,
    )
    assert said == '[{"asked": "select 1", "n": 1, "ok": true}]'


def test_input_is_validated_against_llms_schema_before_the_call(venv: Venv, project: Path) -> None:
    """A wrong type or an undeclared field is refused by field and type, never echoing the value."""
    said = venv.run(
        THINKER
        + """
emit(asyncio.run(run(
    hub,
    "c1",
    granting("SQLite_query"),
    ("SQLite_query", {"sql": 987654321}),
    ("SQLite_query", {"sql": "select 1", "database": "secret-name-77"}),
)))
""",
        cwd=project,
    )
    _, wrong_type, undeclared = said
    assert wrong_type == "Invalid input for tool 'SQLite_query': sql: expected string"
    assert undeclared.startswith(
        "Invalid input for tool 'SQLite_query': input: has an undeclared field"
    )
    assert "987654321" not in wrong_type
    assert "secret-name-77" not in undeclared
    assert "database" not in undeclared  # the key the model invented is model text too


# -- state per conversation ----------------------------------------------------------------------


def test_each_conversation_has_its_own_toolbox_instance_kept_for_its_length(
    venv: Venv, project: Path
) -> None:
    """A QuickJS variable lives through one conversation, not into another; each ends dropped."""
    said = venv.run(
        THINKER
        + """
provider = next(
    tool.provider
    for tool in hub.plugins.pack_tools()
    if tool.provider.name == "QuickJS_execute_javascript"
)
first = asyncio.run(run(
    hub,
    "conversation-1",
    granting("QuickJS_execute_javascript"),
    ("QuickJS_execute_javascript", {"javascript": "var kept = 41; kept"}),
    ("QuickJS_execute_javascript", {"javascript": "kept + 1"}),
))
second = asyncio.run(run(
    hub,
    "conversation-2",
    granting("QuickJS_execute_javascript"),
    ("QuickJS_execute_javascript", {"javascript": "typeof kept"}),
))
emit({"first": first[1:], "second": second[1:], "left": len(provider.toolbox)})
""",
        cwd=project,
    )
    assert said["first"] == ["41", "42"]  # the same instance within the conversation
    assert said["second"] == ["undefined"]  # another instance in another conversation
    assert said["left"] == 0  # each run's end dropped its conversation's instance


# -- broken packs --------------------------------------------------------------------------------


def test_an_llm_pack_that_fails_to_import_is_reported_and_the_others_still_load(
    broken_venv: Venv, project: Path
) -> None:
    """The broken pack is named with its distribution and reason; the four others are bridged."""
    done = nucleo(broken_venv, "tools", "--json", cwd=project)
    assert (
        "Warning: plugin llm:llm_tools_broken (llm-tools-broken 0.3.1) was not loaded: "
        "missing dependency: llm_absent_dependency"
    ) in done.stderr
    assert "SQLite_query" in {tool["name"] for tool in json.loads(done.stdout)}
    records = broken_venv.run(
        """
import nucleo_tools_llm

bridge = nucleo_tools_llm.LLMBridge().load()
emit({record.name: [record.status, record.error] for record in bridge.records})
""",
        cwd=project,
    )
    assert records["llm_tools_broken"] == ["failed", "missing dependency: llm_absent_dependency"]
    assert records["llm_tools_sqlite"] == ["loaded", None]


def test_nucleo_plugins_lists_every_llm_pack_under_the_bridge_a_broken_one_with_its_fix(
    broken_venv: Venv, project: Path
) -> None:
    """`nucleo plugins --json` has a record per llm pack under the bridge; the broken one failed."""
    done = nucleo(broken_venv, "plugins", "--json", cwd=project)
    bridge = next(record for record in json.loads(done.stdout) if record["name"] == "llm")
    assert (bridge["status"], bridge["distribution"]) == ("loaded", "nucleo-tools-llm")
    packs = {record["distribution"]: record for record in bridge["subplugins"]}
    assert set(packs) == {*PACKS, "llm-tools-broken"}
    broken = packs.pop("llm-tools-broken")
    assert (broken["group"], broken["name"], broken["status"], broken["version"]) == (
        "llm",
        "llm_tools_broken",
        "failed",
        "0.3.1",
    )
    assert broken["error"] == "missing dependency: llm_absent_dependency"
    assert "pip install --force-reinstall llm-tools-broken" in broken["note"]
    assert all(record["status"] == "loaded" for record in packs.values()), packs
    assert "tool: SQLite_query" in packs["llm-tools-sqlite"]["contributed"]
    assert "tool: simple_eval" in packs["llm-tools-simpleeval"]["contributed"]


def test_nucleo_plugins_strict_fails_naming_the_broken_llm_pack(
    broken_venv: Venv, project: Path
) -> None:
    """`nucleo plugins --strict` shows the packs' rows, then exits 2 naming the broken pack."""
    script = broken_venv.root / "bin" / "nucleo"
    command = [script] if script.exists() else [broken_venv.python, "-I", "-m", "nucleo_core.cli"]
    done = subprocess.run(
        [*map(os.fspath, command), "plugins", "--strict"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        env=clean_environment({"COLUMNS": "200"}),
        cwd=project,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Error: 1 plugin failed: llm:llm_tools_broken" in done.stderr
    broken = next(line for line in done.stdout.splitlines() if "llm_tools_broken" in line)
    assert "failed" in broken
    assert "missing dependency: llm_absent_dependency" in broken


def test_strict_makes_a_broken_llm_pack_fail_the_bridge(broken_venv: Venv, project: Path) -> None:
    """With ``strict = true`` the bridge's own record fails, naming the broken llm pack."""
    config = project / "nucleo.toml"
    config.write_text("[llm]\nstrict = true\n\n" + config.read_text(encoding="utf-8"), "utf-8")
    done = nucleo(broken_venv, "plugins", "--json", cwd=project)
    bridge = next(record for record in json.loads(done.stdout) if record["name"] == "llm")
    assert bridge["status"] == "failed"
    assert "plugin llm:llm_tools_broken (distribution llm-tools-broken)" in bridge["error"]
    assert "missing dependency: llm_absent_dependency" in bridge["error"]
