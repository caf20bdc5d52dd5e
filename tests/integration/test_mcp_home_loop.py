"""The pool entered with ``async with``: sessions on the caller's event loop, its home loop.

A call made on the home loop reaches its session directly; calls from other threads and loops
still reach it; a blocking call that would stall the home loop is refused or placed on the
pool's own thread; and however the block is left (normally, by an error, by cancellation, by
Ctrl-C, or never), no server process is left behind. Each test reads the process table.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from _mcp_harness import (
    await_file,
    children,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    stdio,
)

from nucleo_core import ToolHub, run_tool
from nucleo_core.mcp import MCPClientPool, MCPServers, MCPToolProvider, MCPToolResult

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

if sys.platform != "linux":  # pragma: no cover
    pytest.skip("the process-table checks read /proc", allow_module_level=True)

HERE = Path(__file__).resolve().parent


async def call(provider: MCPToolProvider, **arguments: object) -> MCPToolResult:
    """One call the way the thinker pipeline makes it: parse, create, run."""
    return await run_tool(provider.create(), provider.parse_input(dict(arguments)))


def session_tasks() -> list[str]:
    """The names of the MCP session tasks on the running loop."""
    return sorted(
        task.get_name() for task in asyncio.all_tasks() if task.get_name().startswith("nucleo-mcp:")
    )


def alive(pid: int) -> bool:
    """Whether a process of that pid exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_sessions_started_in_the_block_live_on_its_loop_and_are_called_there() -> None:
    """``astart`` in the block starts the server on the running loop; calls reach it there."""

    async def scenario() -> None:
        async with MCPServers([stdio("main")]) as servers:
            providers = {p.name: p for p in await servers.astart("main")}
            assert servers.pool.status("main").host == "home loop"
            assert session_tasks() == ["nucleo-mcp:main"]
            results = await asyncio.gather(
                *(call(providers["echo"], text=f"hi {n}") for n in range(20))
            )
            assert [r.text for r in results] == [f"hi {n}" for n in range(20)]
            assert len(children()) == 1  # one session, shared by every concurrent call
        assert session_tasks() == []
        assert children() == {}  # closed before the block was left, on this loop

    asyncio.run(scenario())


def test_a_first_call_in_the_block_starts_the_server_on_its_loop() -> None:
    """A server first needed by a call made on the home loop starts on that loop."""

    async def scenario() -> None:
        async with MCPClientPool([stdio("main")]) as pool:
            result = await pool.call("main", "echo", {"text": "lazy"})
            assert (result.text, result.is_error) == ("lazy", False)
            assert pool.status("main").host == "home loop"

    asyncio.run(scenario())


def test_calls_from_other_threads_and_loops_reach_a_session_on_the_home_loop() -> None:
    """Other threads (blocking) and other loops (awaiting) share the home loop's session."""

    async def scenario() -> None:
        async with MCPServers([stdio("main")]) as servers:
            pool = servers.pool
            await servers.astart("main")
            here = (await pool.call("main", "pid", {})).text

            def from_a_thread() -> tuple[str, str]:
                blocking = pool.call_sync("main", "pid", {}).text
                other_loop = asyncio.run(pool.call("main", "pid", {})).text
                return blocking, other_loop

            answers = await asyncio.gather(*(asyncio.to_thread(from_a_thread) for _ in range(4)))
            assert {pid for pair in answers for pid in pair} == {here}
            assert len(children()) == 1

    asyncio.run(scenario())


def test_a_blocking_call_on_the_home_loops_thread_is_refused_not_deadlocked() -> None:
    """``call_sync`` and ``start`` there would stall the loop the session lives on: refused."""

    async def scenario() -> None:
        async with MCPServers([stdio("main")]) as servers:
            await servers.astart("main")
            with pytest.raises(RuntimeError, match="await it instead"):
                servers.pool.call_sync("main", "echo", {"text": "x"})
            # A server that is running answers a blocking start at once, from its listing.
            assert len(servers.pool.start("main")) > 0
            assert (await servers.pool.call("main", "echo", {"text": "ok"})).text == "ok"

    asyncio.run(scenario())


