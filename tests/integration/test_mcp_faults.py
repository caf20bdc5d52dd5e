"""Faults of MCP servers, one test each.

Every fault ends in a clear error or an error result within its time limit, the pool recovers
where it can, and no child process is left behind (each test reads the process table after
closing).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from _mcp_harness import (
    MAIN_TOOLS,
    await_file,
    children,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    stdio,
    wait_for_no_children,
)

from nucleo_core import InvalidToolInput, ToolHub, run_tool
from nucleo_core.mcp import (
    MCPServerConfig,
    MCPServers,
    MCPServerUnavailable,
    MCPToolProvider,
    MCPToolResult,
)

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

if sys.platform != "linux":  # pragma: no cover
    pytest.skip("the process-table checks read /proc", allow_module_level=True)


def call(provider: MCPToolProvider, **arguments: Any) -> MCPToolResult:
    """Run one call the way the thinker pipeline does: parse, create, run."""
    return asyncio.run(run_tool(provider.create(), provider.parse_input(arguments)))


def by_name(servers: MCPServers) -> dict[str, MCPToolProvider]:
    """The registered providers, by name."""
    return {provider.name: provider for provider in servers.providers()}


def wait_for(check: Any, timeout: float = 10.0) -> None:
    """Wait until ``check()`` holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.02)


def test_a_command_that_does_not_exist_is_reported_with_the_command() -> None:
    """A missing executable fails the start at once, naming the command; calls get errors."""
    config = MCPServerConfig(name="ghost", command="/nonexistent/mcp-ghost", args=("--serve",))
    with MCPServers([config]) as servers:
        began = time.monotonic()
        with pytest.raises(MCPServerUnavailable) as raised:
            servers.start("ghost")
        assert time.monotonic() - began < 5
        assert "'/nonexistent/mcp-ghost' was not found" in str(raised.value)
        assert raised.value.command == "/nonexistent/mcp-ghost --serve"
        result = servers.pool.call_sync("ghost", "anything", {})
        assert (result.is_error, result.outcome) == (True, "unavailable")
        assert servers.pool.status("ghost").state == "failed"


def test_a_server_that_exits_at_start_is_reported_with_its_stderr_tail() -> None:
    """A server that exits while starting is reported with the command and what it printed."""
    config = stdio("quitter", "exits_at_start.py")
    with MCPServers([config]) as servers:
        with pytest.raises(MCPServerUnavailable) as raised:
            servers.start("quitter")
        error = raised.value
        assert "exited or crashed" in error.reason
        assert error.command.endswith("exits_at_start.py")
        assert "fatal: DEMO_API_KEY is not set" in error.stderr_tail
        assert "fatal: DEMO_API_KEY is not set" in str(error)
        (problem,) = servers.problems
        assert problem.kind == "unavailable"


def test_a_server_that_never_answers_initialize_fails_within_its_startup_timeout() -> None:
    """A silent server is given up on at its startup timeout, not waited on forever."""
    config = stdio("mute", "never_initializes.py", startup_timeout=1.0)
    with MCPServers([config]) as servers:
        began = time.monotonic()
        with pytest.raises(MCPServerUnavailable) as raised:
            servers.start("mute")
        assert time.monotonic() - began < 1.0 + 4.5  # the deadline, then the SDK's shutdown
        assert "within 1 s" in raised.value.reason


def test_a_server_killed_mid_call_gives_an_error_result_and_is_restarted(tmp_path: Path) -> None:
    """SIGKILL during a call ends that call in an error result; the session restarts and serves."""
    with MCPServers([stdio("main", timeout=30)]) as servers:
        providers = {p.name: p for p in servers.start("main")}
        victim = int(call(providers["pid"]).text)
        started = tmp_path / "sleep-started"

        async def scenario() -> tuple[MCPToolResult, float]:
            pending = asyncio.ensure_future(
                providers["sleep"].call({"seconds": 60, "started": str(started)})
            )
            await await_file(started)  # the call is in the server's hands
            began = time.monotonic()
            os.kill(victim, signal.SIGKILL)
            return await pending, time.monotonic() - began

        result, waited = asyncio.run(scenario())
        assert (result.is_error, result.outcome) == (True, "connection_lost")
        assert waited < 5
        assert call(providers["echo"], text="back").text == "back"  # waits out the restart
        assert int(call(providers["pid"]).text) != victim
        assert servers.pool.status("main").restarts == 1
        assert victim not in children()


