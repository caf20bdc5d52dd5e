"""`MCPClientPool`: one session per MCP server, shared by every thinker and every call.

A server configured ``sessions = "conversation"`` also gets one session per conversation,
opened at the conversation's first call of one of its tools and closed when it ends
(`MCPClientPool.end_conversation`); its shared session still lists the tools and serves the
calls made outside any conversation.

Where each session lives (the pool's own thread, or the event loop it was entered on) and how
a call reaches it is the pool's runtime (`nucleo_core.mcp._pool_runtime`): a server that dies
or hangs produces an error result in time, never a hang, and closing the pool stops every
process a stdio server started.
"""

from __future__ import annotations

import asyncio
import inspect
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Self

from nucleo_core._closing import AsyncClosesOnExit, ClosesOnExit
from nucleo_core.mcp._crossing import relay
from nucleo_core.mcp._features import ClientFeatures
from nucleo_core.mcp._pool_runtime import ListingListener, PoolRuntime
from nucleo_core.mcp._pool_start import astart_all, missed, start_all
from nucleo_core.mcp._pool_status import server_status
from nucleo_core.mcp._session_limits import BACKOFF_CAP
from nucleo_core.mcp.elicitation import CallElicitations
from nucleo_core.mcp.errors import MCPConfigError, MCPServerUnavailable
from nucleo_core.mcp.report import MCPServerStatus
from nucleo_core.mcp.result import MCPToolResult

if TYPE_CHECKING:
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.mcp.config import MCPServerConfig
    from nucleo_core.mcp.elicitation import ElicitationAnswerer
    from nucleo_core.mcp.sampling import Sampler

__all__ = ["ListingListener", "MCPClientPool"]

#: Slack added to a caller-side wait over the session's own limits (the session answers
#: first: it allows a call its timeout plus the write's grace of 2 s).
_GRACE = 3.0