def test_a_blocking_start_on_the_home_loops_thread_places_the_session_on_the_pool_thread() -> None:
    """Synchronous code on the home loop (a catalog resolved lazily) cannot wait for it."""

    async def scenario() -> None:
        async with MCPServers([stdio("main")]) as servers:
            providers = {p.name: p for p in servers.start("main")}
            assert servers.pool.status("main").host == "pool thread"
            assert session_tasks() == []
            assert (await call(providers["echo"], text="across")).text == "across"

    asyncio.run(scenario())


def test_aconnect_to_hub_starts_the_servers_on_the_home_loop() -> None:
    """``await aconnect_to_hub`` starts the system-wide servers on the loop, unblocked."""

    async def scenario() -> None:
        hub = ToolHub()
        async with MCPServers([stdio("main")]) as servers:
            await servers.aconnect_to_hub(hub)
            assert servers.pool.status("main").host == "home loop"
            names = {provider.name for provider in servers.providers()}
            assert {"echo", "pid"} <= names
            echo = next(p for p in servers.providers() if p.name == "echo")
            assert (await call(echo, text="hub")).text == "hub"
            hub.close()  # synchronous close on the home loop: the block's exit awaits it
        assert children() == {}

    asyncio.run(scenario())


def test_a_server_killed_mid_call_on_the_home_loop_is_restarted_there(tmp_path: Path) -> None:
    """The fault handling is the session's own: an error result, then a fresh server."""
    started = tmp_path / "sleep-started"

    async def scenario() -> None:
        async with MCPServers([stdio("main", timeout=30)]) as servers:
            providers = {p.name: p for p in await servers.astart("main")}
            victim = int((await call(providers["pid"])).text)
            pending = asyncio.ensure_future(
                call(providers["sleep"], seconds=60, started=str(started))
            )
            await await_file(started)  # the call is in the server's hands
            os.kill(victim, signal.SIGKILL)
            result = await asyncio.wait_for(pending, 5)
            assert (result.is_error, result.outcome) == (True, "connection_lost")
            assert (await call(providers["echo"], text="back")).text == "back"
            assert int((await call(providers["pid"])).text) != victim
            assert servers.pool.status("main").host == "home loop"
            assert victim not in children()

    asyncio.run(scenario())


def test_a_call_past_its_timeout_on_the_home_loop_gives_an_error_result_in_time() -> None:
    async def scenario() -> None:
        async with MCPServers([stdio("main", timeout=1.0)]) as servers:
            providers = {p.name: p for p in await servers.astart("main")}
            began = time.monotonic()
            result = await call(providers["sleep"], seconds=60)
            assert time.monotonic() - began < 2.0
            assert (result.is_error, result.outcome) == (True, "timeout")
            assert (await call(providers["echo"], text="still")).text == "still"

    asyncio.run(scenario())


def test_a_call_cancelled_by_its_caller_leaves_the_session_serving(tmp_path: Path) -> None:
    """A call its caller cancels mid-way (a thinker's own deadline) leaves the session unharmed."""
    started = tmp_path / "sleep-started"

    async def scenario() -> None:
        async with MCPServers([stdio("main", timeout=30)]) as servers:
            providers = {p.name: p for p in await servers.astart("main")}
            pending = asyncio.ensure_future(
                call(providers["sleep"], seconds=60, started=str(started))
            )
            await await_file(started)  # cancelled while the server is working on it
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
            assert (await call(providers["echo"], text="after")).text == "after"
            status = servers.pool.status("main")
            assert (status.state, status.restarts) == ("ready", 0)

    asyncio.run(scenario())


