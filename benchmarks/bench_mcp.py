"""Section (j): the per-call cost of an MCP tool through nucleo, against the SDK's own session.

Every path calls the tool ``echo`` of the same SDK-written stdio test server
(``tests/integration/_mcp_servers/main_server.py``), each on a server process of its own
started once, with the JSON text a model sends, ``{"text": "hi"}``:

* nucleo, as async code uses it: ``async with MCPServers([...]) as servers`` makes the running
  loop the pool's home loop, ``await servers.astart(...)`` starts the server there, and each
  call is ``await provider.create(None).run(provider.parse_input(text))``: the input checked
  against the published schema, one `MCPTool`, the pool and its session wrapper (time limit,
  restart handling, result mapping). This is the judged path;
* nucleo with the session on the pool's own thread (a pool started from synchronous code, or
  called from another loop): the same call, crossing to that thread and back. Reported, so the
  price of the crossing is on the record;
* the SDK's ``ClientSession.call_tool(name, json.loads(text))`` on a session opened directly
  with ``stdio_client`` in the caller's loop, twice: after ``discover()`` (the 2026-07-28
  protocol, which nucleo negotiates with this server: the baseline) and after ``initialize()``
  (the SDK's handshake for 2025-11-25);
* nucleo as in the first path, the server configured ``protocol = "legacy"`` (the
  ``initialize`` handshake, 2025-11-25), judged against the ``ClientSession`` after
  ``initialize()``;
* for the breakdown, not judged: the SDK's ``Client.call_tool``, the client the pool wraps.

The machine is shared, so the paths are interleaved call by call, in a fresh (seeded) random
order each time so that no path always follows the same other one, each call timed on its own,
the collector paused: every path sees the same disturbances. The figure
is each path's median call; the ratio is of medians. The calls are cut into blocks (the
rounds) and the ratio computed per block too, its range showing how steady the verdict is.
The target: nucleo at most 1.10x the ``ClientSession`` on the same protocol, on each of the two.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_harness import (
    Samples,
    Verdict,
    fmt_ratio,
    judge_at_most,
    print_failure,
    print_heading,
    print_table,
    print_work,
    settled,
    short_error,
    unavailable,
)

__all__ = ["run_mcp_section"]

#: nucleo's call at most this many times the SDK's, on the same protocol.
MCP_FACTOR = 1.10
SERVER = Path(__file__).resolve().parents[1] / "tests" / "integration" / "_mcp_servers"
TOOL = "echo"
CALL = '{"text": "hi"}'
WARM_UP = 50

NUCLEO = "nucleo-core (async with)"
NUCLEO_LEGACY = "nucleo-core (async with, legacy)"
THREAD = "nucleo-core (pool thread)"
SESSION_MODERN = "SDK ClientSession (2026-07-28)"
SESSION_LEGACY = "SDK ClientSession (2025-11-25)"
CLIENT = "SDK Client"


@dataclass(frozen=True, slots=True)
class _Path:
    label: str
    what: str
    call: Callable[[], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class _Measured:
    #: Each path's call times in seconds, in the order measured, by label in setup order.
    times: dict[str, list[float]]
    #: Each path's negotiated protocol version.
    versions: dict[str, str]
    #: What each path calls.
    calls: dict[str, str]
    #: Calls per block (one block per round).
    block: int


def run_mcp_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (j), print the table and the breakdown, return the verdict."""
    print_heading("(j) One MCP tool call: nucleo's provider and pool against the SDK's session")
    print(
        f"Tool {TOOL!r} of the SDK test server over stdio, input {CALL!r}; {rounds} blocks of "
        f"{count:,} calls per path, the paths interleaved call by call (in a fresh random order "
        "each time), one server process per path."
    )
    print_work("(j) judged", _WORK)
    key = f"(j) MCP call vs ClientSession, x{MCP_FACTOR:.2f}"
    server = SERVER / "main_server.py"
    if not server.is_file():
        return _not_judged(key, f"the test server {server} is missing (run from a checkout)")
    if importlib.util.find_spec("mcp") is None:
        return _not_judged(key, "the MCP SDK is not installed (pip install 'nucleo-core[mcp]')")
    # The pins nucleo's pool keeps of the server's tools go to a file of the run's own, not into
    # the .nucleo folder of wherever the benchmarks were started.
    pins = tempfile.TemporaryDirectory(prefix="nucleo-bench-mcp-")
    kept = os.environ.get("NUCLEO_MCP_PINS")
    os.environ["NUCLEO_MCP_PINS"] = str(Path(pins.name) / "mcp_pins.sqlite3")
    try:
        measured = asyncio.run(_measure(server, count, rounds))
    except Exception as exc:
        print_failure("measuring (j)", exc)
        return [unavailable(key, _WORK, short_error(exc), nucleo_failed=True)]
    finally:
        if kept is None:
            os.environ.pop("NUCLEO_MCP_PINS", None)
        else:
            os.environ["NUCLEO_MCP_PINS"] = kept
        pins.cleanup()
    return _report(key, measured)


