"""Starting several MCP servers at once, each on its host loop, within one time limit.

A server missing the limit is ``None`` in the outcomes (the pool says it did not start in
time); one server failing never keeps the others from starting.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.mcp._crossing import relay
from nucleo_core.mcp.errors import MCPServerUnavailable

if TYPE_CHECKING:
    from nucleo_core.mcp._pool_runtime import PoolRuntime, Started
    from nucleo_core.mcp._session import ServerSession

__all__ = ["astart_all", "missed", "start_all"]


def _hosts(
    runtime: PoolRuntime, names: list[str], *, blocking: bool
) -> tuple[dict[str, Started | None], dict[asyncio.AbstractEventLoop, list[ServerSession]]]:
    """The servers already running (with their tools), and the others by host loop."""
    ready: dict[str, Started | None] = {}
    hosts: dict[asyncio.AbstractEventLoop, list[ServerSession]] = {}
    for name in names:
        try:
            session = runtime.session_for(name, blocking=blocking)
        except MCPServerUnavailable as exc:
            ready[name] = exc
            continue
        if session.state == "ready" and session.tools is not None:
            ready[name] = session.tools
        else:
            hosts.setdefault(session.loop, []).append(session)
    return ready, hosts


def start_all(runtime: PoolRuntime, names: list[str], timeout: float) -> dict[str, Started | None]:
    """Start ``names`` on their host loops and wait (from a thread that may block).

    Raises:
        RuntimeError: A host loop is this thread's own, or this is one of the pool's threads.
    """
    ready, hosts = _hosts(runtime, names, blocking=True)
    waiting: list[tuple[list[ServerSession], concurrent.futures.Future[dict[str, Started]]]]
    waiting = []
    for loop, sessions in hosts.items():
        if runtime.blocks(loop):
            raise RuntimeError(
                "MCP servers cannot be started by a blocking call from the thread of the "
                "event loop they start on (nor from the pool's threads); await astart()"
            )
        waiting.append((sessions, asyncio.run_coroutine_threadsafe(_start(sessions), loop)))
    outcomes: dict[str, Started | None] = dict(ready)
    deadline = time.monotonic() + timeout
    for sessions, future in waiting:
        try:
            outcomes.update(future.result(max(0.0, deadline - time.monotonic())))
        except concurrent.futures.TimeoutError:
            future.cancel()
            outcomes.update((session.config.name, None) for session in sessions)
    return {name: outcomes[name] for name in names}


async def astart_all(
    runtime: PoolRuntime, names: list[str], timeout: float
) -> dict[str, Started | None]:
    """Start ``names`` on their host loops, awaited from the running loop."""
    ready, hosts = _hosts(runtime, names, blocking=False)

    async def on(
        loop: asyncio.AbstractEventLoop, sessions: list[ServerSession]
    ) -> dict[str, Started | None]:
        try:
            return dict(await relay(loop, _start(sessions), timeout))
        except TimeoutError:
            return {session.config.name: None for session in sessions}

    outcomes: dict[str, Started | None] = dict(ready)
    for started in await asyncio.gather(*(on(*host) for host in hosts.items())):
        outcomes.update(started)
    return {name: outcomes[name] for name in names}


async def _start(sessions: list[ServerSession]) -> dict[str, Started]:
    """Start ``sessions`` at once, on their loop: each one's tools, or why it did not start."""

    async def one(session: ServerSession) -> Started:
        try:
            await session.ensure_started()
        except MCPServerUnavailable as exc:
            return exc
        return session.tools if session.tools is not None else ()

    results = await asyncio.gather(*(one(session) for session in sessions))
    return {session.config.name: result for session, result in zip(sessions, results, strict=True)}


def missed(
    runtime: PoolRuntime, outcomes: Mapping[str, Started | None]
) -> dict[str, tuple[Mapping[str, Any], ...] | MCPServerUnavailable]:
    """The outcomes, a server that did not answer in time (``None``) said as such."""
    return {
        name: outcome
        if outcome is not None
        else MCPServerUnavailable(
            name, "it did not start in time", command=runtime.configs[name].describe()
        )
        for name, outcome in outcomes.items()
    }
