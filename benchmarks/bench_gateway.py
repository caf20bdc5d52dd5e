"""Section (m): one MCP tool call through ``nucleo mcp serve`` against the same call made direct.

Both paths call the tool ``echo`` of the SDK-written stdio test server
(``tests/integration/_mcp_servers/main_server.py``) with ``{"text": "hi"}``, each with the MCP
SDK's own ``Client`` over stdio, on the protocol the client negotiates:

* through the gateway: the client launches ``nucleo mcp serve --profile bench`` (a project with
  that one server behind it, declared low risk), which takes the call through the call door,
  the permission guard, the execution and the audit record (SQLite), and calls the upstream
  server through its client pool: two hops;
* direct: the client launches the test server itself: one hop;
* for the breakdown, not judged: (1) the SDK's low-level ``Server`` answering ``tools/call`` at
  once with a fixed result, the cheapest a hop of an SDK-written server can be; (2) a proxy
  written with the SDK alone (its low-level ``Server`` on its stock ``stdio_server``, forwarding
  each ``tools/call`` through its ``Client`` to the same test server): two hops and nothing else,
  the floor of any gateway built on the SDK. The gateway over that proxy is what nucleo's
  governance (door, guard, approvals, audit) and its pool add per call.

The machine is shared, so the two paths are interleaved call by call, in a fresh (seeded)
random order each time, each call timed on its own with the collector paused; the calls are cut
into blocks (the rounds) and the ratio of medians computed per block. The target: the gateway
at most 1.5x the direct call (two hops against one).
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

#: The test server both paths call.
SERVER = Path(__file__).resolve().parent.parent / "tests" / "integration" / "_mcp_servers"
TOOL = "echo"
CALL = '{"text": "hi"}'
#: The target: the gateway's call at most this many times the direct one.
GATEWAY_FACTOR = 1.5
WARM_UP = 20

GATEWAY = "through nucleo mcp serve"
DIRECT = "direct to the server"
FLOOR = "an SDK low-level server answering at once"
PROXY = "an SDK proxy forwarding to the server"

_FLOOR_SERVER = """\
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def listed(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])


async def called(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="hi")])


server = Server("floor", on_list_tools=listed, on_call_tool=called)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
"""

_PROXY_SERVER = """\
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

UPSTREAM = StdioServerParameters(command=sys.executable, args=sys.argv[1:])
upstream = None


async def listed(ctx, params):
    return await upstream.list_tools()


async def called(ctx, params):
    return await upstream.call_tool(params.name, params.arguments)


server = Server("proxy", on_list_tools=listed, on_call_tool=called)


async def main():
    global upstream
    async with Client(UPSTREAM, cache=None) as client:
        upstream = client
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


anyio.run(main)
"""

#: The work both paths do.
_WORK = (
    "one MCP tools/call of the SDK test server's echo over stdio with the SDK's Client, the same "
    "request and the same result on both paths (the gateway's adds its door, guard and audit "
    "record, and its upstream hop)"
)

_AGENTS = '''\
from nucleo_core import ThinkerBase


class Bench(ThinkerBase):
    """The gateway's profile: the one server's tools, system-wide."""
'''


def _project(folder: Path, server: Path) -> Path:
    """A project serving the test server through the profile ``bench``."""
    (folder / "pyproject.toml").write_text(
        f"""\
[tool.nucleo.mcp.servers.main]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(server))}, "stdio", "main"]
risk = "low"
tools.echo = {{ read_only = true }}

[tool.nucleo.gateway.profiles.bench]
thinker = "bench_agents:Bench"
"""
    )
    (folder / "bench_agents.py").write_text(_AGENTS)
    (folder / "floor_server.py").write_text(_FLOOR_SERVER)
    (folder / "proxy_server.py").write_text(_PROXY_SERVER)
    return folder


def run_gateway_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (m), print the table, return the verdict."""
    print_heading("(m) One MCP tool call through nucleo's gateway against the same call direct")
    print(
        f"Tool {TOOL!r} of the SDK test server over stdio, input {CALL!r}; {rounds} blocks of "
        f"{count:,} calls per path, the paths interleaved call by call (in a fresh random order "
        "each time)."
    )
    print_work("(m) judged", _WORK)
    key = f"(m) gateway call vs direct call, x{GATEWAY_FACTOR:.2f}"
    server = SERVER / "main_server.py"
    if not server.is_file():
        return [unavailable(key, _WORK, f"the test server {server} is missing")]
    if importlib.util.find_spec("mcp") is None:
        return [unavailable(key, _WORK, "the MCP SDK is not installed")]
    try:
        with tempfile.TemporaryDirectory(prefix="nucleo-bench-gateway-") as folder:
            times, versions = asyncio.run(_measure(_project(Path(folder), server), count, rounds))
    except Exception as exc:
        print_failure("measuring (m)", exc)
        return [unavailable(key, _WORK, short_error(exc), nucleo_failed=True)]
    return _report(key, times, versions, count)


