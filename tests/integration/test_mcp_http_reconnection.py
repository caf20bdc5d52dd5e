"""An HTTP MCP server that goes away between calls is reconnected before the next call.

nucleo does not own an HTTP server's process, so it cannot restart it as it restarts a stdio
server; what it owes is the connection. These tests run the SDK-written test server
(``_mcp_servers/main_server.py``) over streamable HTTP on 127.0.0.1, kill it between two
calls and start a new one on the same port, under the 2026-07-28 protocol (stateless; the
tool-list subscription is the watch between calls) and the session-id one (the new server
answers the old session with 404). Killed, not stopped: a graceful stop would wait for the
client's held streams, and a crash is what must be survived.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from _installed_venv import clean_environment
from _mcp_harness import (
    MAIN,
    _serving,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
)

from nucleo_core.mcp import MCPClientPool, MCPServerConfig

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

#: How long the pool may take to notice a lost connection by itself (generous: a loaded box).
NOTICE_TIMEOUT = 60.0


def free_port() -> int:
    """A port nothing listens on now, for a server that must come back where it was."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server_on(port: int) -> Iterator[subprocess.Popen[str]]:
    """The main test server over streamable HTTP on ``port``, once it answers a request."""
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
        process = subprocess.Popen(
            [sys.executable, str(MAIN), "http", "web", str(port)],
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
            env=clean_environment(),
        )
        try:
            _serving(process, errlog)
            yield process
        finally:
            process.kill()
            process.wait(10)
            if process.stdout is not None:
                process.stdout.close()


def web(port: int, protocol: str, **settings: object) -> MCPServerConfig:
    """The configuration of the test server on ``port``."""
    return MCPServerConfig(
        name="web", url=f"http://127.0.0.1:{port}/mcp", protocol=protocol, **settings
    )


def pid(pool: MCPClientPool) -> str:
    """The serving process's pid, by a call that must succeed."""
    result = pool.call_sync("web", "pid", {})
    assert not result.is_error, result.text
    return result.text


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_server_killed_and_started_again_between_calls_serves_the_next_call(
    protocol: str,
) -> None:
    """The call after the server came back succeeds, on a new connection to the new process."""
    port = free_port()
    with MCPClientPool([web(port, protocol)]) as pool:
        with http_server_on(port):
            first = pid(pool)
        with http_server_on(port):  # the first one was killed on leaving its block
            second = pid(pool)
            status = pool.status("web")
    assert second != first
    assert status.state == "ready"
    assert status.restarts >= 1  # reconnected, not merely lucky with a stateless server


def test_a_lost_connection_is_noticed_between_calls() -> None:
    """Without any call being made, the pool notices the server is gone and reconnects."""
    port = free_port()
    with MCPClientPool([web(port, "auto", max_restarts=20)]) as pool:
        with http_server_on(port):
            first = pid(pool)
        deadline = time.monotonic() + NOTICE_TIMEOUT
        while pool.status("web").restarts == 0:
            assert time.monotonic() < deadline, pool.status("web")
            time.sleep(0.02)
        with http_server_on(port):
            deadline = time.monotonic() + NOTICE_TIMEOUT
            while pool.status("web").state != "ready":
                assert time.monotonic() < deadline, pool.status("web")
                time.sleep(0.02)
            second = pid(pool)
    assert second != first


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_call_while_the_server_is_down_fails_clearly_and_the_next_one_reconnects(
    protocol: str,
) -> None:
    """Given up on while down, the server is tried again at each call: an error, then success."""
    port = free_port()
    with MCPClientPool([web(port, protocol, max_restarts=0)]) as pool:
        with http_server_on(port):
            first = pid(pool)
        down = pool.call_sync("web", "pid", {})
        assert down.is_error
        assert down.outcome in ("unavailable", "connection_lost"), down
        assert "MCP server 'web'" in down.text
        with http_server_on(port):
            second = pid(pool)
    assert second != first
