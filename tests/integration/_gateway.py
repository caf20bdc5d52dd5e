"""What the gateway tests share: a project to serve, and the SDK client against the gateway.

`write_project` lays out a project folder: a ``pyproject.toml`` configuring two real upstream
MCP servers (the SDK-written test server, twice under two ids so that their tool names clash,
and the published ``mcp-server-time``), a permission policy, and gateway profiles; and a module
of thinker classes. `gateway_stdio` runs ``nucleo mcp serve`` as a real subprocess (the
installed console script), and `gateway_http` runs it over streamable HTTP on 127.0.0.1.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _installed_venv import clean_environment
from _mcp_harness import MAIN, SERVERS, time_server_executable

#: The installed console script of this environment.
NUCLEO = Path(sys.executable).with_name("nucleo")

#: The module of thinker classes the profiles serve.
AGENTS = '''\
from nucleo_core import ThinkerBase


class Ops(ThinkerBase):
    """Every upstream tool is system-wide: listed whole."""


class ReadOnlyOps(ThinkerBase):
    """The same tools, bound read-only."""

    def __init__(self, *, hub=None, read_only=True):
        super().__init__(hub=hub, read_only=read_only)


class NeedsAModel(ThinkerBase):
    """A class the gateway cannot build with hub= alone."""

    def __init__(self, model, *, hub=None):
        super().__init__(hub=hub)
'''

#: Tools of a large catalog the ``search`` profile searches (ten native tools).
CATALOG = '''\
from nucleo_core import ThinkerBase, ToolSelector, tool


@tool(read_only=True, risk="low")
def lookup_invoice(number: str) -> str:
    """Look an invoice up by its number."""
    return f"invoice {number}: paid"


@tool(read_only=True, risk="low")
def list_customers() -> str:
    """List the customers."""
    return "ada, grace"


class Searcher(ThinkerBase):
    """A thinker whose catalog is offered through search_tools."""

    tool_offer = "search"

    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_module(__name__)


class Lister(ThinkerBase):
    """The same catalog, enumerated."""

    tool_offer = "enumerate"

    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_module(__name__)
'''


def pyproject(time_server: Path) -> str:
    """The project's configuration (see the module)."""
    main = json.dumps(str(MAIN))
    python = json.dumps(sys.executable)
    return f"""\
[tool.nucleo.mcp.servers.main]
command = {python}
args = [{main}, "stdio", "main"]
timeout = 20
startup_timeout = 30
risk = "low"
max_restarts = 5
tools.wipe = {{ risk = "high" }}
tools.echo = {{ read_only = true }}
tools.forecast = {{ read_only = true }}
tools.fail = {{ risk = "medium" }}

[tool.nucleo.mcp.servers.twin]
command = {python}
args = [{main}, "stdio", "twin"]
timeout = 20
startup_timeout = 30
risk = "low"

[tool.nucleo.mcp.servers.media]
command = {python}
args = [{json.dumps(str(SERVERS / "media_server.py"))}]
risk = "low"
startup_timeout = 30

[tool.nucleo.mcp.servers.time]
command = {json.dumps(str(time_server))}
args = ["--local-timezone", "UTC"]
risk = "low"
startup_timeout = 30
tools = {{ get_current_time = {{ read_only = true }}, convert_time = {{ read_only = true }} }}

[tool.nucleo.guard]
default = {{ low = "auto", medium = "notify", high = "confirm" }}

[[tool.nucleo.guard.rules]]
name = "no-pictures"
tool = "main_picture"
decision = "deny"
reason = "pictures are not shared through the gateway"

[tool.nucleo.gateway.profiles.ops]
thinker = "gateway_agents:Ops"
servers = ["main", "twin", "time"]
description = "The operations tools."

[tool.nucleo.gateway.profiles.solo]
thinker = "gateway_agents:Ops"
servers = ["main"]

[tool.nucleo.gateway.profiles.media]
thinker = "gateway_agents:Ops"
servers = ["media"]

[tool.nucleo.gateway.profiles.readonly]
thinker = "gateway_agents:ReadOnlyOps"
servers = ["main", "twin"]
read_only = true

[tool.nucleo.gateway.profiles.needy]
thinker = "gateway_agents:NeedsAModel"
servers = []

[tool.nucleo.gateway.profiles.listed]
thinker = "gateway_catalog:Lister"
servers = []

[tool.nucleo.gateway.profiles.search]
thinker = "gateway_catalog:Searcher"
servers = []
"""


