"""``nucleo mcp``, ``nucleo mcp tools`` and MCP tools in ``nucleo tools``, run as a user runs them.

Each command is a process of its own (``python -m nucleo_core.cli``) started in a project
folder whose ``pyproject.toml`` configures real MCP servers: the SDK-written test server of
``_mcp_servers/``, one that exits at start saying why on stderr, and one whose command does not
exist. Every server's command line carries a token unique to the test, so that the process
table shows whether any server outlived the command that started it.

The blocks of docs/mcp.md marked ``<!-- checked by tests/integration/test_cli_mcp.py: ... -->``
are run here too, in the folder the marker names, and must print exactly what they show.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from _installed_venv import clean_environment
from _mcp_harness import (
    MAIN,
    MAIN_TOOLS,
    SERVERS,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
)

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

REPO = Path(__file__).resolve().parents[2]
DOCS_PAGE = REPO / "docs" / "mcp.md"
DOCS_MARKER = "<!-- checked by tests/integration/test_cli_mcp.py: "
#: What every command runs with: a fixed width, no colour, and output in the order written.
PLAIN = {"COLUMNS": "100", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
#: Wide enough that no row of the tests' tables wraps (their commands are absolute paths).
WIDE = "400"
TIMEOUT = 120


def nucleo(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m nucleo_core.cli ARGS`` in ``cwd``."""
    environment = clean_environment({**PLAIN, "COLUMNS": WIDE, **env})
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environment,
        timeout=TIMEOUT,
        check=False,
    )


