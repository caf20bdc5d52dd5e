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
import signal
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, BinaryIO, Literal, TypeAlias

import anyio
import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from nucleo_core._version import __version__
from nucleo_core.mcp._features import ClientFeatures
from nucleo_core.mcp._results import to_result
from nucleo_core.mcp._stderr import tail as _tail
from nucleo_core.mcp._stdio import stdio_transport
from nucleo_core.mcp.config import MCPServerConfig
from nucleo_core.mcp.elicitation import (
    CallElicitations,
    ElicitationAnswer,
    ElicitationAnswerer,
    ElicitationRequest,
    settle_elicitation,
)
from nucleo_core.mcp.errors import MCPServerUnavailable
from nucleo_core.mcp.result import MCPToolResult
from nucleo_core.mcp.sampling import (
    CatalogSampler,
    SamplingMessage,
    SamplingRefused,
    SamplingRequest,
    sample,
)

__all__ = ["BACKOFF_CAP", "Listing", "ServerSession", "SessionState"]

logger = logging.getLogger("nucleo.mcp")

#: A server's tools as its ``tools/list`` answer gave them (wire form, one mapping per tool).
Listing: TypeAlias = tuple[Mapping[str, Any], ...]
SessionState: TypeAlias = Literal["idle", "starting", "ready", "restarting", "failed", "closed"]

#: Backoff before the n-th restart in a row: BACKOFF_BASE * 2**(n-1), at most BACKOFF_CAP.
BACKOFF_BASE = 0.25
BACKOFF_CAP = 4.0
#: A session that stayed up this long before breaking starts its restart count afresh.
HEALTHY_AFTER = 30.0
#: How long a server that let a call time out has to answer ``tools/list`` before it counts
#: as hung (and is restarted); a server that answers only had one slow tool.
PROBE_TIMEOUT = 5.0
#: How long past its timeout a call may take in all, its request's write included (the
#: SDK's clock starts once the request is written, and then sends the server a cancel).
WRITE_GRACE = 2.0
#: At most this many ``tools/list`` pages are read (a paginator that never ends cannot hang).
MAX_PAGES = 100
#: How long closing waits for a session's task (the stdio shutdown escalates within ~9 s).
CLOSE_TIMEOUT = 15.0

_CLIENT_INFO = types.Implementation(name="nucleo", version=__version__)