async def _measure(
    project: Path, count: int, rounds: int
) -> tuple[dict[str, list[float]], dict[str, str]]:
    from mcp import Client, StdioServerParameters

    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("NUCLEO_") and key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    environment |= {
        "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1",
        "NUCLEO_APPROVALS": str(project / "approvals.sqlite3"),
    }
    gateway = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "nucleo_core.cli",
            "mcp",
            "serve",
            "--profile",
            "bench",
            "--project",
            str(project),
        ],
        env=environment,
        cwd=str(project),
    )
    direct = StdioServerParameters(
        command=sys.executable, args=[str(SERVER / "main_server.py"), "stdio", "direct"]
    )
    floor = StdioServerParameters(command=sys.executable, args=[str(project / "floor_server.py")])
    proxy = StdioServerParameters(
        command=sys.executable,
        args=[str(project / "proxy_server.py"), str(SERVER / "main_server.py"), "stdio", "proxied"],
    )
    versions: dict[str, str] = {}
    async with AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        for label, parameters in (
            (GATEWAY, gateway),
            (DIRECT, direct),
            (FLOOR, floor),
            (PROXY, proxy),
        ):
            client = await stack.enter_async_context(Client(parameters, cache=None))
            await client.list_tools()  # as a client would before calling
            clients[label] = client
            versions[label] = str(client.protocol_version)

        def call(client: Any) -> Callable[[], Awaitable[Any]]:
            def one() -> Awaitable[Any]:
                return client.call_tool(TOOL, json.loads(CALL))

            return one

        paths = [(label, call(client)) for label, client in clients.items()]
        for label, one in paths:
            for _ in range(WARM_UP):
                result = await one()
            if result.is_error or [block.text for block in result.content] != ["hi"]:
                raise AssertionError(f"{label}: the call returned {result!r}")
        times: dict[str, list[float]] = {label: [] for label, _ in paths}
        clock = time.perf_counter
        order = random.Random(20261202)
        for _ in range(rounds):
            with settled():
                for _ in range(count):
                    for label, one in order.sample(paths, len(paths)):
                        started = clock()
                        await one()
                        times[label].append(clock() - started)
    return times, versions


def _report(
    key: str, times: dict[str, list[float]], versions: dict[str, str], block: int
) -> list[Verdict]:
    medians = {label: statistics.median(values) for label, values in times.items()}
    quartiles = {label: statistics.quantiles(values, n=4) for label, values in times.items()}
    rows = [
        [
            label,
            versions.get(label, "?"),
            _micro(medians[label]),
            f"{_micro(quartiles[label][0])} - {_micro(quartiles[label][2])}",
            fmt_ratio(medians[label] / medians[DIRECT]),
        ]
        for label in times
    ]
    print_table(["path", "protocol", "median/call", "middle half", "vs direct"], rows)
    floor = medians[PROXY] / medians[DIRECT]
    print(
        f"Breakdown: a hop of an SDK low-level server costs {_micro(medians[FLOOR])} at least; "
        f"two SDK hops and nothing else (the forwarding proxy) cost {fmt_ratio(floor)} of the "
        f"direct call, the floor of a gateway on the SDK; nucleo's own work (door, guard, "
        f"audit, pool) is about {_micro(medians[GATEWAY] - medians[PROXY])} per call over it."
    )
    per_block = [
        statistics.median(times[GATEWAY][i : i + block])
        / statistics.median(times[DIRECT][i : i + block])
        for i in range(0, len(times[GATEWAY]), block)
    ]
    note = (
        f"gateway {_micro(medians[GATEWAY])} vs direct {_micro(medians[DIRECT])} per call "
        f"(medians); {len(per_block)} blocks {fmt_ratio(min(per_block))}-"
        f"{fmt_ratio(max(per_block))}; two SDK hops alone (a forwarding proxy) {fmt_ratio(floor)}"
    )
    return [
        judge_at_most(
            key,
            f"{_WORK}; per-block ratio gateway / direct",
            Samples(tuple(per_block)),
            GATEWAY_FACTOR,
            unit=fmt_ratio,
            note=note,
        )
    ]


def _micro(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"