def running_with(token: str) -> list[str]:
    """The command lines of the processes whose command line holds ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if token in command:
            found.append(command)
    return found


def assert_no_server_left(token: str) -> None:
    """No server started with ``token`` is still running (a stopped one takes a moment)."""
    deadline = time.monotonic() + 10
    while (left := running_with(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"MCP servers outlived the command: {left}"


def lines(text: str) -> list[str]:
    """The lines of ``text``, each without trailing blanks (rich pads table cells)."""
    return [line.rstrip() for line in text.splitlines()]


@pytest.fixture
def token() -> str:
    """A token unique to the test, carried by every server's command line."""
    return f"nucleo-cli-mcp-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def project(tmp_path: Path, token: str) -> Iterator[Path]:
    """A project folder configuring a working server, a failing one and a missing one."""
    python = json.dumps(sys.executable)
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [tool.nucleo.mcp.servers.main]
            command = {python}
            args = [{json.dumps(str(MAIN))}, "stdio", "{token}"]
            risk = "low"
            timeout = 10
            startup_timeout = 20
            tools.echo = {{ read_only = true }}
            tools.wipe = {{ risk = "high" }}

            [tool.nucleo.mcp.servers.late]
            command = {python}
            args = [{json.dumps(str(SERVERS / "exits_at_start.py"))}, "{token}"]
            startup_timeout = 20

            [tool.nucleo.mcp.servers.missing]
            command = "nucleo-test-no-such-mcp-server"
            """
        ),
        encoding="utf-8",
    )
    yield tmp_path
    assert_no_server_left(token)


# -- nucleo mcp ---------------------------------------------------------------------------------


def test_mcp_lists_each_server_with_its_transport_status_tools_and_last_error(
    project: Path,
) -> None:
    """One row per server; a server that does not start is shown, and the command exits 0."""
    done = nucleo(project, "mcp")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    shown = lines(done.stdout)
    assert shown[0].split() == ["Server", "Transport", "Status", "Tools", "Last", "error"]
    rows = {line.split()[0]: line for line in shown[2:] if line and not line[0].isspace()}
    assert set(rows) >= {"main", "late", "missing"}
    assert re.search(r"\bready\s+10\b", rows["main"])
    assert re.search(r"\bfailed\s+-\s", rows["late"])
    assert re.search(r"\bfailed\s+-\s", rows["missing"])
    text = "\n".join(" ".join(line.split()) for line in shown)
    assert "stdio: nucleo-test-no-such-mcp-server" in text
    assert "the command 'nucleo-test-no-such-mcp-server' was not found" in text
    assert "the server closed the connection (it exited or crashed)" in text
    assert "stderr: fatal: DEMO_API_KEY is not set" in text  # the last line of its stderr
    assert "starting the demo server" not in text  # only the last line is shown
    assert "3 MCP servers (pyproject.toml [tool.nucleo.mcp]): 1 ready, 2 failed." in shown
    assert "`nucleo mcp tools SERVER` lists the tools of one." in shown


def test_mcp_json_gives_every_field_in_full(project: Path, token: str) -> None:
    """--json has one object per server: transport, status, tool count, error, stderr tail."""
    done = nucleo(project, "mcp", "--json")
    assert done.returncode == 0, done.stderr
    servers = {server["name"]: server for server in json.loads(done.stdout)}
    assert list(servers) == ["main", "late", "missing"]
    main = servers["main"]
    assert (main["transport"], main["status"], main["tools"], main["error"]) == (
        "stdio",
        "ready",
        len(MAIN_TOOLS),
        None,
    )
    assert main["command"].endswith(f"main_server.py stdio {token}")
    assert main["protocol_version"]
    assert main["origin"] == f"{project / 'pyproject.toml'} [tool.nucleo.mcp]"
    late = servers["late"]
    assert (late["status"], late["tools"]) == ("failed", None)
    assert late["stderr_tail"] == "starting the demo server\nfatal: DEMO_API_KEY is not set"
    assert "was not found" in servers["missing"]["error"]


def test_mcp_without_configuration_says_how_to_configure_and_exits_0(tmp_path: Path) -> None:
    """No server configured is not an error for the listing; it says where servers go."""
    done = nucleo(tmp_path, "mcp")
    assert done.returncode == 0, done.stderr
    assert lines(done.stdout)[0] == "No MCP servers are configured for this project."
    assert "[tool.nucleo.mcp.servers.time]" in done.stdout
    assert ".mcp.json" in done.stdout
    assert json.loads(nucleo(tmp_path, "mcp", "--json").stdout) == []


def test_mcp_reads_a_projects_mcp_json(tmp_path: Path, token: str) -> None:
    """A .mcp.json in the mcpServers shape other clients use is read as it is."""
    entry = {"command": sys.executable, "args": [str(MAIN), "stdio", token]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"shared": entry}}))
    done = nucleo(tmp_path, "mcp", "--json")
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)
    assert (server["name"], server["status"], server["tools"]) == ("shared", "ready", 10)
    assert_no_server_left(token)


def test_a_malformed_configuration_is_an_error_naming_the_file_and_key(tmp_path: Path) -> None:
    """A configuration that cannot be read is the user's mistake: exit 2, file and key named."""
    (tmp_path / "nucleo.toml").write_text('[mcp.servers.bad]\ncommand = "x"\nrisk = "extreme"\n')
    done = nucleo(tmp_path, "mcp")
    assert done.returncode == 2
    assert "nucleo.toml" in done.stderr
    assert "risk must be one of low, medium, high" in done.stderr
    assert "Traceback" not in done.stderr


def test_without_the_sdk_the_commands_say_which_extra_to_install(project: Path) -> None:
    """Servers are configured but the MCP SDK is missing: say so, never a traceback."""
    blocked = "import sys; sys.modules['mcp'] = None; from nucleo_core.cli.app import main; main()"
    environment = clean_environment({**PLAIN, "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1"})

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", blocked, *args],
            cwd=project,
            capture_output=True,
            text=True,
            env=environment,
            timeout=TIMEOUT,
            check=False,
        )

    listing = run("mcp")
    assert listing.returncode == 1
    assert "python3 -m pip install 'mcp>=2.3,<3'" in listing.stderr
    assert "Traceback" not in listing.stderr
    tools = run("tools")
    assert tools.returncode == 0, tools.stderr
    assert tools.stderr.startswith("Warning: the tools of MCP servers are not listed: the MCP SDK")


# -- nucleo mcp tools SERVER ----------------------------------------------------------------------