class MCPClientPool(ClosesOnExit, AsyncClosesOnExit):
    """Sessions to the configured MCP servers, started when first needed.

    Every method is safe to call from any thread; `call` and `astart` are awaitable from any
    event loop. In async code, enter the pool with ``async with``: the sessions started from
    then on live on that event loop (its *home loop*), so a call made there reaches its server
    with nothing in between, and leaving the block closes every session on that loop before it
    ends. Sessions started before, or by a blocking call (`start`, `call_sync`) made on the home
    loop's own thread, live on the pool's own thread, and calls to them cross to it and back.

    Example:
        >>> from nucleo_core.mcp import MCPClientPool, MCPServerConfig
        >>> pool = MCPClientPool([MCPServerConfig(name="time", command="mcp-server-time")])
        >>> pool.status("time").state
        'idle'
        >>> pool.close()

    Servers may ask the client in turn (the client declares these capabilities to every
    server, so none hides tools from it): ``roots/list`` is answered with each server's
    configured roots (`MCPServerConfig.root_paths`); an elicitation is asked of
    ``elicitation`` and declined without one; a sampling request is refused unless the
    server's configuration enables ``sampling``, and then served by ``sampler``. A server
    configured ``disabled = true`` is never started.

    Args:
        servers: The server configurations (ids must be unique).
        elicitation: Answers the servers' elicitation requests (see
            `nucleo_core.mcp.elicitation`); ``None`` declines every one.
        sampler: Serves the sampling requests the configuration allows (see
            `nucleo_core.mcp.sampling`); a `CatalogSampler` on the project's model catalog
            by default.
        audit: An audit log where each sampling request's decision is recorded (a
            ``permission`` record, source ``mcp:<server>:sampling``), besides the
            ``nucleo.mcp`` logger.
    """

    def __init__(
        self,
        servers: Iterable[MCPServerConfig],
        *,
        elicitation: ElicitationAnswerer | None = None,
        sampler: Sampler | None = None,
        audit: AuditLog | None = None,
    ) -> None:
        configs: dict[str, MCPServerConfig] = {}
        for config in servers:
            if config.name in configs:
                raise MCPConfigError(
                    f"{config.origin}: MCP server '{config.name}' is configured twice "
                    f"(also in {configs[config.name].origin})"
                )
            configs[config.name] = config
        features = ClientFeatures(elicitation=elicitation, sampler=sampler, audit=audit)
        self._runtime = PoolRuntime(configs, features)
        self._finalizer = weakref.finalize(self, self._runtime.shutdown)

    # -- configuration and state --------------------------------------------------------------

    @property
    def configs(self) -> Mapping[str, MCPServerConfig]:
        """The server configurations, by id, in configuration order."""
        return dict(self._runtime.configs)

    @property
    def closed(self) -> bool:
        """Whether the pool was closed."""
        return self._runtime.closed

    def config(self, server: str) -> MCPServerConfig:
        """The configuration of ``server``.

        Raises:
            KeyError: No server has that id.
        """
        try:
            return self._runtime.configs[server]
        except KeyError:
            raise KeyError(f"no MCP server is configured with the id {server!r}") from None

    def status(self, server: str, conversation: str | None = None) -> MCPServerStatus:
        """The session state of ``server`` now.

        Args:
            server: The server's id.
            conversation: The conversation whose own session to describe (a server configured
                ``sessions = "conversation"``); its shared session by default.
        """
        return server_status(self._runtime, self.config(server), conversation)

    def conversations(self, server: str | None = None) -> tuple[str, ...]:
        """The conversations that have a session of their own now (of ``server``, or any).

        Only servers configured ``sessions = "conversation"`` have such sessions; each is
        closed when its conversation ends (`end_conversation`).
        """
        if server is not None:
            self.config(server)
        with self._runtime.lock:
            found = [
                conversation
                for name, conversation in self._runtime.conversation_sessions
                if server is None or name == server
            ]
        return tuple(dict.fromkeys(found))

    def tools(self, server: str) -> tuple[Mapping[str, Any], ...] | None:
        """The tools ``server`` last listed (wire form), or ``None`` if it never listed."""
        self.config(server)
        session = self._runtime.sessions.get(server)
        return None if session is None else session.tools

    def add_listener(self, listener: ListingListener) -> None:
        """Be told of every listing (see `ListingListener`).

        A bound method is held weakly, so that its object (`MCPServers`, say) can be collected
        and its pool closed by the finalizer; a plain function is held as it is.
        """
        entry: Callable[[], ListingListener | None]
        if inspect.ismethod(listener):
            entry = weakref.WeakMethod(listener)
        else:

            def entry() -> ListingListener:
                return listener

        with self._runtime.lock:
            self._runtime.listeners.append(entry)

    # -- starting -----------------------------------------------------------------------------

    def start(self, server: str) -> tuple[Mapping[str, Any], ...]:
        """Start ``server`` (if it is not running) and return its tools; blocks.

        Raises:
            MCPServerUnavailable: It did not start; the error holds the command and the tail
                of its stderr.
            RuntimeError: Called from the pool's own threads, or after `close`, or on the home
                loop's thread while the server starts there (``await`` `astart` instead).
        """
        outcome = self.start_all([server])[server]
        if isinstance(outcome, MCPServerUnavailable):
            raise outcome
        return outcome

    def start_all(
        self, servers: Iterable[str] | None = None
    ) -> dict[str, tuple[Mapping[str, Any], ...] | MCPServerUnavailable]:
        """Start several servers at once (all by default); blocks until each started or failed.

        Returns:
            Each server's tools, or the `MCPServerUnavailable` saying why it did not start;
            one server failing never keeps the others from starting.

        Raises:
            RuntimeError: As for `start`.
        """
        names, bound = self._starting(servers)
        return missed(self._runtime, start_all(self._runtime, names, bound))

    async def astart(self, server: str) -> tuple[Mapping[str, Any], ...]:
        """`start`, awaitable from any event loop (on the home loop, the server starts there).

        Raises:
            MCPServerUnavailable: It did not start.
            RuntimeError: The pool is closed.
        """
        outcome = (await self.astart_all([server]))[server]
        if isinstance(outcome, MCPServerUnavailable):
            raise outcome
        return outcome

    async def astart_all(
        self, servers: Iterable[str] | None = None
    ) -> dict[str, tuple[Mapping[str, Any], ...] | MCPServerUnavailable]:
        """`start_all`, awaitable from any event loop.

        Raises:
            RuntimeError: The pool is closed.
        """
        names, bound = self._starting(servers)
        return missed(self._runtime, await astart_all(self._runtime, names, bound))

    def _starting(self, servers: Iterable[str] | None) -> tuple[list[str], float]:
        names = list(self._runtime.configs if servers is None else servers)
        for name in names:
            self.config(name)
        limit = max((self._runtime.configs[n].startup_timeout for n in names), default=0.0)
        return names, limit + BACKOFF_CAP + _GRACE

    # -- calls --------------------------------------------------------------------------------

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,
        structured: bool = False,
        conversation: str | None = None,
    ) -> MCPToolResult:
        """Call ``tool`` on ``server`` (starting it if needed); awaitable from any event loop.

        Every failure is an error result, never an exception: a server that cannot start, a
        call past ``timeout``, a server that dies mid-call, the server's own ``isError``.

        Args:
            server: The server's id.
            tool: The tool's name on the server (without any prefix).
            arguments: The validated arguments.
            timeout: Seconds the call may take; the server's configured timeout by default.
            structured: Keep the ``structuredContent`` (the tool declares an output schema).
            conversation: The conversation the call belongs to. For a server configured
                ``sessions = "conversation"`` the call goes to that conversation's own session
                (opened now if it has none, a fresh one after `end_conversation`); ``None``,
                and any call to a shared server, goes to the shared session.
        """
        limit, bound = self._limits(server, timeout)
        # Taken here, in the caller's context: the session may answer on another loop.
        elicitations = CallElicitations.now(server, tool)
        try:
            session = self._runtime.session_for(server, blocking=False, conversation=conversation)
            calling = session.call(
                tool,
                dict(arguments),
                timeout=limit,
                structured=structured,
                elicitations=elicitations,
            )
            if session.loop is asyncio.get_running_loop():
                # On the session's own loop (its home loop): nothing in between. The session
                # bounds the call itself (its start, the request's write and its answer).
                result = await calling
            else:
                result = await relay(session.loop, calling, bound)
        except MCPServerUnavailable as exc:
            return _unavailable(exc)
        except RuntimeError:
            return _closed()
        except TimeoutError:
            return _timed_out(server, bound)
        if elicitations is not None and elicitations.pending is not None:
            # The server asked for input nobody could give now: the durable run pauses.
            from nucleo_core.thinking._execution_durable import ElicitationPaused

            raise ElicitationPaused(elicitations.pending)
        return result

    def call_sync(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,
        structured: bool = False,
        conversation: str | None = None,
    ) -> MCPToolResult:
        """`call` from synchronous code (not from the pool's threads, nor the home loop's).

        Raises:
            RuntimeError: Called from a thread the call would block: the pool's own, or the
                home loop's while the server's session lives there (``await`` `call` instead).
        """
        limit, bound = self._limits(server, timeout)
        try:
            session = self._runtime.session_for(server, blocking=True, conversation=conversation)
        except MCPServerUnavailable as exc:
            return _unavailable(exc)
        except RuntimeError:
            return _closed()
        try:
            return self._runtime.run(
                session.loop,
                session.call(tool, dict(arguments), timeout=limit, structured=structured),
                bound,
            )
        except TimeoutError:
            return _timed_out(server, bound)

    def _limits(self, server: str, timeout: float | None) -> tuple[float, float]:
        """A call's own time limit, and the caller's bound over everything the pool may do."""
        config = self.config(server)
        limit = timeout if timeout is not None else config.timeout
        return limit, limit + config.startup_timeout + BACKOFF_CAP + _GRACE

    # -- conversations ------------------------------------------------------------------------

    def end_conversation(
        self, conversation_id: str | None = None, *, server: str | None = None
    ) -> None:
        """Close the sessions kept for ``conversation_id`` (``None``: for every conversation).

        Only servers configured ``sessions = "conversation"`` keep such sessions; ``server``
        limits the closing to one of them. It never blocks, and may be called from any thread,
        the home loop's own included: each session is closed on its loop, its stdio server
        stopped (its whole process group) and reaped there; `aclose` and `close` still wait
        for a closing that is under way. A call made for the conversation afterwards opens a
        fresh session; a call still running on a closed session ends in an error result.
        """
        if server is not None:
            self.config(server)
        self._runtime.end_conversation(conversation_id, server)

    # -- entering and closing -----------------------------------------------------------------

    def close(self) -> None:
        """Close every session and stop the pool's threads; idempotent.

        Each stdio server is stopped as the MCP specification says (its stdin closed), then
        its whole process group (SIGTERM, then SIGKILL), so no process it started is left. Called
        on the home loop's own thread, it cannot wait for the sessions there: their closing
        then runs on that loop, and `aclose` (or leaving the ``async with`` block) awaits it.
        """
        self._finalizer()

    async def aclose(self) -> None:
        """`close`, awaitable from any event loop; awaits the sessions on this loop directly."""
        if self._finalizer.detach() is None:  # closed already: wait for what is still closing
            await self._runtime.closing_here()
            return
        await self._runtime.aclose()

    async def __aenter__(self) -> Self:
        """Make the running event loop the pool's home loop (see the class); enter once.

        Raises:
            RuntimeError: The pool was entered already, or is closed.
        """
        self._runtime.bind(asyncio.get_running_loop())
        return self

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self._runtime.configs)} servers"
        return f"<MCPClientPool {state}>"


def _closed() -> MCPToolResult:
    return MCPToolResult.failure("unavailable", "the MCP client pool is closed")


def _unavailable(exc: MCPServerUnavailable) -> MCPToolResult:
    return MCPToolResult.failure(
        "unavailable", f"MCP server '{exc.server}' is unavailable ({exc.reason})"
    )


def _timed_out(server: str, bound: float) -> MCPToolResult:
    return MCPToolResult.failure(
        "timeout", f"MCP server '{server}' did not answer within {bound:g} s"
    )