async def _measure(server: Path, count: int, rounds: int) -> _Measured:
    from mcp import Client, ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from nucleo_core.mcp import MCPServerConfig, MCPServers

    def parameters(name: str) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=[str(server), "stdio", name])

    def config(name: str, **settings: Any) -> MCPServerConfig:
        return MCPServerConfig(
            name=name, command=sys.executable, args=(str(server), "stdio", name), **settings
        )

    versions: dict[str, str] = {}
    async with AsyncExitStack() as stack:
        # As async code uses nucleo: the pool entered on this loop, the server started on it.
        home = await stack.enter_async_context(
            MCPServers([config("home"), config("legacy", protocol="legacy", prefix="legacy")])
        )
        provider = next(p for p in await home.astart("home") if p.tool == TOOL)
        versions[NUCLEO] = home.pool.status("home").protocol_version or "?"
        legacy = next(p for p in await home.astart("legacy") if p.tool == TOOL)
        versions[NUCLEO_LEGACY] = home.pool.status("legacy").protocol_version or "?"
        # A pool never entered: its sessions live on its own thread.
        threaded = stack.enter_context(MCPServers([config("thread")]))
        far = next(p for p in threaded.start("thread") if p.tool == TOOL)
        versions[THREAD] = threaded.pool.status("thread").protocol_version or "?"

        def nucleo_call(provider: Any) -> Callable[[], Awaitable[object]]:
            def call() -> Awaitable[object]:
                return provider.create(None).run(provider.parse_input(CALL))

            return call

        sessions: dict[str, Any] = {}
        for label, handshake in ((SESSION_MODERN, "discover"), (SESSION_LEGACY, "initialize")):
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

        def sdk_call(session: Any) -> Callable[[], Awaitable[object]]:
            def call() -> Awaitable[object]:
                return session.call_tool(TOOL, json.loads(CALL))

            return call

        text_call = "provider.create(None).run(provider.parse_input(text))"
        sdk_text = "session.call_tool(name, json.loads(text))"
        paths = [
            _Path(NUCLEO, text_call, nucleo_call(provider)),
            _Path(NUCLEO_LEGACY, text_call + ', protocol = "legacy"', nucleo_call(legacy)),
            _Path(THREAD, text_call, nucleo_call(far)),
            _Path(SESSION_MODERN, sdk_text, sdk_call(sessions[SESSION_MODERN])),
            _Path(SESSION_LEGACY, sdk_text, sdk_call(sessions[SESSION_LEGACY])),
            _Path(
                CLIENT,
                "client.call_tool(name, json.loads(text)), as the pool does",
                sdk_call(client),
            ),
        ]
        for path in paths:
            for _ in range(WARM_UP):
                result = await path.call()
            _check(path.label, result)
        times: dict[str, list[float]] = {path.label: [] for path in paths}
        clock = time.perf_counter
        order = random.Random(20261130)  # the same shuffles in every run
        for _ in range(rounds):
            with settled():
                for _ in range(count):
                    # A fresh order each time: no path always follows the same other path.
                    for path in order.sample(paths, len(paths)):
                        started = clock()
                        await path.call()
                        times[path.label].append(clock() - started)
    return _Measured(
        times=times,
        versions=versions,
        calls={path.label: path.what for path in paths},
        block=count,
    )