class ServerSession:
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
                    tools = await _list_tools(client)
                    scope.deadline = math.inf
                    started = True
                    self._client = client
                    self.tools = tools
                    self.error = None
                    self.protocol_version = client.protocol_version
                    await self._set_state("ready")
                    self._notify(config.name, tools)
                    async with anyio.create_task_group() as group:
                        if _listens(client):
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
                self.error = self._unavailable(_reason(exc, config), errlog)
                return "start_failed"
            self._broken = self._broken or _reason(exc, config)
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
                        tools = await _list_tools(client)
                except Exception as exc:
                    self._broken = f"re-listing its tools failed ({_reason(exc, self.config)})"
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

    # -- the server's own requests ---------------------------------------------------------

    async def _list_roots(self, context: Any) -> types.ListRootsResult | types.ErrorData:
        """``roots/list``: the configured roots, else the project folder, as ``file://`` URIs."""
        del context
        roots = [
            types.Root(uri=path.resolve().as_uri(), name=path.name or str(path))  # type: ignore[arg-type]
            for path in self.config.root_paths()
        ]
        logger.debug("MCP server '%s' listed its roots: %d", self.config.name, len(roots))
        return types.ListRootsResult(roots=roots)

    async def _elicit(
        self, context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """``elicitation/create``: asked of the pool's answerer, its answer checked first."""
        del context
        name = self.config.name
        if isinstance(params, types.ElicitRequestURLParams):
            request = ElicitationRequest(
                server=name, message=params.message, mode="url", url=params.url
            )
        else:
            request = ElicitationRequest(
                server=name, message=params.message, schema=dict(params.requested_schema)
            )
        answerer: ElicitationAnswerer | None = self._features.elicitation
        # In a durable run the request is told to its call (when it is the session's one call
        # in flight): a resumed call's decision answers it first, even with an answerer; with
        # none, it is pending (the call pauses the run) or declined.
        calls = self._in_flight
        own = calls[0] if len(calls) == 1 else None
        if own is not None:
            decided = own.decided_answer(request)
            if decided is not None:
                answerer = _given(decided)
            elif answerer is None:
                answerer = own.answer
        answer = await settle_elicitation(answerer, request)
        logger.info(
            "MCP server '%s' asked for input (elicitation, %s mode): %s",
            name,
            request.mode,
            answer.action,
        )
        content = dict(answer.content) if answer.content is not None else None
        return types.ElicitResult(action=answer.action, content=content)

    async def _sample(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        """``sampling/createMessage``: refused unless the server's configuration enables it."""
        del context
        name = self.config.name
        settings = self.config.sampling
        if settings is None:
            return self._refuse_sampling(
                'sampling is not enabled for this server (set sampling = { model = "fast" } '
                f"in the configuration of MCP server '{name}' to allow it)"
            )
        if params.tools or params.tool_choice is not None:
            return self._refuse_sampling("a sampling request with tools is not served")
        messages = []
        for message in params.messages:
            blocks = message.content_as_list
            texts = [block.text for block in blocks if isinstance(block, types.TextContent)]
            if len(texts) != len(blocks):
                return self._refuse_sampling(
                    "only text is sampled (the request carries an image, audio or a tool block)"
                )
            messages.append(SamplingMessage(message.role, "".join(texts)))
        request = SamplingRequest(
            server=name,
            settings=settings,
            messages=tuple(messages),
            system=params.system_prompt or "",
            max_tokens=min(params.max_tokens, settings.max_tokens),
            temperature=params.temperature,
            stop_sequences=tuple(params.stop_sequences or ()),
        )
        self._audit_sampling("auto", f"served by {settings.model}")
        try:
            result = await sample(self._features.sampler or CatalogSampler(), request)
        except SamplingRefused as exc:
            return self._refuse_sampling(str(exc), audited=True)
        logger.info(
            "MCP server '%s' sampling request (%d message(s), max_tokens %d) served by %s: %s",
            name,
            len(messages),
            request.max_tokens,
            result.model,
            result.stop_reason,
        )
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=result.text),
            model=result.model,
            stop_reason=result.stop_reason,
        )

    def _refuse_sampling(self, reason: str, *, audited: bool = False) -> types.ErrorData:
        logger.warning("MCP server '%s' sampling request refused: %s", self.config.name, reason)
        if not audited:
            self._audit_sampling("deny", reason)
        return types.ErrorData(
            code=types.INVALID_REQUEST, message=f"nucleo refused the sampling request: {reason}"
        )

    def _audit_sampling(self, decision: Literal["auto", "deny"], reason: str) -> None:
        """Record a sampling decision in the audit log, when the pool has one."""
        audit = self._features.audit
        if audit is None:
            return
        from nucleo_core.guard.audit.events import AuditEvent

        name = self.config.name
        try:
            audit.record(
                AuditEvent(
                    kind="permission",
                    source=f"mcp:{name}:sampling",
                    rule=f"mcp.servers.{name}.sampling",
                    decision=decision,
                    reason=reason,
                )
            )
        except Exception:  # the log failing must not answer the server for us
            logger.exception("recording a sampling decision of MCP server '%s' failed", name)

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
            ended = _reason(exc, self.config)
        logger.info("MCP server '%s': tool-list subscription ended: %s", self.config.name, ended)
        if self.config.url is not None:
            self._mark_broken(client, f"its HTTP connection was lost ({ended})")

    # -- calls ------------------------------------------------------------------------------

    async def call(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float,
        structured: bool,
        retry: bool = True,
        elicitations: CallElicitations | None = None,
    ) -> MCPToolResult:
        """Call ``tool``; every failure is an error result within the time limits.

        Args:
            tool: The tool's name on the server.
            arguments: The validated arguments.
            timeout: Seconds the call may take.
            structured: Keep the ``structuredContent``.
            retry: Make the call again on a new session when the HTTP server says it no
                longer knows this one (it restarted): it never ran the call. Once only.
            elicitations: The call's elicitations in a durable run (answered when no
                answerer is configured: see `nucleo_core.mcp.elicitation.ElicitationScope`).
        """
        name = self.config.name
        client = self._client
        try:
            if self.state != "ready" or client is None:  # starting or restarting: wait, bounded
                with anyio.fail_after(self.config.startup_timeout + BACKOFF_CAP):
                    client = await self.ensure_started()
        except MCPServerUnavailable as exc:
            return MCPToolResult.failure(
                "unavailable",
                f"MCP server '{name}' is unavailable ({exc.reason}); try another tool",
            )
        except TimeoutError:
            return MCPToolResult.failure(
                "unavailable", f"MCP server '{name}' is still starting; try again shortly"
            )
        try:
            # The SDK's own request clock times the answer: it runs from the moment the
            # request is written, and on expiry tells the server (notifications/cancelled).
            # The outer limit also covers the write, to a server that stopped reading.
            self._in_flight.append(elicitations)
            try:
                async with asyncio.timeout(timeout + WRITE_GRACE):
                    result = await client.call_tool(
                        tool, dict(arguments), read_timeout_seconds=timeout
                    )
            finally:
                self._in_flight.remove(elicitations)
        except TimeoutError:
            return self._timed_out(client, tool, timeout)
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                return self._timed_out(client, tool, timeout)
            if retry and exc.code == types.INVALID_REQUEST and await self._session_gone(client):
                # An HTTP server restarted since the last call no longer knows the session
                # (404): it never ran the call, so it is made again on a new session.
                return await self._call_again(
                    tool,
                    arguments,
                    timeout=timeout,
                    structured=structured,
                    elicitations=elicitations,
                )
            if exc.code == types.CONNECTION_CLOSED:
                self._mark_broken(client, "the connection closed during a call")
                return MCPToolResult.failure(
                    "connection_lost",
                    f"MCP server '{name}' stopped during the call (it exited or was killed); "
                    "it is being restarted, so the call may be tried again",
                )
            return MCPToolResult.failure(
                "protocol_error", f"MCP server '{name}' refused the call: {exc.error.message}"
            )
        except (RuntimeError, ValueError) as exc:
            # The SDK checks a result against the tool's declared output schema.
            logger.info("MCP server '%s' gave an unusable result for %s: %s", name, tool, exc)
            return MCPToolResult.failure(
                "invalid_result",
                f"MCP server '{name}' returned a result for '{tool}' that does not match the "
                "tool's declared output",
            )
        except Exception as exc:
            self._mark_broken(client, _reason(exc, self.config))
            return MCPToolResult.failure(
                "connection_lost",
                f"MCP server '{name}' could not be reached during the call; it is being "
                "restarted, so the call may be tried again",
            )
        return to_result(result, structured=structured)

    async def _session_gone(self, client: Client) -> bool:
        """Whether an HTTP server refused ``client``'s session itself, not one request.

        A legacy (session-id) server that restarted answers every request of the old session
        with 404, which the SDK reports as an invalid request; another request of the session
        (``tools/list``: ``ping`` is gone from the 2026-07-28 protocol) tells that apart from a
        server refusing one call. A gone session is marked broken, so it is reconnected.
        """
        if self.config.url is None:
            return False
        try:
            with anyio.fail_after(min(PROBE_TIMEOUT, self.config.timeout)):
                await client.list_tools()
        except Exception as exc:
            self._mark_broken(
                client, f"it no longer knows the session ({_reason(exc, self.config)})"
            )
            return True
        return False

    async def _call_again(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float,
        structured: bool,
        elicitations: CallElicitations | None,
    ) -> MCPToolResult:
        """The call, once more, on the session that replaces a gone one."""
        logger.info("MCP server '%s' lost its session; reconnecting for the call", self.config.name)
        return await self.call(
            tool,
            arguments,
            timeout=timeout,
            structured=structured,
            retry=False,
            elicitations=elicitations,
        )

    def _timed_out(self, client: Client, tool: str, timeout: float) -> MCPToolResult:
        self._probe(client)
        return MCPToolResult.failure(
            "timeout",
            f"The tool '{tool}' of MCP server '{self.config.name}' did not answer within "
            f"{timeout:g} s; the call was cancelled",
        )

    def _mark_broken(self, client: Client, reason: str) -> None:
        if self._client is client and self._broken is None:
            self._broken = reason
            self._client = None  # no new call goes to a broken session
            self._wake.set()

    def _exited(self, returncode: int) -> None:
        """The server process exited by itself: the session is broken, restart it now."""
        if self._broken is None:
            self._broken = _exit_reason(returncode)
        self._client = None  # no new call goes to a server that is gone
        self._wake.set()

    def _probe(self, client: Client) -> None:
        """After a timeout, check in the background that the server still answers at all."""

        async def probe() -> None:
            try:
                with anyio.fail_after(min(PROBE_TIMEOUT, self.config.timeout)):
                    await client.list_tools()
            except Exception:
                self._mark_broken(client, "it stopped answering (a call hung past its timeout)")
            else:
                logger.debug(
                    "MCP server '%s' still answers after a call timed out: not restarted",
                    self.config.name,
                )

        task = asyncio.get_running_loop().create_task(probe())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

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


