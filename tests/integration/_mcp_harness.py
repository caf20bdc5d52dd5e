"""What the MCP integration tests share: test servers, the process table, thinkers.

The servers under ``_mcp_servers/`` are real MCP servers written with the SDK's own server API,
run as subprocesses. `children` reads the process table (``/proc``) for processes whose parent
is the test process, so a test can check that closing left none behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


@pytest.fixture
def no_child_left_behind() -> Iterator[None]:
    """Fail the test if it leaves a child process (running or unreaped) behind."""
    before = set(children())
    yield
    left = wait_for_no_children(before)
    assert not left, f"child processes left behind: {left}"


@contextmanager
def http_server(name: str = "web") -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The main test server over streamable HTTP on 127.0.0.1 (an ephemeral port)."""
    process = subprocess.Popen(
        [sys.executable, str(MAIN), "http", name],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=clean_environment(),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("PORT "), f"the HTTP test server did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp", process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        if process.stdout is not None:
            process.stdout.close()


def time_server_venv(folder: Path) -> Path:
    """Install the published ``mcp-server-time`` into a fresh virtual environment.

    Returns:
        The environment's ``mcp-server-time`` executable.
    """
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(folder)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    python = folder / "bin" / "python"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "mcp-server-time",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=clean_environment(),
        check=False,
    )
    assert done.returncode == 0, f"pip install mcp-server-time failed:\n{done.stderr}"
    return folder / "bin" / "mcp-server-time"


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
