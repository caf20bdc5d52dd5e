"""One MCP server's session, owned by one task on the pool's event loop.

The SDK's transports and ``Client`` are entered and exited in the same task (their task groups
and cancel scopes demand it), so one long-lived task per server connects, lists the tools,
serves until the session is closed or breaks, and restarts it with bounded backoff. Calls run
in tasks of their own on the same loop and share the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import tempfile
from collections.abc import AsyncIterator, Callable
from typing import Any, BinaryIO, Literal

import anyio
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from nucleo_core._version import __version__
from nucleo_core.mcp._features import ClientFeatures
from nucleo_core.mcp._server_requests import ServerRequests
from nucleo_core.mcp._session_calls import SessionCalls
from nucleo_core.mcp._session_limits import (
    BACKOFF_BASE,
    BACKOFF_CAP,
    CLOSE_TIMEOUT,
    HEALTHY_AFTER,
)
from nucleo_core.mcp._session_listing import list_tools, listens
from nucleo_core.mcp._session_reasons import failure_reason
from nucleo_core.mcp._session_state import Listing, SessionState
from nucleo_core.mcp._stderr import tail as _tail
from nucleo_core.mcp._stdio import stdio_transport
from nucleo_core.mcp.config import MCPServerConfig
from nucleo_core.mcp.elicitation import (
    CallElicitations,
)
from nucleo_core.mcp.errors import MCPServerUnavailable

__all__ = ["BACKOFF_CAP", "Listing", "ServerSession", "SessionState"]

logger = logging.getLogger("nucleo.mcp")


_CLIENT_INFO = types.Implementation(name="nucleo", version=__version__)


class ServerSession(ServerRequests, SessionCalls):
    """The session of one server: state, tools, calls, and the task that owns the client."""

    def __init__(
        self,
        config: MCPServerConfig,
        notify: Callable[[str, Listing], None],
        loop: asyncio.AbstractEventLoop,
        conversation: str | None = None,
        features: ClientFeatures | None = None,
    ) -> None:
        self.config = config
        self._features = features or ClientFeatures()
        #: The conversation the session is kept for (``sessions = "conversation"``), or
        #: ``None`` for the server's shared session.
        self.conversation = conversation
        #: The event loop the session lives on: every coroutine of it runs there.
        self.loop = loop
        self.state: SessionState = "idle"
        self.tools: Listing | None = None
        self.restarts = 0
        self.error: MCPServerUnavailable | None = None
        self.stderr_tail = ""
        self.protocol_version: str | None = None
        self._notify = notify
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()
        self._wake = asyncio.Event()
        self._closed = asyncio.Event()
        self._broken: str | None = None
        self._relist = False
        self._scope: anyio.CancelScope | None = None
        self._background: set[asyncio.Task[None]] = set()
        # The calls waiting for their answer: a server's elicitation during one is told to it.
        self._in_flight: list[CallElicitations | None] = []

    # -- starting ---------------------------------------------------------------------------

    async def ensure_started(self) -> Client:
        """The connected client, starting the server (or waiting out a restart) if needed.

        Raises:
            MCPServerUnavailable: The server did not start, or was given up on.
        """
        if self.state == "ready" and self._client is not None:
            return self._client
        if self.state == "failed" and self._retries_after_failure():
            # An HTTP server is not ours to restart: one that was given up on (it stayed down
            # through every reconnection) may be back, so the next call tries again afresh.
            self.state = "idle"
            self.restarts += 1
        if self.state == "idle":
            self.state = "starting"  # no await before the task exists: one start per session
            name = f"nucleo-mcp:{self.config.name}"
            if self.conversation is not None:
                name += f"@{self.conversation}"
            self._task = asyncio.get_running_loop().create_task(self._run(), name=name)
        async with self._changed:
            # A session that just broke is still "ready" without a client until its task
            # moves it on: wait for a client, or for the session to end.
            await self._changed.wait_for(
                lambda: (
                    (self.state == "ready" and self._client is not None)
                    or self.state in ("failed", "closed")
                )
            )
        if self.state == "ready" and self._client is not None:
            return self._client
        raise self.error or self._unavailable("its session was closed")

    def _retries_after_failure(self) -> bool:
        """Whether a failed session starts afresh at the next call: an HTTP server's does."""
        return (
            self.config.url is not None
            and not self._closed.is_set()
            and (self._task is None or self._task.done())
        )

    async def _set_state(self, state: SessionState) -> None:
        async with self._changed:
            self.state = state
            self._changed.notify_all()

    async def _run(self) -> None:
        """Connect, serve, and restart a broken session with bounded backoff."""
        loop = asyncio.get_running_loop()
        established = False
        failures = 0
        try:
            while True:
                began = loop.time()
                outcome = await self._connect_and_serve()
                if outcome == "closed" or self._closed.is_set():
                    break
                if outcome == "start_failed" and not established:
                    logger.warning("%s", self.error)
                    await self._set_state("failed")
                    return
                if outcome == "broken":
                    established = True
                    if loop.time() - began >= HEALTHY_AFTER:
                        failures = 0
                failures += 1
                if failures > self.config.max_restarts:
                    reason = self.error.reason if self.error else self._broken or "it stopped"
                    self.error = self._unavailable(
                        f"gave up after {self.config.max_restarts} restart(s); last: {reason}"
                    )
                    logger.error("%s", self.error)
                    await self._set_state("failed")
                    return
                delay = min(BACKOFF_BASE * 2 ** (failures - 1), BACKOFF_CAP)
                self.restarts += 1
                logger.warning(
                    "MCP server '%s' stopped (%s); restarting in %.2g s (restart %d of at most %d)",
                    self.config.name,
                    self._broken or (self.error.reason if self.error else "unknown"),
                    delay,
                    failures,
                    self.config.max_restarts,
                )
                await self._set_state("restarting")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._closed.wait(), delay)
                if self._closed.is_set():
                    break
        finally:
            if self._closed.is_set() or self.state != "failed":
                await self._set_state("closed")

    async def _connect_and_serve(self) -> Literal["closed", "broken", "start_failed"]:
        """One session, from spawning the server to tearing it down."""
        config = self.config
        errlog = (
            # Closed in the finally below, after the tail is read; the child writes to its fd.
            tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115
            if config.command is not None
            else None
        )
        started = False
        self._broken = None
        self._relist = False
        self._wake.clear()
        try:
            # One scope around the whole session, its deadline lifted once the server has
            # started: a scope exited while the client's task groups are open would break
            # anyio's nesting.
            with anyio.CancelScope(deadline=anyio.current_time() + config.startup_timeout) as scope:
                self._scope = scope
                if self._closed.is_set():
                    scope.cancel()
                async with self._connect(errlog) as client:
                    tools = await list_tools(client)
                    scope.deadline = math.inf
                    started = True
                    self._client = client
                    self.tools = tools
                    self.error = None
                    self.protocol_version = client.protocol_version
                    await self._set_state("ready")
                    self._notify(config.name, tools)
                    async with anyio.create_task_group() as group:
                        if listens(client):
                            group.start_soon(self._listen, client)
                        outcome = await self._serve(client)
                        group.cancel_scope.cancel()
                    self._client = None
                return outcome
            # Reached only when the deadline passed (or a close cancelled) before it started.
            if self._closed.is_set():
                return "closed"
            self.error = self._unavailable(
                f"it did not complete the MCP handshake and tools/list within "
                f"{config.startup_timeout:g} s",
                errlog,
            )
            return "start_failed"
        except Exception as exc:
            self._client = None
            if self._closed.is_set():
                return "closed"
            if not started:
                self.error = self._unavailable(failure_reason(exc, config), errlog)
                return "start_failed"
            self._broken = self._broken or failure_reason(exc, config)
            logger.debug("MCP server '%s' session ended with an error", config.name, exc_info=exc)
            return "broken"
        finally:
            self._client = None
            self._scope = None
            if errlog is not None:
                self.stderr_tail = _tail(errlog) or self.stderr_tail
                errlog.close()

    @contextlib.asynccontextmanager
    async def _connect(self, errlog: BinaryIO | None) -> AsyncIterator[Client]:
        config = self.config
        if config.command is not None:
            assert errlog is not None
            parameters = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=config.environment() or None,
                cwd=config.cwd,
            )
            # nucleo's own stdio transport: the server in a process group of its own, the
            # whole group stopped whenever the session ends.
            transport = stdio_transport(parameters, errlog, on_exit=self._exited)
            async with self._client_over(transport) as client:
                yield client
            return
        assert config.url is not None
        # The SDK's own defaults: 30 s to connect and write, 5 minutes to read a held stream.
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with httpx2.AsyncClient(headers=dict(config.headers), timeout=timeout) as http:
            transport = streamable_http_client(config.url, http_client=http)
            async with self._client_over(transport) as client:
                yield client

    def _client_over(self, transport: Any) -> Client:
        protocol = self.config.protocol
        if protocol not in ("auto", "legacy") and protocol not in MODERN_PROTOCOL_VERSIONS:
            raise ValueError(
                f'protocol {protocol!r} is not one this MCP SDK speaks; use "auto", '
                f'"legacy" or one of {", ".join(MODERN_PROTOCOL_VERSIONS)}'
            )
        return Client(
            transport,
            # Declared whatever the configuration: a server hides the tools that need a
            # capability the client does not declare. Each request is then answered here,
            # failing closed (roots as configured, elicitation declined without an answerer,
            # sampling refused unless the server's configuration enables it).
            list_roots_callback=self._list_roots,
            elicitation_callback=self._elicit,
            sampling_callback=self._sample,
            message_handler=self._on_message,
            client_info=_CLIENT_INFO,
            mode=protocol,
            # Listings must reach the server: a list_changed re-list has to see the change.
            cache=None,
        )

    async def _serve(self, client: Client) -> Literal["closed", "broken"]:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._closed.is_set():
                return "closed"
            if self._broken is not None:
                return "broken"
            if self._relist:
                self._relist = False
                try:
                    with anyio.fail_after(self.config.startup_timeout):
                        tools = await list_tools(client)
                except Exception as exc:
                    self._broken = (
                        f"re-listing its tools failed ({failure_reason(exc, self.config)})"
                    )
                    return "broken"
                if tools != self.tools:
                    self.tools = tools
                    self._notify(self.config.name, tools)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._relist = True
            self._wake.set()
        elif isinstance(message, Exception):
            logger.warning(
                "MCP server '%s' sent something unreadable: %s", self.config.name, message
            )

    async def _listen(self, client: Client) -> None:
        """Hold a 2026-07-28 ``subscriptions/listen`` stream for tool-list changes.

        Over HTTP the stream is also the watch on the server between calls (a stdio server's
        process is watched instead): when it ends, the server went away or dropped the
        connection, so the session is reconnected (with the restart backoff) and its tools
        listed again, before the next call rather than at its failure.
        """
        ended = "the server closed it"
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._relist = True
                    self._wake.set()
        except Exception as exc:
            ended = failure_reason(exc, self.config)
        logger.info("MCP server '%s': tool-list subscription ended: %s", self.config.name, ended)
        if self.config.url is not None:
            self._mark_broken(client, f"its HTTP connection was lost ({ended})")

    # -- closing ----------------------------------------------------------------------------

    async def close(self) -> None:
        """End the session: the server process is stopped (its whole process group)."""
        self._closed.set()
        self._wake.set()
        for background in list(self._background):
            background.cancel()
        task = self._task
        if task is None:
            await self._set_state("closed")
            return
        if self._scope is not None and self.state != "ready":
            # Still starting: cancel through anyio, so the transport's shielded shutdown runs
            # (a native task.cancel() can cut it short).
            self._scope.cancel()
        done, _ = await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)
        if task.done() and not task.cancelled() and task.exception() is not None:
            logger.warning(
                "closing MCP server '%s' failed", self.config.name, exc_info=task.exception()
            )

    def _unavailable(self, reason: str, errlog: BinaryIO | None = None) -> MCPServerUnavailable:
        tail = _tail(errlog) if errlog is not None else self.stderr_tail
        return MCPServerUnavailable(
            self.config.name, reason, command=self.config.describe(), stderr_tail=tail
        )
