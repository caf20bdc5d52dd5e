"""A server configured ``sessions = "conversation"``: each conversation a session of its own.

The stateful test server (``_mcp_servers/stateful_server.py``, a real process written with the
SDK's server API) keeps what it is told to remember in its process's memory, as a browser or a
scratch database would. Thinkers on a scripted model call it; the process table says which
server processes run, and each test waits (bounded) for a process it expects gone, never a
fixed time. Every test checks that no child process is left behind.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _installed_venv import clean_environment
from _mcp_harness import (
    STATEFUL,
    Process,
    await_gone,
    children,
    http_server_of,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
)

from nucleo_core import ChatThinker, ModelCatalog, ThinkerDeclaration, ToolHub, run_tool
from nucleo_core.conversations import ConversationService
from nucleo_core.mcp import (
    MCPClientPool,
    MCPServerConfig,
    MCPServers,
    MCPToolProvider,
    MCPToolResult,
    SessionMode,
)
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel, text_response, tool_use_response
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SUB_THINKER

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

if sys.platform != "linux":  # pragma: no cover
    pytest.skip("the process-table checks read /proc", allow_module_level=True)

DECLARATION = ThinkerDeclaration("standard", "short")
CATALOG = ModelCatalog(grades={"standard": "anthropic:grade-model"})


def stateful(sessions: SessionMode, **settings: Any) -> MCPServerConfig:
    """The stateful test server under the id ``st``, its tools declared low risk."""
    settings.setdefault("startup_timeout", 20.0)
    settings.setdefault("timeout", 10.0)
    return MCPServerConfig(
        name="st",
        command=sys.executable,
        args=(str(STATEFUL), "stdio"),
        sessions=sessions,
        risk="low",
        **settings,
    )


class Worker(SingleObjectiveThinker[str, str]):
    """A thinker that sees the server's tools as system-wide tools."""