def test_leaving_the_block_by_an_error_or_a_cancellation_stops_the_servers() -> None:
    async def fails() -> None:
        async with MCPServers([stdio("main")]) as servers:
            await servers.astart("main")
            assert len(children()) == 1
            raise LookupError("the body failed")

    with pytest.raises(LookupError):
        asyncio.run(fails())
    assert children() == {}

    started = threading.Event()

    async def cancelled() -> None:
        async def body() -> None:
            async with MCPServers([stdio("main")]) as servers:
                await servers.astart("main")
                started.set()
                await asyncio.sleep(60)

        task = asyncio.ensure_future(body())
        while not started.is_set():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert children() == {}

    asyncio.run(cancelled())


def test_entering_twice_or_after_closing_is_refused() -> None:
    async def scenario() -> None:
        pool = MCPClientPool([stdio("main")])
        async with pool:
            with pytest.raises(RuntimeError, match="enter it once"):
                await pool.__aenter__()
        with pytest.raises(RuntimeError, match="closed"):
            await pool.__aenter__()

    asyncio.run(scenario())


def _script(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "program.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import asyncio, faulthandler, signal, sys, time
            faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test's hang report
            # Ctrl-C as in a terminal, whatever the runner's shell left: a command started in
            # the background of a shell without job control inherits SIGINT ignored.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sys.path.insert(0, {str(HERE)!r})
            from _mcp_harness import stdio
            from nucleo_core.mcp import MCPServers

            def gone(pid):  # checked once asyncio.run returned, the interpreter still up
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    try:
                        with open(f"/proc/{{pid}}/status") as status:
                            if "\\nState:\\tZ" in status.read():
                                return "gone"
                    except OSError:
                        return "gone"
                    time.sleep(0.05)
                return "alive"
            """
        )
        + textwrap.dedent(body),
        encoding="utf-8",
    )
    return script


def test_ctrl_c_in_the_block_stops_the_servers(tmp_path: Path) -> None:
    """SIGINT while the program awaits in the block: asyncio.run unwinds it, servers stop."""
    script = _script(
        tmp_path,
        """
        server = []

        async def main():
            async with MCPServers([stdio("main")]) as servers:
                await servers.astart("main")
                server.append(int((await servers.pool.call("main", "pid", {})).text))
                print(server[0], flush=True)
                await asyncio.sleep(60)

        try:
            asyncio.run(main())
        except KeyboardInterrupt:
            print("interrupted", gone(server[0]), flush=True)
        """,
    )
    with subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as program:
        assert program.stdout is not None
        server = int(program.stdout.readline())
        assert alive(server)
        program.send_signal(signal.SIGINT)
        try:
            # A safety net, not a speed claim: the teardown's own waits are bounded (seconds).
            out, err = program.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            program.send_signal(signal.SIGUSR1)  # every thread's stack, to stderr
            try:
                _, stacks = program.communicate(timeout=10)
            finally:
                program.kill()
            pytest.fail(f"the program did not end after SIGINT; its threads:\n{stacks}")
    assert "interrupted gone" in out, f"exit code {program.returncode}; stderr:\n{err}"
    assert wait_gone(server)


def test_a_block_never_left_still_stops_the_servers_when_the_loop_ends(tmp_path: Path) -> None:
    """Entered by hand and never exited: asyncio.run's teardown still ends the sessions."""
    script = _script(
        tmp_path,
        """
        server = []

        async def main():
            servers = MCPServers([stdio("main")])
            await servers.__aenter__()
            await servers.astart("main")
            server.append(int((await servers.pool.call("main", "pid", {})).text))

        asyncio.run(main())
        print(server[0], gone(server[0]), flush=True)
        """,
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    pid, state = done.stdout.split()
    assert state == "gone", done.stderr
    assert wait_gone(int(pid))


def test_closing_from_another_thread_waits_for_the_sessions_on_the_home_loop() -> None:
    async def scenario() -> None:
        async with MCPServers([stdio("main")]) as servers:
            await servers.astart("main")
            assert len(children()) == 1
            await asyncio.to_thread(servers.close)  # blocks that thread, not the home loop
            assert children() == {}
            assert servers.pool.closed
            result = await servers.pool.call("main", "echo", {"text": "late"})
            assert (result.is_error, result.outcome) == (True, "unavailable")

    asyncio.run(scenario())
