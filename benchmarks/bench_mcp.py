"""Section (j): the per-call cost of an MCP tool through nucleo, against the SDK's own session.

Every path calls the tool ``echo`` of the same SDK-written stdio test server
(``tests/integration/_mcp_servers/main_server.py``), each on a server process of its own
started once, with the JSON text a model sends, ``{"text": "hi"}``:

* nucleo: ``await provider.create(None).run(provider.parse_input(text))``: the input checked
  against the published schema, one `MCPTool`, and the client pool, whose sessions live on its
  own event loop thread (the call crosses to it and back);
* the SDK's ``ClientSession.call_tool(name, json.loads(text))`` on a session opened directly
  with ``stdio_client`` in the caller's loop, twice: after ``initialize()`` (the SDK's
  handshake, which settles on the 2025-11-25 protocol) and after ``discover()`` (the
  2026-07-28 protocol, which nucleo's pool negotiates with this server);
* for the breakdown, not judged: ``pool.call(server, tool, arguments)`` (the pool without the
  provider) and the SDK's ``Client.call_tool``, the client the pool wraps, in the caller's loop.

All paths run in one event loop. A round times N calls of each path, the order rotating from
round to round, the collector paused; the figure is the round's time over N; best and median of
the rounds. The target: nucleo at most 1.10x the ``ClientSession`` on the same protocol.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_harness import (
    Samples,
    Unavailable,
    Verdict,
    fmt_ratio,
    fmt_time,
    gc_paused,
    print_failure,
    print_heading,
    print_table,
    print_unavailable,
    short_error,
)

__all__ = ["run_mcp_section"]

#: nucleo's call at most this many times the SDK's, on the same protocol.
MCP_FACTOR = 1.10
SERVER = Path(__file__).resolve().parents[1] / "tests" / "integration" / "_mcp_servers"
TOOL = "echo"
CALL = '{"text": "hi"}'
WARM_UP = 20

NUCLEO = "nucleo-core"
POOL = "nucleo pool.call"
SESSION_MODERN = "SDK ClientSession (2026-07-28)"
SESSION_LEGACY = "SDK ClientSession (2025-11-25)"
CLIENT = "SDK Client"


@dataclass(frozen=True, slots=True)
class _Path:
    label: str
    what: str
    calls: Callable[[int], Awaitable[object]]


def run_mcp_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (j), print the table and the breakdown, return the verdict."""
    print_heading("(j) One MCP tool call: nucleo's provider and pool against the SDK's session")
    print(
        f"Tool {TOOL!r} of the SDK test server over stdio, input {CALL!r}; {rounds} timed rounds "
        f"of {count:,} calls per path (order rotating), one server process per path."
    )
    key = f"(j) MCP call vs ClientSession, x{MCP_FACTOR:.2f}"
    server = SERVER / "main_server.py"
    if not server.is_file():
        return _not_judged(key, f"the test server {server} is missing (run from a checkout)")
    if importlib.util.find_spec("mcp") is None:
        return _not_judged(key, "the MCP SDK is not installed (pip install 'nucleo-core[mcp]')")
    try:
        measured = asyncio.run(_measure(server, count, rounds))
    except Exception as exc:
        print_failure("measuring (j)", exc)
        return [Verdict(key, "failed", f"<= {MCP_FACTOR:.2f}x", None, short_error(exc))]
    return _report(key, measured)


@dataclass(frozen=True, slots=True)
class _Measured:
    #: Each path's samples (or why it has none), in the order the paths were set up.
    outcomes: dict[str, Samples | Unavailable]
    #: Each path's negotiated protocol version.
    versions: dict[str, str]
    #: What each path calls.
    calls: dict[str, str]