def results(request: ModelRequest) -> list[str]:
    """The text of every tool result the request carries, in order."""
    return [
        block.content
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def remember_then_recall(value: str, seen: list[Process]) -> Callable[[ModelRequest], Any]:
    """A model that remembers ``value``, asks the server's pid, recalls, and answers the recall.

    The server process that answered ``pid`` is recorded in ``seen`` while it runs.
    """

    def script(request: ModelRequest) -> ModelResponse:
        done = results(request)
        if not done:  # two tools of the server in one turn: one session of the conversation
            return tool_use_response(("remember", {"value": value}), ("pid", {}))
        if len(done) == 2:
            seen.append(Process.of(int(done[1])))
            return tool_use_response(("recall", {}))
        return text_response(done[-1])

    return script


def worker(hub: ToolHub, script: Callable[[ModelRequest], Any]) -> Worker:
    """A `Worker` on ``hub`` answered by ``script``, its runs kept in memory."""
    return Worker(
        DECLARATION,
        hub=hub,
        catalog=CATALOG,
        conversations=ConversationService(":memory:"),
        client=ScriptedModel(script),
    )


async def call(provider: MCPToolProvider, **arguments: object) -> MCPToolResult:
    """One call outside any conversation, the way the thinker pipeline makes it."""
    return await run_tool(provider.create(), provider.parse_input(dict(arguments)))


# -- a thinker run is its conversation ------------------------------------------------------------


def test_each_run_has_a_session_of_its_own_which_ends_with_the_run() -> None:
    """A second run does not see the first's state, and the first's process is gone at its end."""

    async def scenario() -> None:
        hub = ToolHub()
        async with MCPServers([stateful("conversation")]) as servers:
            await servers.aconnect_to_hub(hub)  # the shared session lists the tools
            shared = Process.of(int((await servers.pool.call("st", "pid", {})).text))
            first: list[Process] = []
            said = await worker(hub, remember_then_recall("alpha", first)).run(
                "Work.", conversation_id="run-1"
            )
            assert said == "alpha"
            # The run ended on this loop's thread: its session closes on the loop, unblocked.
            assert await await_gone(first[0]), "the first run's server process is still running"
            second: list[Process] = []
            said = await worker(hub, remember_then_recall("beta", second)).run(
                "Work.", conversation_id="run-2"
            )
            assert said == "beta"  # not "alpha,beta": the first run's state did not leak
            assert len({shared.pid, first[0].pid, second[0].pid}) == 3
            assert await await_gone(second[0])
            assert shared.running()  # the shared session lives on, for the catalog
            assert servers.pool.conversations("st") == ()
            recalled = await call({p.name: p for p in servers.providers()}["recall"])
            assert recalled.text == ""  # outside any conversation: the shared session's state

    asyncio.run(scenario())


def test_with_shared_sessions_the_second_run_sees_the_first_runs_state() -> None:
    """The default, sessions = "shared": one process serves both runs, and keeps their state."""
    hub = ToolHub()
    with MCPServers([stateful("shared")]).connect_to_hub(hub) as servers:
        first: list[Process] = []
        second: list[Process] = []
        assert asyncio.run(worker(hub, remember_then_recall("alpha", first)).run("Work.")) == (
            "alpha"
        )
        said = asyncio.run(worker(hub, remember_then_recall("beta", second)).run("Work."))
        assert said == "alpha,beta"
        assert first == second
        assert first[0].running()  # a run's end does not stop a shared session
        assert servers.pool.conversations() == ()


def test_runs_off_the_home_loop_get_their_own_sessions_on_the_pools_thread() -> None:
    """Without async with, conversation sessions live on the pool's thread and still end."""
    hub = ToolHub()
    with MCPServers([stateful("conversation")]).connect_to_hub(hub) as servers:
        first: list[Process] = []
        assert asyncio.run(worker(hub, remember_then_recall("a", first)).run("Go.")) == "a"
        assert first[0].wait_gone(), "the run's server process is still running"
        second: list[Process] = []
        assert asyncio.run(worker(hub, remember_then_recall("b", second)).run("Go.")) == "b"
        assert second[0].wait_gone()
        assert servers.pool.status("st").host == "pool thread"


# -- a chat keeps its session from turn to turn -----------------------------------------------


class Keeper(ChatThinker):
    """A durable chat that sees the server's tools."""


def test_a_chat_keeps_its_session_across_turns_and_closes_it_at_its_end(tmp_path: Path) -> None:
    """Turn after turn the chat's state grows in one process; end_conversation stops it."""
    pids: list[str] = []

    def script(request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if last.role == "user" and last.text:  # a new turn: remember what the user said
            return tool_use_response(("remember", {"value": last.text}), ("pid", {}))
        done = results(request)
        if done[-1].isdigit():
            pids.append(done[-1])
            return tool_use_response(("recall", {}))
        return text_response(done[-1])

    async def scenario() -> None:
        hub = ToolHub()
        async with MCPServers([stateful("conversation")]) as servers:
            await servers.aconnect_to_hub(hub)
            chat = Keeper(
                DECLARATION,
                hub=hub,
                catalog=CATALOG,
                conversations=ConversationService(tmp_path / "chats.sqlite3"),
                client=ScriptedModel(script),
            )
            assert await chat.send("milk", conversation_id="groceries") == "milk"
            assert servers.pool.conversations("st") == ("groceries",)  # a turn's end is not its
            assert await chat.send("eggs", conversation_id="groceries") == "milk,eggs"
            assert len(set(pids)) == 1  # the same process, turn after turn
            process = Process.of(int(pids[0]))
            assert servers.pool.status("st").conversations == 1
            chat.end_conversation("groceries")  # on the home loop's thread: never blocks it
            assert await await_gone(process), "the chat's server process is still running"
            assert servers.pool.conversations("st") == ()
            # A later turn on the same conversation starts afresh, in a new session.
            assert await chat.send("bread", conversation_id="groceries") == "bread"
            assert Process.of(int(pids[-1])) != process
            chat.close()  # ends the conversation again, and with it the new session
            assert await await_gone(Process.of(int(pids[-1])))

    asyncio.run(scenario())


# -- a sub-thinker works in its parent's session ----------------------------------------------


def test_a_sub_thinkers_call_of_an_inherited_tool_uses_its_parents_session() -> None:
    """A delegate recalls what its parent remembered, in its process, which ends with the parent."""
    seen: dict[str, Any] = {}

    def script(request: ModelRequest) -> ModelResponse:
        done = results(request)
        if request.system.startswith("You are a sub-thinker"):
            if not done:
                return tool_use_response(("recall", {}), ("pid", {}))
            seen["sub"] = (done[0], done[1], servers.pool.conversations("st"))
            return text_response('{"answer": "' + done[0] + '"}')
        if not done:
            return tool_use_response(("remember", {"value": "parent"}), ("pid", {}))
        if len(done) == 2:
            seen["parent_pid"] = done[1]
            seen["process"] = Process.of(int(done[1]))
            return tool_use_response((SUB_THINKER, {"objective": "Recall what was remembered."}))
        return text_response("delegated")

    servers = MCPServers([stateful("conversation")])
    with servers:
        providers = servers.start("st")  # not bound to a hub: the parent's own default tools

        class Lead(SingleObjectiveThinker[str, str]):
            @classmethod
            def declare_default_providers(cls) -> tuple[MCPToolProvider, ...]:
                return providers

        lead = Lead(
            DECLARATION,
            hub=ToolHub(),
            catalog=CATALOG,
            conversations=ConversationService(":memory:"),
            client=ScriptedModel(script),
        )
        assert asyncio.run(lead.run("Lead.", conversation_id="lead")) == "delegated"
        recalled, sub_pid, open_then = seen["sub"]
        assert recalled == "parent"  # the parent's state, seen by its delegate
        assert sub_pid == seen["parent_pid"]
        assert open_then == ("lead",)  # the delegate opened no session of its own
        assert seen["process"].wait_gone(), "the parent's session outlived its run"


def test_a_sub_thinkers_own_tool_gets_a_session_that_ends_with_the_sub_thinker() -> None:
    """A system-wide tool a delegate calls gets a session of its own, closed at its end."""
    seen: dict[str, Any] = {}

    def script(request: ModelRequest) -> ModelResponse:
        done = results(request)
        if request.system.startswith("You are a sub-thinker"):
            if not done:
                return tool_use_response(("w_pid", {}))
            seen["sub"] = Process.of(int(done[0]))
            seen["open"] = bound.pool.conversations("st")
            return text_response('{"answer": "done"}')
        if not done:
            return tool_use_response((SUB_THINKER, {"objective": "Ask the pid."}))
        seen["after"] = bound.pool.conversations("st")  # the delegate has ended, its lead not
        return text_response("delegated")

    hub = ToolHub()
    bound = MCPServers([stateful("conversation", prefix="w")])  # its tools named w_<tool>
    with bound.connect_to_hub(hub):
        lead = Worker(
            DECLARATION,
            hub=hub,
            catalog=CATALOG,
            conversations=ConversationService(":memory:"),
            client=ScriptedModel(script),
        )
        assert asyncio.run(lead.run("Lead.", conversation_id="lead")) == "delegated"
        (sub_conversation,) = seen["open"]
        assert sub_conversation != "lead"  # the delegate's own conversation
        assert seen["after"] == ()  # closed at the delegate's end, while its lead still ran
        assert seen["sub"].wait_gone(), "the delegate's session outlived it"


# -- the pool's own surface -------------------------------------------------------------------


def test_closing_the_pool_stops_every_conversation_session() -> None:
    """Close stops each open conversation's server process, and one whose end is under way."""
    with MCPClientPool([stateful("conversation")]) as pool:
        processes = {
            name: Process.of(int(pool.call_sync("st", "pid", {}, conversation=name).text))
            for name in ("a", "b", "c")
        }
        assert len(set(processes.values())) == 3
        assert len(children()) == 3  # one process per conversation; the shared one never started
        pool.end_conversation("c")  # scheduled, not waited for: close must still finish it
    assert not any(process.running() for process in processes.values())
    assert pool.conversations() == ()


def test_leaving_the_async_block_finishes_a_closing_scheduled_on_its_loop() -> None:
    """An end scheduled on the home loop's own thread is awaited by the block's exit."""

    async def scenario() -> Process:
        async with MCPClientPool([stateful("conversation")]) as pool:
            result = await pool.call("st", "pid", {}, conversation="x")
            process = Process.of(int(result.text))
            pool.end_conversation("x")  # on the loop's own thread: a task of the loop
        return process

    assert not asyncio.run(scenario()).running()


def test_a_call_after_the_end_opens_a_fresh_session_and_a_racing_one_gets_a_result() -> None:
    """Calls racing an end each return a result (never raise); the next call starts afresh."""

    async def scenario() -> None:
        async with MCPClientPool([stateful("conversation")]) as pool:
            await pool.call("st", "remember", {"value": "old"}, conversation="c")
            old = Process.of(int((await pool.call("st", "pid", {}, conversation="c")).text))
            racing = [
                asyncio.ensure_future(pool.call("st", "recall", {}, conversation="c"))
                for _ in range(5)
            ]
            pool.end_conversation("c")
            racing += [
                asyncio.ensure_future(pool.call("st", "recall", {}, conversation="c"))
                for _ in range(5)
            ]
            for outcome in await asyncio.gather(*racing):
                assert isinstance(outcome, MCPToolResult)
                assert outcome.text in ("old", "") or outcome.is_error
            fresh = await pool.call("st", "recall", {}, conversation="c")
            assert (fresh.text, fresh.is_error) == ("", False)  # the old state is gone
            assert await await_gone(old)
            assert pool.conversations() == ("c",)

    asyncio.run(scenario())


def test_a_crashed_conversation_session_is_restarted_on_its_own() -> None:
    """A conversation's server that crashes is restarted within max_restarts, not the others."""

    async def scenario() -> None:
        async with MCPClientPool([stateful("conversation", max_restarts=1)]) as pool:
            shared = (await pool.call("st", "pid", {})).text
            other = (await pool.call("st", "pid", {}, conversation="calm")).text
            before = (await pool.call("st", "pid", {}, conversation="crashy")).text
            crashed = await pool.call("st", "crash", {}, conversation="crashy")
            assert (crashed.is_error, crashed.outcome) == (True, "connection_lost")
            after = await pool.call("st", "pid", {}, conversation="crashy")
            assert not after.is_error
            assert after.text != before  # restarted: a new process for the same conversation
            assert pool.status("st", "crashy").restarts == 1
            assert pool.status("st", "calm").restarts == 0
            assert pool.status("st").restarts == 0
            assert (await pool.call("st", "pid", {}, conversation="calm")).text == other
            assert (await pool.call("st", "pid", {})).text == shared
            await pool.call("st", "crash", {}, conversation="crashy")  # past max_restarts
            given_up = await pool.call("st", "pid", {}, conversation="crashy")
            assert (given_up.is_error, given_up.outcome) == (True, "unavailable")
            assert (await pool.call("st", "pid", {}, conversation="calm")).text == other
            pool.end_conversation("crashy")  # its end drops the failed session: a fresh one
            revived = await pool.call("st", "pid", {}, conversation="crashy")
            assert not revived.is_error

    asyncio.run(scenario())


def test_calls_outside_any_conversation_use_the_shared_session() -> None:
    """A tool run without a thinker (no conversation) reaches the shared session's state."""

    async def scenario() -> None:
        async with MCPServers([stateful("conversation")]) as servers:
            tools = {p.name: p for p in await servers.astart("st")}
            await call(tools["remember"], value="loose")
            assert (await call(tools["recall"])).text == "loose"
            assert servers.pool.conversations() == ()
            assert len(children()) == 1

    asyncio.run(scenario())


def test_over_http_each_conversation_has_an_mcp_session_of_its_own() -> None:
    """Over streamable HTTP (sessions: the legacy protocol) state stays in its conversation."""

    async def scenario(url: str) -> None:
        config = MCPServerConfig(name="web", url=url, sessions="conversation", protocol="legacy")
        async with MCPClientPool([config]) as pool:
            for conversation, value in (("a", "one"), ("b", "two"), ("a", "three")):
                await pool.call("web", "remember", {"value": value}, conversation=conversation)
            recalled = {
                name: (await pool.call("web", "recall", {}, conversation=name)).text
                for name in ("a", "b")
            }
            assert recalled == {"a": "one,three", "b": "two"}
            assert (await pool.call("web", "recall", {})).text == ""  # the shared session's
            pool.end_conversation("a")
            again = await pool.call("web", "recall", {}, conversation="a")
            assert (again.text, again.is_error) == ("", False)  # a new MCP session: nothing kept
            assert pool.conversations("web") == ("b", "a")

    with http_server_of(STATEFUL) as url:
        asyncio.run(scenario(url))


def test_a_providers_forget_closes_its_servers_conversation_sessions() -> None:
    """forget_conversation_state(id) closes that conversation's session; None closes every one."""

    async def scenario() -> None:
        async with MCPServers([stateful("conversation")]) as servers:
            pool = servers.pool
            tools = {p.name: p for p in await servers.astart("st")}
            processes = {
                name: Process.of(int((await pool.call("st", "pid", {}, conversation=name)).text))
                for name in ("a", "b", "c")
            }
            tools["recall"].forget_conversation_state("a")  # any tool of the server will do
            assert await await_gone(processes["a"])
            assert pool.conversations("st") == ("b", "c")
            tools["pid"].forget_conversation_state(None)
            assert await await_gone(processes["b"])
            assert await await_gone(processes["c"])
            assert pool.conversations() == ()

    asyncio.run(scenario())


def test_a_shared_servers_tools_keep_their_session_when_a_conversation_ends() -> None:
    """For sessions = "shared", forget_conversation_state leaves the one session running."""
    with MCPServers([stateful("shared")]) as servers:
        tools = {p.name: p for p in servers.start("st")}
        process = Process.of(int(asyncio.run(call(tools["pid"])).text))
        tools["pid"].forget_conversation_state("any")
        tools["pid"].forget_conversation_state(None)
        assert servers.pool.call_sync("st", "pid", {}).text == str(process.pid)
        assert process.running()


def test_nucleo_mcp_shows_a_servers_sessions_and_risk_policy(tmp_path: Path) -> None:
    """`nucleo mcp` marks a per-conversation server, and --json gives sessions and risk_policy."""
    (tmp_path / "nucleo.toml").write_text(
        "[mcp.servers.st]\n"
        f"command = {sys.executable!r}\n"
        f"args = [{str(STATEFUL)!r}, 'stdio']\n"
        'sessions = "conversation"\n'
        'risk_policy = { high = "confirm" }\n'
        "[mcp.servers.plain]\n"
        f"command = {sys.executable!r}\n"
        f"args = [{str(STATEFUL)!r}, 'stdio']\n",
        encoding="utf-8",
    )

    def nucleo(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "nucleo_core.cli", "mcp", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=clean_environment({"COLUMNS": "400", "NO_COLOR": "1"}),
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    rows = {row["name"]: row for row in json.loads(nucleo("--json"))}
    assert (rows["st"]["sessions"], rows["st"]["risk_policy"]) == (
        "conversation",
        {"high": "confirm"},
    )
    assert (rows["plain"]["sessions"], rows["plain"]["risk_policy"]) == ("shared", None)
    table = {line.split()[0]: line for line in nucleo().splitlines() if line.strip()}
    assert "(a session per conversation)" in table["st"]
    assert "per conversation" not in table["plain"]
