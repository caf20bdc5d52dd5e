"""What an MCP stdio server starts goes with it: closing, a crash and a restart stop its group.

The server under test (``_mcp_servers/spawns_a_child.py``) starts a long-lived helper process
at start, as real servers do; the helper is not a child of the test process, so each test
follows it in the process table (``/proc``, by pid and start time) and checks that it stopped.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator

import pytest
from _mcp_harness import (
    Process,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    stdio,
)

from nucleo_core.mcp import MCPClientPool

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

if sys.platform != "linux":  # pragma: no cover
    pytest.skip("the process-table checks read /proc", allow_module_level=True)

#: Generous: closing waits out a server's grace periods (stdin, then SIGTERM), on a busy machine.
GONE_WITHIN = 20.0


def eventually(check: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait until ``check()`` holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.02)


@pytest.fixture
def followed() -> Iterator[list[Process]]:
    """The processes a test follows; what still runs at the end is killed (a failed test too)."""
    processes: list[Process] = []
    yield processes
    for process in processes:
        process.kill()


def pids(pool: MCPClientPool, followed: list[Process]) -> tuple[Process, Process]:
    """The server and its helper, as the server reports them, both followed."""
    result = pool.call_sync("spawner", "pids", {})
    assert not result.is_error, result.text
    reported = json.loads(result.text)
    server, helper = Process.of(reported["server"]), Process.of(reported["helper"])
    followed += [server, helper]
    return server, helper


def test_closing_the_pool_stops_the_processes_a_server_started(followed: list[Process]) -> None:
    """Closing stops the server's whole process group, not just the server: its helper too."""
    pool = MCPClientPool([stdio("spawner", "spawns_a_child.py")])
    try:
        pool.start("spawner")
        server, helper = pids(pool, followed)
        assert os.getsid(server.pid) == server.pid  # a session (and process group) of its own
        assert os.getpgid(helper.pid) == server.pid
        assert helper.running()
    finally:
        pool.close()
    assert server.wait_gone(GONE_WITHIN)
    assert helper.wait_gone(GONE_WITHIN), f"the server's helper {helper.pid} outlived close"


def test_a_crashed_server_takes_the_processes_it_started_with_it(followed: list[Process]) -> None:
    """SIGKILL to the server alone stops its helper too, and the session sees the crash.

    The helper holds the server's stdout open, so the end of the pipe does not say it.
    """
    with MCPClientPool([stdio("spawner", "spawns_a_child.py", max_restarts=0)]) as pool:
        pool.start("spawner")
        server, helper = pids(pool, followed)
        os.kill(server.pid, signal.SIGKILL)
        assert helper.wait_gone(GONE_WITHIN), f"the helper {helper.pid} outlived the crash"
        eventually(lambda: pool.status("spawner").state == "failed")
        assert "its process was killed by SIGKILL" in (pool.status("spawner").error or "")


def test_a_restart_stops_the_processes_the_old_server_started(followed: list[Process]) -> None:
    """A restart while the server still runs stops the old group; the new one serves, then closes.

    The old server exits by itself once its stdin closes; its helper would not.
    """
    with MCPClientPool([stdio("spawner", "spawns_a_child.py")]) as pool:
        pool.start("spawner")
        old_server, old_helper = pids(pool, followed)
        assert pool.call_sync("spawner", "break_listing", {}).text == "broken"
        eventually(lambda: pool.status("spawner").restarts == 1)
        assert old_server.wait_gone(GONE_WITHIN)
        assert old_helper.wait_gone(GONE_WITHIN), "the old server's helper outlived the restart"
        new_server, new_helper = pids(pool, followed)  # waits out the restart
        assert new_server != old_server
        assert new_helper.running()
    assert new_helper.wait_gone(GONE_WITHIN)
