"""A server that floods its stderr is reported with a bounded tail that still ends in its last line.

The server (``_mcp_servers/floods_stderr.py``) writes about 50 MB to its stderr: fifty times a
line of 1 MiB and one of 600 bytes, then its last line. What nucleo reports of it (the error,
the session's status, the logged warning) keeps to at most 40 lines and 8 KiB, an over-long
line cut and marked.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import pytest
from _mcp_harness import (
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    stdio,
)

from nucleo_core.mcp import MCPClientPool, MCPServerUnavailable

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

#: The server's last line, as floods_stderr.py writes it.
LAST = "fatal: the last line the server wrote"

#: The documented bounds of a stderr tail.
LINES, BYTES = 40, 8192
#: Room for what an error says besides the tail (its server, reason and command).
HEADER = 1024


def eventually(check: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait until ``check()`` holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.02)


def assert_bounded(tail: str) -> None:
    """``tail`` keeps to the bounds and ends in the server's last line."""
    assert len(tail.splitlines()) <= LINES
    assert len(tail.encode()) <= BYTES
    assert tail.splitlines()[-1] == LAST
    assert "medium line 49" in tail  # the lines before the last are kept too
    assert "[…]" in tail  # the 1 MiB line before them, cut


def test_a_server_that_floods_stderr_and_fails_at_start_reports_a_bounded_tail(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The start failure's error, its status and the warning hold a bounded tail with the end."""
    caplog.set_level(logging.WARNING, logger="nucleo.mcp")
    with MCPClientPool([stdio("flood", "floods_stderr.py", "start")]) as pool:
        with pytest.raises(MCPServerUnavailable) as raised:
            pool.start("flood")
        error = raised.value
        assert_bounded(error.stderr_tail)
        assert len(str(error).encode()) <= BYTES + HEADER
        status = pool.status("flood")
        assert_bounded(status.stderr_tail)
        assert status.error is not None
        assert len(status.error.encode()) <= BYTES + HEADER
    (warning,) = [r for r in caplog.records if "is unavailable" in r.getMessage()]
    assert len(warning.getMessage().encode()) <= BYTES + HEADER
    assert warning.getMessage().endswith(LAST)


def test_a_server_that_floods_stderr_and_dies_is_given_up_on_with_a_bounded_tail(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A server that dies after the flood: the give-up error in the status and log is bounded."""
    caplog.set_level(logging.WARNING, logger="nucleo.mcp")
    with MCPClientPool([stdio("flood", "floods_stderr.py", "serve", max_restarts=0)]) as pool:
        pool.start("flood")
        result = pool.call_sync("flood", "flood_and_exit", {})
        assert (result.is_error, result.outcome) == (True, "connection_lost")
        eventually(lambda: pool.status("flood").state == "failed")
        status = pool.status("flood")
        assert_bounded(status.stderr_tail)
        assert status.error is not None
        assert "gave up after 0 restart(s)" in status.error
        assert len(status.error.encode()) <= BYTES + HEADER
        assert status.error.endswith(LAST)
    (given_up,) = [r for r in caplog.records if "gave up" in r.getMessage()]
    assert given_up.levelno == logging.ERROR
    assert len(given_up.getMessage().encode()) <= BYTES + HEADER