async def _list_tools(client: Client) -> Listing:
    tools: list[Mapping[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += [
            tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in page.tools
        ]
        cursor = page.next_cursor
        if cursor is None:
            break
    return tuple(tools)


def _listens(client: Client) -> bool:
    """Whether tool-list changes come over a ``subscriptions/listen`` stream (2026-07-28)."""
    capability = client.server_capabilities.tools
    return (
        client.protocol_version in MODERN_PROTOCOL_VERSIONS
        and capability is not None
        and bool(capability.list_changed)
    )


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _reason(exc: BaseException, config: MCPServerConfig) -> str:
    """One line saying what ``exc`` means for a server, from the SDK's and the OS's errors."""
    leaves = [leaf for leaf in _leaves(exc) if not isinstance(leaf, asyncio.CancelledError)]
    leaf = leaves[0] if leaves else exc
    if isinstance(leaf, FileNotFoundError):
        if config.cwd is not None and leaf.filename == config.cwd:
            return f"its working directory {config.cwd} does not exist"
        return f"the command {config.command!r} was not found"
    if isinstance(leaf, PermissionError):
        return f"the command {config.command!r} could not be run (permission denied)"
    if isinstance(leaf, MCPError):
        if leaf.code == types.CONNECTION_CLOSED:
            return "the server closed the connection (it exited or crashed)"
        return f"the server answered with an error: {leaf.error.message}"
    if isinstance(leaf, httpx2.HTTPError):
        return f"HTTP error talking to {config.url}: {leaf}"
    return f"{type(leaf).__name__}: {leaf}"


def _exit_reason(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"its process was killed by {name}"
    return f"its process exited with code {returncode}"


def _given(answer: ElicitationAnswer) -> ElicitationAnswerer:
    """An answerer that answers ``answer`` (a decision already made)."""

    def given(request: ElicitationRequest) -> ElicitationAnswer:
        del request
        return answer

    return given