def test_a_call_that_hangs_past_its_timeout_gives_an_error_result_in_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A call past its timeout ends in an error result at the timeout; the server serves on."""
    caplog.set_level(logging.DEBUG, logger="nucleo.mcp")
    with MCPServers([stdio("main", timeout=1.0)]) as servers:
        providers = {p.name: p for p in servers.start("main")}
        began = time.monotonic()
        result = call(providers["sleep"], seconds=60)
        assert time.monotonic() - began < 1.0 + 1.0
        assert (result.is_error, result.outcome) == (True, "timeout")
        assert "did not answer within 1 s" in result.text
        assert call(providers["echo"], text="still here").text == "still here"
        # The probe that follows a timeout has answered: the server was not taken for hung.
        wait_for(lambda: "still answers after a call timed out" in caplog.text)
        status = servers.pool.status("main")
        assert (status.state, status.restarts) == ("ready", 0)


def test_a_server_that_hangs_altogether_is_restarted_after_a_timeout() -> None:
    """A frozen server lets a call time out, fails the probe, and is replaced by a fresh one."""
    with MCPServers([stdio("main", timeout=1.0)]) as servers:
        providers = {p.name: p for p in servers.start("main")}
        frozen = int(call(providers["pid"]).text)
        os.kill(frozen, signal.SIGSTOP)
        try:
            result = call(providers["echo"], text="anyone?")
            assert (result.is_error, result.outcome) == (True, "timeout")
            wait_for(lambda: servers.pool.status("main").restarts == 1)
            assert call(providers["echo"], text="fresh").text == "fresh"
        finally:
            if frozen in children():
                os.kill(frozen, signal.SIGCONT)


def test_restarts_are_bounded_and_the_server_is_then_given_up_on() -> None:
    """After max_restarts restarts in a row the server is failed, and calls say so at once."""
    with MCPServers([stdio("main", max_restarts=1)]) as servers:
        providers = {p.name: p for p in servers.start("main")}
        os.kill(int(call(providers["pid"]).text), signal.SIGKILL)
        wait_for(lambda: servers.pool.status("main").restarts == 1)
        # The call waits out the restart; the second crash in a row is one too many.
        os.kill(int(call(providers["pid"]).text), signal.SIGKILL)
        wait_for(lambda: servers.pool.status("main").state == "failed")
        status = servers.pool.status("main")
        assert status.restarts == 1
        assert status.error is not None
        assert "gave up after 1 restart(s)" in status.error
        result = call(providers["echo"], text="x")
        assert (result.is_error, result.outcome) == (True, "unavailable")


def test_a_malformed_input_schema_skips_that_tool_and_reports_it() -> None:
    """A tool whose input schema is invalid is skipped and reported; the server's others work."""
    with MCPServers([stdio("shaky", "invalid_schema.py")]) as servers:
        providers = {p.name: p for p in servers.start("shaky")}
        assert list(providers) == ["good"]
        (problem,) = servers.problems
        assert (problem.kind, problem.tool) == ("invalid_tool", "broken")
        assert "mcp:shaky:broken" in problem.message
        assert "not a valid JSON Schema" in problem.message
        assert call(providers["good"], n=3).text == "good got 3"


def test_an_is_error_result_is_an_error_result_the_model_can_correct() -> None:
    """The server's isError comes back as an error result carrying its message, not an exception."""
    with MCPServers([stdio("main")]) as servers:
        providers = {p.name: p for p in servers.start("main")}
        result = call(providers["fail"], reason="the disk is read-only")
        assert (result.is_error, result.outcome) == (True, "tool_error")
        assert "cannot do that: the disk is read-only" in result.text
        assert call(providers["echo"], text="fine").text == "fine"


def test_input_refused_before_the_call_names_the_field_and_never_echoes_the_value() -> None:
    """A call's input is validated against the published schema; the refusal hides the value."""
    with MCPServers([stdio("main")]) as servers:
        echo = {p.name: p for p in servers.start("main")}["echo"]
        with pytest.raises(InvalidToolInput) as raised:
            echo.parse_input({"text": ["SECRET-VALUE-4711"]})
        assert str(raised.value) == "Invalid input for tool 'echo': text: expected string"
        assert "SECRET" not in str(raised.value)
        with pytest.raises(InvalidToolInput, match="text: is required"):
            echo.parse_input("{}")
        with pytest.raises(InvalidToolInput, match="is not valid JSON"):
            echo.parse_input("{SECRET-VALUE")


