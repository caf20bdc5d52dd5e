"""What the MCP integration tests share: test servers, the process table, thinkers.

The servers under ``_mcp_servers/`` are real MCP servers written with the SDK's own server API,
run as subprocesses. `children` reads the process table (``/proc``) for processes whose parent
is the test process, so a test can check that closing left none behind; `Process` follows one
process that is not a child of the test (a server's own child), by pid and start time.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _installed_venv import clean_environment

from nucleo_core import ThinkerBase
from nucleo_core.mcp import MCPServerConfig, MCPToolSelector

SERVERS = Path(__file__).resolve().parent / "_mcp_servers"
MAIN = SERVERS / "main_server.py"

#: The main server's tools, in the order it lists them.
MAIN_TOOLS = [
    "echo",
    "wipe",
    "contradict",
    "forecast",
    "picture",
    "fail",
    "sleep",
    "pid",
    "grow",
    "shrink",
]


def stdio(
    name: str, script: str = "main_server.py", *args: str, **settings: Any
) -> MCPServerConfig:
    """A stdio server running one of the test scripts with this interpreter."""
    arguments: tuple[str, ...] = (str(SERVERS / script), *args)
    if script == "main_server.py" and not args:
        arguments = (str(MAIN), "stdio", name)
    settings.setdefault("startup_timeout", 20.0)
    settings.setdefault("timeout", 10.0)
    return MCPServerConfig(name=name, command=sys.executable, args=arguments, **settings)


def wait_for_file(path: Path, timeout: float = 30.0) -> None:
    """Wait until ``path`` exists (a server created it: the call reached it)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} was not created within {timeout:g} s"
        time.sleep(0.02)


async def await_file(path: Path, timeout: float = 30.0) -> None:
    """`wait_for_file` for a coroutine: the event loop runs on while it waits."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} was not created within {timeout:g} s"
        await asyncio.sleep(0.02)


def children() -> dict[int, str]:
    """The processes whose parent is this process, by pid, with their state letter."""
    found: dict[int, str] = {}
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if fields.get("PPid", "").strip() == str(me):
            found[int(entry.name)] = fields.get("State", "?").strip()[:1]
    return found


def wait_for_no_children(allowed: set[int], timeout: float = 10.0) -> dict[int, str]:
    """Wait until no child but ``allowed`` is left (a killed child takes a moment to reap)."""
    deadline = time.monotonic() + timeout
    while True:
        left = {pid: state for pid, state in children().items() if pid not in allowed}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` from the state on (``None``: no such process)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()  # the command name may hold spaces and ")"


@dataclass(frozen=True)
class Process:
    """One process in the process table, told apart from a later one reusing its pid."""

    pid: int
    #: Its start time (``/proc/<pid>/stat`` field 22), fixed for the life of the process.
    started: str

    @classmethod
    def of(cls, pid: int) -> Process:
        """The process running now under ``pid``."""
        fields = _stat(pid)
        assert fields is not None, f"no process {pid} is running"
        return cls(pid, fields[19])

    def running(self) -> bool:
        """Whether it still runs: present, the same process, and not a zombie.

        An exited process whose parent died stays a zombie until init reaps it, which not
        every container's init does.
        """
        fields = _stat(self.pid)
        return fields is not None and fields[19] == self.started and fields[0] not in "ZX"

    def wait_gone(self, timeout: float = 20.0) -> bool:
        """Wait until it no longer runs; whether it stopped within ``timeout``."""
        deadline = time.monotonic() + timeout
        while self.running():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def kill(self) -> None:
        """SIGKILL it if it still runs (a failed test cleans up after itself)."""
        if self.running():
            with suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)


async def await_gone(process: Process, timeout: float = 20.0) -> bool:
    """`Process.wait_gone` for a coroutine: the event loop runs on (and may stop it) meanwhile."""
    deadline = time.monotonic() + timeout
    while process.running():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


#: The stateful test server: ``remember``, ``recall``, ``pid`` and ``crash``, state in memory.
STATEFUL = SERVERS / "stateful_server.py"


@pytest.fixture
def no_child_left_behind() -> Iterator[None]:
    """Fail the test if it leaves a child process (running or unreaped) behind."""
    before = set(children())
    yield
    left = wait_for_no_children(before)
    assert not left, f"child processes left behind: {left}"


#: How long an HTTP test server has to answer its first request.
HTTP_READY_TIMEOUT = 60.0


@contextmanager
def http_server(name: str = "web") -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The main test server over streamable HTTP on 127.0.0.1 (an ephemeral port).

    The URL is handed out once the server answers an HTTP request: it prints its port as soon
    as the socket is bound, before it serves, so the line alone proves nothing.
    """
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
        process = subprocess.Popen(
            [sys.executable, str(MAIN), "http", name],
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
            env=clean_environment(),
        )
        try:
            url = _serving(process, errlog)
            yield url, process
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
            if process.stdout is not None:
                process.stdout.close()