def test_mcp_tools_lists_one_servers_tools_as_configured(project: Path) -> None:
    """Name, source, read-only and risk as the configuration declares them, then the summary."""
    done = nucleo(project, "mcp", "tools", "main")
    assert done.returncode == 0, done.stderr
    shown = lines(done.stdout)
    assert shown[0].split() == ["Name", "Source", "Read-only", "Risk", "Description"]
    rows = {line.split()[0]: line.split() for line in shown[2:] if line and line[0] != " "}
    assert list(rows)[: len(MAIN_TOOLS)] == MAIN_TOOLS
    assert rows["echo"][:4] == ["echo", "mcp:main:echo", "yes", "low"]  # declared read-only
    assert rows["wipe"][:4] == ["wipe", "mcp:main:wipe", "no", "high"]  # per-tool risk
    # forecast hints readOnlyHint, but the server is not trusted: not read-only.
    assert rows["forecast"][:4] == ["forecast", "mcp:main:forecast", "no", "low"]
    assert shown[-1] == (
        "Read-only is as configured: the hints of 'main' are not trusted "
        "(trust_annotations = false)."
    )


def test_mcp_tools_json_keeps_the_servers_hints_beside_the_declarations(project: Path) -> None:
    """--json gives each tool's summary, its origin, and the annotations as published."""
    done = nucleo(project, "mcp", "tools", "main", "--json")
    assert done.returncode == 0, done.stderr
    tools = {tool["name"]: tool for tool in json.loads(done.stdout)}
    assert list(tools) == MAIN_TOOLS
    forecast = tools["forecast"]
    assert forecast["source"] == "mcp:main:forecast"
    assert forecast["origin"] == "mcp server main"
    assert forecast["annotations"] == {"readOnlyHint": True}
    assert (forecast["read_only"], forecast["risk"], forecast["risk_declared"]) == (
        False,
        "low",
        True,
    )


def test_mcp_tools_of_a_prefixed_trusted_server(tmp_path: Path, token: str) -> None:
    """A prefix shows in the names (not the sources); trusted hints make tools read-only."""
    (tmp_path / "nucleo.toml").write_text(
        textwrap.dedent(
            f"""
            [mcp.servers.main]
            command = {json.dumps(sys.executable)}
            args = [{json.dumps(str(MAIN))}, "stdio", "{token}"]
            prefix = "m"
            trust_annotations = true
            """
        )
    )
    done = nucleo(tmp_path, "mcp", "tools", "main")
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in lines(done.stdout)[2:] if line[:1] == "m"}
    assert rows["m_echo"][:4] == ["m_echo", "mcp:main:echo", "yes", "high"]  # risk undeclared
    assert rows["m_wipe"][2] == "no"
    assert "'main' is trusted (trust_annotations = true)" in done.stdout
    assert_no_server_left(token)


def test_mcp_tools_of_an_unknown_server_lists_the_configured_ids(project: Path) -> None:
    """An id that is not configured is the user's mistake: exit 2, with the ids there are."""
    done = nucleo(project, "mcp", "tools", "nope")
    assert done.returncode == 2
    assert (
        done.stderr
        == "Error: no MCP server named 'nope'. Configured servers: main, late, missing\n"
    )


def test_mcp_tools_of_a_server_that_does_not_start_says_why(project: Path) -> None:
    """A server that does not start exits 1 with the reason, its command and its stderr."""
    done = nucleo(project, "mcp", "tools", "late")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: MCP server 'late' did not start: the server closed")
    assert done.stderr.endswith(
        "--- its stderr, last lines ---\nstarting the demo server\nfatal: DEMO_API_KEY is not set\n"
    )


def test_mcp_tools_without_configuration_is_an_error(tmp_path: Path) -> None:
    """Asking for a server's tools where none is configured exits 2, saying how to configure."""
    done = nucleo(tmp_path, "mcp", "tools", "time")
    assert done.returncode == 2
    assert done.stderr.startswith("Error: no MCP server named 'time': no MCP servers are ")
    assert "[tool.nucleo.mcp.servers.time]" in done.stderr


# -- nucleo tools ---------------------------------------------------------------------------------


