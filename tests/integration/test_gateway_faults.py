"""The gateway when things break: an upstream server killed mid-call, a client that leaves.

Real processes throughout: the gateway is ``nucleo mcp serve`` launched by the SDK client, the
upstream is the SDK-written test server; processes are found in ``/proc``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from _gateway import descendants, stdio_parameters, text_of, write_project
from _mcp_harness import Process, await_file, children
from mcp import Client

#: Seconds the killed call may take to come back as an error (the server's timeout is 20 s).
WITHIN = 40.0


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project of this test's own (its processes are this test's)."""
    return write_project(tmp_path / "project")


def connect(project: Path) -> Client:
    """The SDK client, launching the gateway for the ``solo`` profile over stdio."""
    return Client(
        stdio_parameters("solo", project),
        mode="legacy",
        client_info=types.Implementation(name=f"faults-{uuid.uuid4().hex[:6]}", version="1"),
    )


def test_an_upstream_killed_mid_call_gives_an_error_and_the_next_call_works(
    project: Path, tmp_path: Path
) -> None:
    """An upstream killed mid-call gives an error result in time; its restart serves the next."""
    started = tmp_path / "started"

    async def body() -> tuple[Any, float, int, int]:
        async with connect(project) as client:
            first = int(text_of(await client.call_tool("pid", {})))
            call = asyncio.create_task(
                client.call_tool("sleep", {"seconds": 600, "started": str(started)})
            )
            await await_file(started)
            os.kill(first, signal.SIGKILL)
            killed_at = time.monotonic()
            result = await asyncio.wait_for(call, WITHIN)
            took = time.monotonic() - killed_at
            second = int(text_of(await client.call_tool("pid", {})))
            return result, took, first, second

    result, took, first, second = asyncio.run(body())
    assert result.is_error is True
    assert took < WITHIN
    assert second != first


def test_a_client_leaving_mid_call_leaves_no_process_behind(project: Path, tmp_path: Path) -> None:
    """A client leaving mid-call leaves neither the gateway nor an upstream server running."""
    started = tmp_path / "started"
    before = set(children())
    seen: dict[str, Any] = {}

    async def body() -> None:
        try:
            async with connect(project) as client:
                await client.call_tool("pid", {})
                (seen["gateway"],) = set(children()) - before
                seen["below"] = descendants(seen["gateway"])
                seen["call"] = asyncio.create_task(
                    client.call_tool("sleep", {"seconds": 600, "started": str(started)})
                )
                await await_file(started)
                raise _Leave  # the client goes, the call still running upstream
        except BaseException as exc:
            if not _left(exc):
                raise
        finally:
            call = seen.get("call")
            if call is not None and not call.done():
                call.cancel()
            if call is not None:
                with contextlib.suppress(BaseException):
                    await call

    asyncio.run(body())
    gateway, below = seen["gateway"], seen["below"]
    assert below, "the gateway started no upstream server"
    for pid in (gateway, *below):
        try:
            process = Process.of(pid)
        except AssertionError:
            continue  # gone already
        assert process.wait_gone(30.0), f"process {pid} outlived its client"


class _Leave(Exception):
    """Raised to leave the client's context mid-call."""


def _left(exc: BaseException) -> bool:
    """Whether ``exc`` is (or groups only) the test's own leaving."""
    if isinstance(exc, _Leave):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_left(inner) for inner in exc.exceptions)
    return False