async def _measure(server: Path, count: int, rounds: int) -> _Measured:
    from mcp import Client, ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from nucleo_core.mcp import MCPServerConfig, MCPServers

    def parameters(name: str) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=[str(server), "stdio", name])

    paths: list[_Path] = []
    versions: dict[str, str] = {}
    async with AsyncExitStack() as stack:
        config = MCPServerConfig(
            name="bench", command=sys.executable, args=(str(server), "stdio", "bench")
        )
        servers = stack.enter_context(MCPServers([config]))
        provider = next(p for p in servers.start("bench") if p.name == TOOL)
        versions[NUCLEO] = versions[POOL] = servers.pool.status("bench").protocol_version or "?"
        pool = servers.pool

        async def nucleo_calls(n: int) -> object:
            result: object = None
            for _ in range(n):
                result = await provider.create(None).run(provider.parse_input(CALL))
            return result

        async def pool_calls(n: int) -> object:
            result: object = None
            for _ in range(n):
                result = await pool.call("bench", TOOL, json.loads(CALL))
            return result

        paths.append(
            _Path(NUCLEO, "provider.create(None).run(provider.parse_input(text))", nucleo_calls)
        )
        paths.append(_Path(POOL, "pool.call(server, tool, json.loads(text))", pool_calls))

        sessions: dict[str, Any] = {}
        handshakes = ((SESSION_MODERN, "discover"), (SESSION_LEGACY, "initialize"))
        for label, handshake in handshakes:
            read, write = await stack.enter_async_context(stdio_client(parameters(handshake)))
            session = await stack.enter_async_context(ClientSession(read, write))
            await getattr(session, handshake)()
            await session.list_tools()  # as a client would before calling
            sessions[label] = session
            versions[label] = str(session.protocol_version)
        client = await stack.enter_async_context(
            Client(stdio_client(parameters("client")), cache=None)
        )
        await client.list_tools()
        versions[CLIENT] = str(client.protocol_version)

        def session_calls(session: Any) -> Callable[[int], Awaitable[object]]:
            async def calls(n: int) -> object:
                result: object = None
                for _ in range(n):
                    result = await session.call_tool(TOOL, json.loads(CALL))
                return result

            return calls

        for label, session in sessions.items():
            paths.append(
                _Path(label, "session.call_tool(name, json.loads(text))", session_calls(session))
            )
        paths.append(
            _Path(
                CLIENT,
                "client.call_tool(name, json.loads(text)), as the pool does",
                session_calls(client),
            )
        )

        for path in paths:
            _check(path.label, await path.calls(WARM_UP))
        samples: dict[str, list[float]] = {path.label: [] for path in paths}
        outcomes: dict[str, Samples | Unavailable] = {}
        for index in range(rounds):
            shift = index % len(paths)
            for path in paths[shift:] + paths[:shift]:
                if path.label in outcomes:
                    continue
                try:
                    with gc_paused():
                        started = time.perf_counter()
                        await path.calls(count)
                        elapsed = time.perf_counter() - started
                except Exception as exc:
                    outcomes[path.label] = Unavailable(short_error(exc))
                    continue
                samples[path.label].append(elapsed / count)
        for path in paths:
            outcomes.setdefault(path.label, Samples(tuple(samples[path.label])))
    return _Measured(
        outcomes={path.label: outcomes[path.label] for path in paths},
        versions=versions,
        calls={path.label: path.what for path in paths},
    )


def _check(label: str, result: object) -> None:
    """A path's call must have reached the tool and come back with its text."""
    text = getattr(result, "text", None)
    if text is None:
        content = getattr(result, "content", None) or []
        text = getattr(content[0], "text", None) if content else None
    if text != "hi" or getattr(result, "is_error", False):
        raise AssertionError(f"{label}: the call returned {result!r}")


def _report(key: str, measured: _Measured) -> list[Verdict]:
    outcomes = measured.outcomes
    baseline = outcomes.get(SESSION_MODERN)
    rows = []
    missing: dict[str, str] = {}
    for label, outcome in outcomes.items():
        what = measured.calls.get(label, "")
        version = measured.versions.get(label, "?")
        if isinstance(outcome, Unavailable):
            rows.append([label, version, what, "unavailable", "", ""])
            missing[label] = outcome.reason
            continue
        ratio = fmt_ratio(outcome.best / baseline.best) if isinstance(baseline, Samples) else ""
        rows.append([label, version, what, fmt_time(outcome.best), fmt_time(outcome.median), ratio])
    print_table(
        [
            "path",
            "protocol",
            "call",
            "best/call",
            "median/call",
            "vs ClientSession (same protocol)",
        ],
        rows,
    )
    print_unavailable(missing)
    nucleo = outcomes.get(NUCLEO)
    if not isinstance(nucleo, Samples) or not isinstance(baseline, Samples):
        return [Verdict(key, "n/a", f"<= {MCP_FACTOR:.2f}x", None, "a path was unavailable")]
    _print_breakdown(outcomes)
    ratio = nucleo.best / baseline.best
    legacy = outcomes.get(SESSION_LEGACY)
    note = (
        f"nucleo {fmt_time(nucleo.best)} vs {fmt_time(baseline.best)} per call, "
        f"+{fmt_time(nucleo.best - baseline.best)}; median ratio "
        f"{fmt_ratio(nucleo.median / baseline.median)}"
    )
    if isinstance(legacy, Samples):
        note += f"; vs ClientSession after initialize() {fmt_ratio(nucleo.best / legacy.best)}"
    return [Verdict(key, fmt_ratio(ratio), f"<= {MCP_FACTOR:.2f}x", ratio <= MCP_FACTOR, note)]


def _print_breakdown(outcomes: dict[str, Samples | Unavailable]) -> None:
    """Where nucleo's per-call time goes, from the differences between the paths (best rounds)."""

    def best(label: str) -> float | None:
        outcome = outcomes.get(label)
        return outcome.best if isinstance(outcome, Samples) else None

    steps = [
        ("the provider (parse_input, MCPTool)", NUCLEO, POOL),
        ("the pool (thread hop, session wrapper)", POOL, CLIENT),
        ("the SDK's Client over its ClientSession", CLIENT, SESSION_MODERN),
        ("the 2026-07-28 protocol over 2025-11-25", SESSION_MODERN, SESSION_LEGACY),
    ]
    print("Breakdown (differences of best rounds; noise can make one negative):")
    for what, upper, lower in steps:
        high, low = best(upper), best(lower)
        if high is None or low is None:
            continue
        sign = "+" if high >= low else "-"
        print(f"  {what:<42} {sign}{fmt_time(abs(high - low))}")


def _not_judged(key: str, reason: str) -> list[Verdict]:
    print(f"  unavailable: {reason}")
    return [Verdict(key, "n/a", f"<= {MCP_FACTOR:.2f}x", None, reason)]