def write_project(folder: Path) -> Path:
    """Lay the project out in ``folder``; return it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(pyproject(time_server_executable()))
    (folder / "gateway_agents.py").write_text(AGENTS)
    (folder / "gateway_catalog.py").write_text(CATALOG)
    return folder


def environment(project: Path, **extra: str) -> dict[str, str]:
    """The gateway's environment: nothing of the outer process's nucleo settings leaks in."""
    return clean_environment(
        {
            "NUCLEO_APPROVALS": str(project / "approvals.sqlite3"),
            "NUCLEO_CONVERSATIONS": str(project / "conversations.sqlite3"),
            "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1",
            **extra,
        }
    )


def serve_args(profile: str, project: Path, *more: str) -> list[str]:
    """The arguments of ``nucleo mcp serve`` for ``profile`` in ``project``."""
    return ["mcp", "serve", "--profile", profile, "--project", str(project), *more]


def stdio_parameters(profile: str, project: Path) -> Any:
    """The SDK's parameters to launch the gateway over stdio."""
    from mcp import StdioServerParameters

    assert NUCLEO.is_file(), f"the nucleo console script is not installed beside {sys.executable}"
    return StdioServerParameters(
        command=str(NUCLEO),
        args=serve_args(profile, project),
        env=environment(project),
        cwd=str(project),
    )


def approve(project: Path, approval_id: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``nucleo approvals approve ID`` for ``project``'s approvals."""
    return subprocess.run(
        [str(NUCLEO), "approvals", "approve", approval_id],
        env=environment(project),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def audit_records(project: Path) -> list[dict[str, Any]]:
    """Every record of the project's audit log, oldest first, as its JSON objects."""
    path = project / ".nucleo" / "audit.sqlite3"
    if not path.exists():
        return []
    connection = sqlite3.connect(path)
    try:
        tables = [row[0] for row in connection.execute("select name from sqlite_master")]
        table = next(name for name in tables if "record" in name or "audit" in name)
        columns = [row[1] for row in connection.execute(f"pragma table_info({table})")]
        rows = connection.execute(f"select * from {table}").fetchall()
    finally:
        connection.close()
    found = []
    for row in rows:
        item = dict(zip(columns, row, strict=True))
        for value in item.values():
            if isinstance(value, str) and value.startswith("{"):
                try:
                    found.append(json.loads(value))
                    break
                except ValueError:
                    continue
    return found


def text_of(result: Any) -> str:
    """The text of a call result's text blocks, joined."""
    return "\n".join(block.text for block in result.content if block.type == "text")


@dataclass
class HttpGateway:
    """A ``nucleo mcp serve --http`` subprocess: its URL, token and process."""

    url: str
    token: str
    process: subprocess.Popen[str]


@contextmanager
def gateway_http(profile: str, project: Path, *more: str, **env: str) -> Iterator[HttpGateway]:
    """Run the gateway over streamable HTTP on an ephemeral port of 127.0.0.1.

    Waits until it says where it listens (its stderr's first ``listening on`` line).
    """
    process = subprocess.Popen(
        [str(NUCLEO), *serve_args(profile, project, "--http", "--port", "0", *more)],
        env=environment(project, **env),
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "listening on " in line and not url:
                url.append(line.rsplit("listening on ", 1)[1].strip())
                found.set()
        found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        found.wait(120)
        assert url, "the HTTP gateway did not say where it listens:\n" + "".join(lines)
        wait_until(lambda: _answers(url[0]), 60, f"the gateway at {url[0]} answering")
        token = env.get("NUCLEO_API_TOKEN")
        if token is None:
            token = (project / ".nucleo" / "gateway-token").read_text().strip()
        yield HttpGateway(url=url[0], token=token, process=process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        reader.join(30)
        if process.stderr is not None:
            process.stderr.close()


def _answers(url: str) -> bool:
    """Whether the endpoint answers an HTTP request (any status: it is serving)."""
    request = urllib.request.Request(url, data=b"{}", method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children...), from ``/proc``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("PPid:"):
                parents[int(entry.name)] = int(line.split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def wait_until(predicate: Any, timeout: float = 30.0, what: str = "the condition") -> None:
    """Wait until ``predicate()`` holds (polling; never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not hold within {timeout:g} s"
        time.sleep(0.05)