def test_one_broken_server_never_takes_the_others_down() -> None:
    """With faulty servers beside it, a good server is bound and serves; each fault is reported."""
    hub = ToolHub()
    configs = [
        MCPServerConfig(name="ghost", command="/nonexistent/mcp-ghost"),
        stdio("quitter", "exits_at_start.py"),
        stdio("mute", "never_initializes.py", startup_timeout=1.0),
        stdio("main"),
    ]
    with MCPServers(configs).connect_to_hub(hub) as servers:
        assert [p.name for p in hub.system_wide_tools()] == MAIN_TOOLS
        assert call(by_name(servers)["echo"], text="alive").text == "alive"
        assert sorted(p.server for p in servers.problems) == ["ghost", "mute", "quitter"]
        assert all(p.kind == "unavailable" for p in servers.problems)


def test_closing_ends_every_server_process() -> None:
    """Closing stops every server process, a session still starting included."""
    configs = [stdio("one"), stdio("two", prefix="two"), stdio("mute", "never_initializes.py")]
    servers = MCPServers(configs)
    servers.pool.start_all(["one", "two"])

    async def close_while_one_is_starting() -> tuple[int, MCPToolResult]:
        pending = asyncio.ensure_future(servers.pool.call("mute", "anything", {}))
        deadline = time.monotonic() + 30
        while len(children()) < 3 and time.monotonic() < deadline:  # "mute" was spawned
            await asyncio.sleep(0.02)
        running = len(children())
        await asyncio.to_thread(servers.close)
        return running, await pending

    running, pending = asyncio.run(close_while_one_is_starting())
    assert running == 3
    assert servers.pool.closed
    assert (pending.is_error, pending.outcome) == (True, "unavailable")
    result = servers.pool.call_sync("one", "echo", {"text": "x"})
    assert (result.is_error, result.outcome) == (True, "unavailable")


def _alive(pid: int) -> bool:
    """Whether a process of that pid exists (a zombie counts)."""
    return Path(f"/proc/{pid}").exists()


def test_servers_left_open_are_stopped_when_the_interpreter_exits(tmp_path: Path) -> None:
    """A program that never closes its servers still leaves no server process at exit."""
    script = tmp_path / "forgets_to_close.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(Path(__file__).parent)!r})
            from _mcp_harness import stdio
            from nucleo_core.mcp import MCPServers
            servers = MCPServers([stdio("main")])
            servers.start("main")
            print(servers.pool.call_sync("main", "pid", {{}}).text, flush=True)
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    server = int(done.stdout.strip())
    deadline = time.monotonic() + 10
    while _alive(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(server)


def test_servers_garbage_collected_unclosed_are_stopped() -> None:
    """Dropping the last reference to unclosed servers stops their processes (a finalizer)."""
    servers = MCPServers([stdio("main")])
    servers.start("main")
    assert len(children()) == 1
    del servers
    gc.collect()
    assert wait_for_no_children(set()) == {}


def test_without_the_sdk_every_server_is_unavailable_with_the_fix(tmp_path: Path) -> None:
    """No mcp extra: each server is a reported problem and each call an error result."""
    script = tmp_path / "no_sdk.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import asyncio, sys
            sys.modules["mcp"] = None  # as if the mcp extra were not installed
            sys.path.insert(0, {str(Path(__file__).parent)!r})
            from _mcp_harness import stdio
            from nucleo_core import ToolHub
            from nucleo_core.mcp import MCPServers
            with MCPServers([stdio("main")]) as servers:
                servers.connect_to_hub(ToolHub())
                print(*[problem.message for problem in servers.problems], sep="\\n")
                print(servers.pool.call_sync("main", "echo", {{"text": "x"}}).outcome)
                print(asyncio.run(servers.pool.call("main", "echo", {{"text": "x"}})).text)
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    problem, outcome, text = done.stdout.splitlines()
    fix = "install it with: python3 -m pip install 'mcp>=2.3,<3'"
    assert problem.startswith("MCP server 'main' is unavailable: the MCP SDK is not installed")
    assert fix in problem
    assert outcome == "unavailable"
    assert fix in text