def test_tools_lists_mcp_tools_under_their_server_and_warns_about_the_others(
    project: Path,
) -> None:
    """The configured servers' tools are listed under `mcp server ID`; failures are warnings."""
    done = nucleo(project, "tools", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert done.returncode == 0, done.stderr
    shown = lines(done.stdout)
    assert "mcp server main" in shown
    title = shown.index("mcp server main")
    assert shown[title + 1].split()[:4] == ["echo", "mcp:main:echo", "yes", "low"]
    warnings = done.stderr.splitlines()
    assert warnings == [
        "Warning: the tools of MCP server 'late' are not listed: the server closed the "
        "connection (it exited or crashed); `nucleo mcp` shows its status",
        "Warning: the tools of MCP server 'missing' are not listed: the command "
        "'nucleo-test-no-such-mcp-server' was not found; `nucleo mcp` shows its status",
    ]


def test_tools_json_and_show_give_an_mcp_tools_origin(project: Path) -> None:
    """`nucleo tools --json` and `nucleo tools show` name the server a tool comes from."""
    listed = nucleo(project, "tools", "--json", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert listed.returncode == 0, listed.stderr
    tools = {tool["name"]: tool for tool in json.loads(listed.stdout)}
    assert (tools["pid"]["source"], tools["pid"]["origin"]) == ("mcp:main:pid", "mcp server main")
    shown = nucleo(project, "tools", "show", "echo", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert shown.returncode == 0, shown.stderr
    facts = lines(shown.stdout)
    assert "  origin:       mcp server main" in facts
    assert '"annotations": {"readOnlyHint": true}' in shown.stdout


def test_tools_without_mcp_configuration_lists_no_mcp_tools(tmp_path: Path) -> None:
    """Where no server is configured, nothing MCP appears and nothing is warned about."""
    done = nucleo(tmp_path, "tools", "--json", NUCLEO_DISABLE_PLUGIN_AUTOLOAD="1")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert not [tool for tool in json.loads(done.stdout) if tool["source"].startswith("mcp:")]


# -- the examples on docs/mcp.md ----------------------------------------------------------------


def docs_blocks() -> list[tuple[str, int, str]]:
    """Each marked block of docs/mcp.md: the folder it runs in, its line and its text."""
    page = DOCS_PAGE.read_text(encoding="utf-8").splitlines()
    blocks = []
    for index, line in enumerate(page):
        if line.startswith(DOCS_MARKER):
            folder = line.removeprefix(DOCS_MARKER).removesuffix(" -->")
            start = index + 2
            end = next(i for i in range(start, len(page)) if page[i].startswith("```"))
            blocks.append((folder, start, "\n".join(page[start:end]) + "\n"))
    return blocks


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


def test_the_docs_examples_are_what_the_commands_print(tmp_path: Path) -> None:
    """In the marked blocks of docs/mcp.md, each command prints exactly what is shown.

    They run in the folder the marker names, where ``python`` is this interpreter (as in an
    activated virtual environment) and ``TICKETS_TOKEN`` is not set; stderr is shown where it
    is written, among stdout's lines.
    """
    blocks = docs_blocks()
    assert blocks, "docs/mcp.md marks the blocks this test checks"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # A script, not a symlink: a virtual environment's interpreter knows itself by its path.
    wrapper = bin_dir / "python"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    wrapper.chmod(0o755)
    environment = clean_environment({**PLAIN, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    environment.pop("TICKETS_TOKEN", None)
    environment["NUCLEO_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    # The pins of the docs' servers are kept with the test, not in the docs' folder.
    environment["NUCLEO_MCP_PINS"] = str(tmp_path / "mcp_pins.sqlite3")
    for folder, line, text in blocks:
        where = f"docs/mcp.md:{line}"
        commands = list(console_commands(text))
        assert commands, f"{where}: a checked block shows at least one command"
        for command, shown in commands:
            words = shlex.split(command, comments=True)
            assert words[0] == "nucleo", f"{where}: only nucleo commands are checked"
            expected = re.search(r"#\s*exit code (\d+)\s*$", command)
            done = subprocess.run(
                [sys.executable, "-m", "nucleo_core.cli", *words[1:]],
                cwd=DOCS_PAGE.parent / folder,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env=environment,
                timeout=TIMEOUT,
                check=False,
            )
            assert done.returncode == (int(expected.group(1)) if expected else 0), (
                f"{where}: `{command}` exited {done.returncode}:\n{done.stdout}"
            )
            printed = "\n".join(lines(done.stdout.rstrip("\n")))
            assert printed == shown.rstrip("\n"), (
                f"{where}: `{command}` prints otherwise:\n{printed}"
            )