def _check(label: str, result: object) -> None:
    """A path's call must have reached the tool and come back with its text."""
    text = getattr(result, "text", None)
    if text is None:
        content = getattr(result, "content", None) or []
        text = getattr(content[0], "text", None) if content else None
    if text != "hi" or getattr(result, "is_error", False):
        raise AssertionError(f"{label}: the call returned {result!r}")


def _blocks(values: list[float], size: int) -> list[float]:
    """The median of each block of ``size`` calls."""
    return [statistics.median(values[i : i + size]) for i in range(0, len(values), size)]


#: The judged pairs: nucleo, and the ClientSession on the same protocol.
JUDGED = ((NUCLEO, SESSION_MODERN, "2026-07-28"), (NUCLEO_LEGACY, SESSION_LEGACY, "2025-11-25"))


def _report(key: str, measured: _Measured) -> list[Verdict]:
    times = measured.times
    medians = {label: statistics.median(values) for label, values in times.items()}
    quartiles = {label: statistics.quantiles(values, n=4) for label, values in times.items()}
    same = {
        label: SESSION_LEGACY if measured.versions.get(label) == "2025-11-25" else SESSION_MODERN
        for label in times
    }
    rows = [
        [
            label,
            measured.versions.get(label, "?"),
            measured.calls[label],
            _micro(medians[label]),
            f"{_micro(quartiles[label][0])} - {_micro(quartiles[label][2])}",
            fmt_ratio(medians[label] / medians[same[label]]),
        ]
        for label in times
    ]
    print_table(
        [
            "path",
            "protocol",
            "call",
            "median/call",
            "middle half",
            "vs ClientSession (same protocol)",
        ],
        rows,
    )
    print("Breakdown (differences of medians; noise can make one negative):")
    steps = [
        ("the provider and the pool's session wrapper", NUCLEO, CLIENT),
        ("the crossing to the pool's thread and back", THREAD, NUCLEO),
        ("the SDK's Client over its ClientSession", CLIENT, SESSION_MODERN),
        ("the 2026-07-28 protocol over 2025-11-25", SESSION_MODERN, SESSION_LEGACY),
    ]
    for what, upper, lower in steps:
        print(f"  {what:<46} {_signed(medians[upper] - medians[lower])}")
    verdicts = []
    for nucleo, session, protocol in JUDGED:
        ratio = medians[nucleo] / medians[session]
        per_block = [
            a / b
            for a, b in zip(
                _blocks(times[nucleo], measured.block),
                _blocks(times[session], measured.block),
                strict=True,
            )
        ]
        note = (
            f"nucleo {_micro(medians[nucleo])} vs {_micro(medians[session])} per call "
            f"(medians), {_signed(medians[nucleo] - medians[session])}; "
            f"{len(per_block)} blocks {fmt_ratio(min(per_block))}-{fmt_ratio(max(per_block))}"
        )
        if protocol == "2026-07-28":
            note += (
                f"; session on the pool's thread {fmt_ratio(medians[THREAD] / medians[session])}"
            )
        verdicts.append(
            judge_at_most(
                f"{key} on {protocol}",
                f"{_WORK}, protocol {protocol}; per-block ratio nucleo / ClientSession",
                Samples(tuple(per_block)),
                MCP_FACTOR,
                unit=fmt_ratio,
                note=note + f"; ratio of all calls' medians {fmt_ratio(ratio)}",
            )
        )
    return verdicts


def _micro(seconds: float) -> str:
    """Microseconds with one decimal: the calls here are near a millisecond, on both sides."""
    return f"{seconds * 1e6:,.1f} µs"


def _signed(seconds: float) -> str:
    return ("+" if seconds >= 0 else "-") + _micro(abs(seconds))


def _not_judged(key: str, reason: str) -> list[Verdict]:
    print(f"  unavailable: {reason}")
    return [unavailable(key, _WORK, reason)]


#: The work both sides of (j) do.
_WORK = "one MCP tools/call of the SDK test server's tool over stdio, from JSON arguments"