@contextmanager
def http_server_of(script: Path, *args: str) -> Iterator[str]:
    """A test server script serving streamable HTTP on 127.0.0.1 (``script http *args``).

    Like `http_server`, for another of the scripts in ``_mcp_servers/``; yields its URL once it
    answers an HTTP request.
    """
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
        process = subprocess.Popen(
            [sys.executable, str(script), "http", *args],
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
            env=clean_environment(),
        )
        try:
            yield _serving(process, errlog)
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
            if process.stdout is not None:
                process.stdout.close()


def _serving(process: subprocess.Popen[str], errlog: Any) -> str:
    """The server's URL once a request to it got an HTTP answer, within HTTP_READY_TIMEOUT."""
    deadline = time.monotonic() + HTTP_READY_TIMEOUT

    def failed(why: str) -> AssertionError:
        errlog.seek(0)
        return AssertionError(
            f"the HTTP test server {why} (exit code {process.poll()}); its stderr:\n"
            + errlog.read()[-8000:]
        )

    first: list[str] = []
    reader = threading.Thread(target=lambda: first.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(HTTP_READY_TIMEOUT)
    line = first[0] if first else ""
    if not line.startswith("PORT "):
        raise failed(f"did not print its port within {HTTP_READY_TIMEOUT:g} s: {line!r}")
    url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return url
        except urllib.error.HTTPError:  # any HTTP answer (a GET without a session is refused)
            return url
        except OSError as exc:  # nothing accepts on the port yet
            if process.poll() is not None:
                raise failed("exited before it served") from exc
            if time.monotonic() > deadline:
                raise failed(f"did not answer at {url} within {HTTP_READY_TIMEOUT:g} s") from exc
            time.sleep(0.05)


def time_server_executable() -> Path:
    """The published ``mcp-server-time``, which the ``test`` extra installs beside pytest.

    Tests reach no network but 127.0.0.1, so the server comes with the install step
    (``pip install -e ".[test]"``), not from the package index at test time.

    Returns:
        The ``mcp-server-time`` executable of the running interpreter's environment.
    """
    folder = Path(sys.executable).parent
    executable = folder / "mcp-server-time"
    assert executable.is_file(), (
        f"mcp-server-time is not installed beside {sys.executable}; it is part of the test "
        'extra: run python3 -m pip install -e ".[test]"'
    )
    return executable


class Generalist(ThinkerBase):
    """A thinker with no catalog of its own."""


class Listed(ThinkerBase):
    """A thinker class that MCP servers list by name."""


class Selecting(ThinkerBase):
    """A thinker whose selector names the MCP server ``picked``."""

    @classmethod
    def declare_compatible_tools(cls) -> MCPToolSelector:
        """Select the server ``picked``."""
        return MCPToolSelector().add_mcp_server("picked")


def palette(thinker: ThinkerBase) -> list[str]:
    """The names in a thinker's palette this turn."""
    return thinker.reconcile_tool_registry().names()
