"""`MCPClientPool`: one session per MCP server, shared by every thinker and every call.

A server configured ``sessions = "conversation"`` also gets one session per conversation,
opened at the conversation's first call of one of its tools and closed when it ends
(`MCPClientPool.end_conversation`); its shared session still lists the tools and serves the
calls made outside any conversation.

Each server's session lives inside the SDK's context managers, in one task on one event loop,
its *host*:

* the event loop the pool was entered on with ``async with`` (its *home loop*): a call made on
  that loop awaits the session directly, with nothing in between;
* otherwise the pool's own event loop, in a background thread: a call from any other thread or
  loop is handed to it and awaited where it was made.

Either way the time limit is enforced on both sides, so a server that dies or hangs produces
an error result in time, never a hang. Leaving the ``async with`` block (or `close`, or the pool
being garbage-collected, or the interpreter exiting) closes every session, and each stdio
server's whole process group is stopped, so no process it started is left.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import logging
import queue
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from nucleo_core.mcp._features import ClientFeatures
from nucleo_core.mcp.elicitation import CallElicitations
from nucleo_core.mcp.errors import MISSING_SDK, MCPConfigError, MCPServerUnavailable
from nucleo_core.mcp.report import MCPServerStatus
from nucleo_core.mcp.result import MCPToolResult

if TYPE_CHECKING:
    from types import TracebackType

    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.mcp._session import Listing, ServerSession
    from nucleo_core.mcp.config import MCPServerConfig
    from nucleo_core.mcp.elicitation import ElicitationAnswerer
    from nucleo_core.mcp.sampling import Sampler

__all__ = ["ListingListener", "MCPClientPool"]

logger = logging.getLogger("nucleo.mcp")

#: Called with a server's id and its tools (wire form) whenever a session lists them: at
#: start, after each restart, and after each ``tools/list_changed``. Runs on the pool's
#: notifier thread, one call at a time, in order; it may block, and may call back into the pool.
ListingListener = Callable[[str, "tuple[Mapping[str, Any], ...]"], None]

#: Slack added to a caller-side wait over the session's own limits (the session answers
#: first: it allows a call its timeout plus the write's grace of 2 s).
_GRACE = 3.0
#: The most a caller waits for a session's restart backoff on top of its start time.
_BACKOFF_CAP = 4.0
#: How long closing waits for every session to end.
_CLOSE_TIMEOUT = 30.0

_T = TypeVar("_T")

#: What starting one server gave: its tools, or why it did not start.
_Started: TypeAlias = "tuple[Mapping[str, Any], ...] | MCPServerUnavailable"


class MCPClientPool:
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
        self._runtime = _Runtime(configs, features)
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
        config = self.config(server)
        runtime = self._runtime
        if config.disabled:
            return MCPServerStatus(
                name=server,
                state="disabled",
                tools=None,
                restarts=0,
                error=None,
                stderr_tail="",
                protocol_version=None,
            )
        with runtime.lock:
            if conversation is None:
                session = runtime.sessions.get(server)
            else:
                session = runtime.conversation_sessions.get((server, conversation))
            conversations = sum(1 for name, _ in runtime.conversation_sessions if name == server)
        if session is None:
            return MCPServerStatus(
                name=server,
                state="closed" if self.closed else "idle",
                tools=None,
                restarts=0,
                error=None,
                stderr_tail="",
                protocol_version=None,
                conversations=conversations,
            )
        return MCPServerStatus(
            name=server,
            state=session.state,
            tools=None if session.tools is None else len(session.tools),
            restarts=session.restarts,
            error=None if session.error is None else str(session.error),
            stderr_tail=session.stderr_tail,
            protocol_version=session.protocol_version,
            host="home loop" if session.loop is self._runtime.home else "pool thread",
            conversations=conversations,
        )

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
        return self._missed(self._runtime.start_all(names, bound))

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
        return self._missed(await self._runtime.astart_all(names, bound))

    def _starting(self, servers: Iterable[str] | None) -> tuple[list[str], float]:
        names = list(self._runtime.configs if servers is None else servers)
        for name in names:
            self.config(name)
        limit = max((self._runtime.configs[n].startup_timeout for n in names), default=0.0)
        return names, limit + _BACKOFF_CAP + _GRACE

    def _missed(
        self, outcomes: Mapping[str, _Started | None]
    ) -> dict[str, tuple[Mapping[str, Any], ...] | MCPServerUnavailable]:
        """The outcomes, a server that did not answer in time (``None``) said as such."""
        return {
            name: outcome
            if outcome is not None
            else MCPServerUnavailable(
                name, "it did not start in time", command=self._runtime.configs[name].describe()
            )
            for name, outcome in outcomes.items()
        }

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
                result = await self._runtime.relay(session.loop, calling, bound)
        except MCPServerUnavailable as exc:
            return _unavailable(exc)
        except RuntimeError:
            return MCPToolResult.failure("unavailable", "the MCP client pool is closed")
        except TimeoutError:
            return MCPToolResult.failure(
                "timeout", f"MCP server '{server}' did not answer within {bound:g} s"
            )
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
            return MCPToolResult.failure("unavailable", "the MCP client pool is closed")
        try:
            return self._runtime.run(
                session.loop,
                session.call(tool, dict(arguments), timeout=limit, structured=structured),
                bound,
            )
        except TimeoutError:
            return MCPToolResult.failure(
                "timeout", f"MCP server '{server}' did not answer within {bound:g} s"
            )

    def _limits(self, server: str, timeout: float | None) -> tuple[float, float]:
        """A call's own time limit, and the caller's bound over everything the pool may do."""
        config = self.config(server)
        limit = timeout if timeout is not None else config.timeout
        return limit, limit + config.startup_timeout + _BACKOFF_CAP + _GRACE

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

    async def __aenter__(self) -> MCPClientPool:
        """Make the running event loop the pool's home loop (see the class); enter once.

        Raises:
            RuntimeError: The pool was entered already, or is closed.
        """
        self._runtime.bind(asyncio.get_running_loop())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __enter__(self) -> MCPClientPool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self._runtime.configs)} servers"
        return f"<MCPClientPool {state}>"


class _Runtime:
    """The pool's loops, threads and sessions; holds no reference to the pool itself.

    Kept apart so that the pool's finalizer (run when the pool is closed, collected, or the
    interpreter exits) can close everything without keeping the pool alive.
    """

    def __init__(self, configs: Mapping[str, MCPServerConfig], features: ClientFeatures) -> None:
        self.configs = dict(configs)
        self.features = features
        self.sessions: dict[str, ServerSession] = {}
        #: The sessions of servers configured ``sessions = "conversation"``, by (server,
        #: conversation id).
        self.conversation_sessions: dict[tuple[str, str], ServerSession] = {}
        #: Conversation sessions whose closing was scheduled and has not finished, and the
        #: tasks closing them (held here: a loop keeps only weak references to its tasks).
        self._ending: set[ServerSession] = set()
        self._ending_tasks: set[asyncio.Task[None]] = set()
        self.listeners: list[Callable[[], ListingListener | None]] = []
        self.lock = threading.Lock()
        self.closed = False
        #: The loop the pool was entered on with ``async with``, and its thread's id.
        self.home: asyncio.AbstractEventLoop | None = None
        self._home_thread: int | None = None
        #: Closings scheduled on the home loop by a `close` made on its own thread.
        self._closing: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._notices: queue.SimpleQueue[tuple[str, Listing] | None] = queue.SimpleQueue()
        self._notifier: threading.Thread | None = None

    # -- where sessions live ------------------------------------------------------------------

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        with self.lock:
            if self.closed:
                raise RuntimeError("the MCP client pool is closed")
            if self.home is not None:
                raise RuntimeError(
                    "this MCP client pool was already entered with 'async with'; enter it once"
                )
            self.home, self._home_thread = loop, threading.get_ident()

    def session_for(
        self, server: str, *, blocking: bool, conversation: str | None = None
    ) -> ServerSession:
        """The session of ``server``; a new one is placed on its host loop (see the module).

        A server configured ``sessions = "conversation"`` gives a call for ``conversation``
        that conversation's own session; every other call gets the shared one.

        Raises:
            RuntimeError: The pool is closed.
            MCPServerUnavailable: The MCP SDK is not installed, or the server is disabled.
        """
        config = self.configs[server]
        if config.disabled:
            raise MCPServerUnavailable(
                server,
                "it is disabled in its configuration (disabled = true); remove that to use it",
                command=config.describe(),
            )
        key = (
            (server, conversation)
            if conversation is not None and config.sessions == "conversation"
            else None
        )
        with self.lock:
            if self.closed:
                raise RuntimeError("the MCP client pool is closed")
            found = (
                self.sessions.get(server) if key is None else self.conversation_sessions.get(key)
            )
            if found is not None:
                return found
            home = self.home
            if home is not None and home.is_running() and not (blocking and self._on_home()):
                loop = home
            else:  # no home loop, or a blocking call on its thread: the pool's own thread
                loop = self._own_loop()
            if self._notifier is None:
                self._notifier = threading.Thread(
                    target=self._deliver, name="nucleo-mcp-notify", daemon=True
                )
                self._notifier.start()
            try:
                from nucleo_core.mcp._session import ServerSession
            except ImportError as exc:  # the SDK (the mcp extra) is not installed
                raise MCPServerUnavailable(
                    server, MISSING_SDK, command=self.configs[server].describe()
                ) from exc

            if key is None:
                found = self.sessions[server] = ServerSession(
                    config, self.notify, loop, features=self.features
                )
            else:
                # Its listings are not the catalog's: the shared session's are (a tool one
                # conversation's server adds is not offered to every other conversation).
                found = self.conversation_sessions[key] = ServerSession(
                    config, _unlisted, loop, conversation=conversation, features=self.features
                )
            return found

    def end_conversation(self, conversation: str | None, server: str | None) -> None:
        """Schedule the closing of the conversation sessions named; never blocks."""
        with self.lock:
            if self.closed:  # closing the pool closes them (and waits for them)
                return
            keys = [
                key
                for key in self.conversation_sessions
                if (server is None or key[0] == server)
                and (conversation is None or key[1] == conversation)
            ]
            ending = [self.conversation_sessions.pop(key) for key in keys]
            self._ending.update(ending)
        for session in ending:
            self._schedule_close(session)

    def _schedule_close(self, session: ServerSession) -> None:
        """Close ``session`` on its loop, in a task of its own: started here, never awaited here.

        The caller may be on that loop's own thread (a thinker's run ending on the home
        loop), which must not wait for it. Until the task ends the session stays in
        ``_ending``, so that closing the pool closes it too and waits for it.
        """
        loop = session.loop

        def begin() -> None:  # on the session's loop
            task = loop.create_task(session.close(), name=f"nucleo-mcp-end:{session.config.name}")
            with self.lock:
                self._ending_tasks.add(task)
            task.add_done_callback(lambda done: self._ended(session, done))

        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            begin()
            return
        try:
            loop.call_soon_threadsafe(begin)
        except RuntimeError:  # its loop is closed: its tasks, and its server, ended with it
            with self.lock:
                self._ending.discard(session)

    def _ended(self, session: ServerSession, task: asyncio.Task[None]) -> None:
        with self.lock:
            self._ending.discard(session)
            self._ending_tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            logger.warning(
                "closing a conversation session of MCP server '%s' failed",
                session.config.name,
                exc_info=error,
            )

    def _own_loop(self) -> asyncio.AbstractEventLoop:
        """The pool's own loop, started on first need (the lock is held)."""
        if self._loop is None:
            loop = asyncio.new_event_loop()
            ready = threading.Event()
            # A daemon thread: at interpreter exit, the non-daemon threads are joined before
            # atexit runs the finalizer that closes the sessions on this loop.
            thread = threading.Thread(
                target=_run_loop, args=(loop, ready), name="nucleo-mcp-pool", daemon=True
            )
            thread.start()
            ready.wait()
            self._loop, self._thread = loop, thread
        return self._loop

    def _on_home(self) -> bool:
        return self._home_thread == threading.get_ident()

    def _blocks(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether waiting here for ``loop`` would stop it (this is its thread, or a pool's)."""
        if loop is self.home and self._on_home():
            return True
        current = threading.current_thread()
        return current is self._thread or current is self._notifier

    # -- crossing to a session's loop ---------------------------------------------------------

    async def relay(
        self, loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, _T], timeout: float
    ) -> _T:
        """Run ``coroutine`` on ``loop`` and await it from the caller's loop.

        On ``loop`` itself (the home loop, for a call made there) the coroutine is awaited
        directly. Otherwise one wake-up each way (``call_soon_threadsafe``): none of the
        concurrent future, its lock and chained callbacks that ``run_coroutine_threadsafe`` and
        ``wrap_future`` add, nor the extra loop step of ``wait_for``.

        Raises:
            RuntimeError: ``loop`` is closed (the pool was closed).
            TimeoutError: No answer within ``timeout``; the call is cancelled on ``loop`` (as
                it is when the caller is cancelled).
        """
        caller = asyncio.get_running_loop()
        if caller is loop:
            async with asyncio.timeout(timeout):
                return await coroutine
        answer: asyncio.Future[_T] = caller.create_future()
        started: list[asyncio.Task[_T]] = []

        def settle(task: asyncio.Task[_T]) -> None:  # on the caller's loop
            if answer.done():
                return
            if task.cancelled():
                answer.cancel()
            elif (error := task.exception()) is not None:
                answer.set_exception(error)
            else:
                answer.set_result(task.result())

        def finished(task: asyncio.Task[_T]) -> None:  # on the session's loop
            with contextlib.suppress(RuntimeError):  # the caller's loop was closed meanwhile
                caller.call_soon_threadsafe(settle, task)

        def start() -> None:  # on the session's loop
            task = loop.create_task(coroutine)
            task.add_done_callback(finished)
            started.append(task)

        def expire() -> None:  # on the caller's loop
            if not answer.done():
                answer.set_exception(TimeoutError())

        def stop() -> None:  # on the session's loop
            for task in started:
                task.cancel()

        try:
            loop.call_soon_threadsafe(start)
        except RuntimeError:
            coroutine.close()
            raise
        timer = caller.call_later(timeout, expire)
        answered = False
        try:
            result = await answer
            answered = True
            return result
        finally:
            timer.cancel()
            if not answered:  # timed out, or the caller was cancelled: stop the call too
                with contextlib.suppress(RuntimeError):  # the session's loop is closed
                    loop.call_soon_threadsafe(stop)

    def run(
        self, loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, _T], timeout: float
    ) -> _T:
        """Run ``coroutine`` on ``loop`` and wait for it (from a thread that may block).

        Raises:
            RuntimeError: Waiting here would block ``loop`` itself, or ``loop`` is closed.
            TimeoutError: No answer within ``timeout`` (the call is cancelled).
        """
        if self._blocks(loop):
            coroutine.close()
            raise RuntimeError(
                "a blocking MCP pool call cannot be made from the thread of the event loop the "
                "server's session lives on (nor from the pool's threads); await it instead"
            )
        try:
            future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        except RuntimeError:
            coroutine.close()
            raise
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError from None

    # -- starting -----------------------------------------------------------------------------

    def _hosts(
        self, names: list[str], *, blocking: bool
    ) -> tuple[dict[str, _Started | None], dict[asyncio.AbstractEventLoop, list[ServerSession]]]:
        """The servers already running (with their tools), and the others by host loop."""
        ready: dict[str, _Started | None] = {}
        hosts: dict[asyncio.AbstractEventLoop, list[ServerSession]] = {}
        for name in names:
            try:
                session = self.session_for(name, blocking=blocking)
            except MCPServerUnavailable as exc:
                ready[name] = exc
                continue
            if session.state == "ready" and session.tools is not None:
                ready[name] = session.tools
            else:
                hosts.setdefault(session.loop, []).append(session)
        return ready, hosts

    def start_all(self, names: list[str], timeout: float) -> dict[str, _Started | None]:
        ready, hosts = self._hosts(names, blocking=True)
        waiting: list[tuple[list[ServerSession], concurrent.futures.Future[dict[str, _Started]]]]
        waiting = []
        for loop, sessions in hosts.items():
            if self._blocks(loop):
                raise RuntimeError(
                    "MCP servers cannot be started by a blocking call from the thread of the "
                    "event loop they start on (nor from the pool's threads); await astart()"
                )
            waiting.append((sessions, asyncio.run_coroutine_threadsafe(_start(sessions), loop)))
        outcomes: dict[str, _Started | None] = dict(ready)
        deadline = time.monotonic() + timeout
        for sessions, future in waiting:
            try:
                outcomes.update(future.result(max(0.0, deadline - time.monotonic())))
            except concurrent.futures.TimeoutError:
                future.cancel()
                outcomes.update((session.config.name, None) for session in sessions)
        return {name: outcomes[name] for name in names}

    async def astart_all(self, names: list[str], timeout: float) -> dict[str, _Started | None]:
        ready, hosts = self._hosts(names, blocking=False)

        async def on(
            loop: asyncio.AbstractEventLoop, sessions: list[ServerSession]
        ) -> dict[str, _Started | None]:
            try:
                return dict(await self.relay(loop, _start(sessions), timeout))
            except TimeoutError:
                return {session.config.name: None for session in sessions}

        outcomes: dict[str, _Started | None] = dict(ready)
        for started in await asyncio.gather(*(on(*host) for host in hosts.items())):
            outcomes.update(started)
        return {name: outcomes[name] for name in names}

    # -- listings -----------------------------------------------------------------------------

    def notify(self, server: str, tools: Listing) -> None:
        """Queue a listing for the listeners (called on a session's loop; never blocks it)."""
        self._notices.put((server, tools))

    def _deliver(self) -> None:
        while True:
            notice = self._notices.get()
            if notice is None:
                return
            self._deliver_one(*notice)
            del notice

    def _deliver_one(self, server: str, tools: Listing) -> None:
        # A function of its own: no listener stays referenced by the waiting loop's frame.
        with self.lock:
            listeners = [entry() for entry in self.listeners]
        for listener in listeners:
            if listener is None:  # its object was collected
                continue
            try:
                listener(server, tools)
            except Exception:
                logger.exception("an MCP listing listener failed for server '%s'", server)

    # -- closing ------------------------------------------------------------------------------

    def _begin_close(self) -> dict[asyncio.AbstractEventLoop, list[ServerSession]] | None:
        """Mark the pool closed; its sessions by host loop (``None``: it was closed already)."""
        with self.lock:
            if self.closed:
                return None
            self.closed = True
            hosts: dict[asyncio.AbstractEventLoop, list[ServerSession]] = {}
            # The sessions still closing too: closing one again waits for the same end.
            every = [*self.sessions.values(), *self.conversation_sessions.values(), *self._ending]
            self.conversation_sessions.clear()
            for session in every:
                hosts.setdefault(session.loop, []).append(session)
            return hosts

    def shutdown(self) -> None:
        """Close every session and stop the threads (`MCPClientPool.close`, the finalizer)."""
        current = threading.current_thread()
        if current is self._thread or current is self._notifier:
            # Collected (or closed) on one of the pool's own threads, which cannot wait for
            # themselves: close from a thread of its own.
            threading.Thread(target=self._shutdown, name="nucleo-mcp-close", daemon=True).start()
            return
        self._shutdown()

    def _shutdown(self) -> None:
        hosts = self._begin_close()
        if hosts is not None:
            self._close_hosted(hosts)

    async def aclose(self) -> None:
        """Close the sessions on the running loop here, the others from a worker thread."""
        hosts = self._begin_close()
        if hosts is not None:
            here = hosts.pop(asyncio.get_running_loop(), [])
            if here:
                await _close(here)
            await asyncio.to_thread(self._close_hosted, hosts)
        await self.closing_here()

    async def closing_here(self) -> None:
        """Wait for the closings a `close` on this loop's thread scheduled on it."""
        loop = asyncio.get_running_loop()
        closing = [task for task in self._closing if task.get_loop() is loop]
        if closing:
            await asyncio.wait(closing, timeout=_CLOSE_TIMEOUT)

    def _close_hosted(self, hosts: dict[asyncio.AbstractEventLoop, list[ServerSession]]) -> None:
        """Close ``hosts``' sessions, stop the pool's own loop and the notifier; blocks."""
        own = self._loop
        for loop, sessions in hosts.items():
            if loop is own:
                continue
            if loop.is_closed() or not loop.is_running():
                # Its loop ended (its tasks, and with them the servers, were stopped then).
                logger.warning("MCP sessions outlived their event loop; they end with it")
            elif self._blocks(loop):  # on the home loop's thread: close there, awaited later
                self._closing.append(loop.create_task(_close(sessions)))
            else:
                _close_on(loop, sessions)
        current = threading.current_thread()
        if own is not None and self._thread is not None:
            _close_on(own, hosts.get(own, []))
            own.call_soon_threadsafe(own.stop)
            self._thread.join(_CLOSE_TIMEOUT)
        self._notices.put(None)
        if self._notifier is not None and current is not self._notifier:
            self._notifier.join(_CLOSE_TIMEOUT)


def _unlisted(server: str, tools: Listing) -> None:
    """The listener of a conversation session's listings: none."""
    del server, tools


def _unavailable(exc: MCPServerUnavailable) -> MCPToolResult:
    return MCPToolResult.failure(
        "unavailable", f"MCP server '{exc.server}' is unavailable ({exc.reason})"
    )


async def _start(sessions: list[ServerSession]) -> dict[str, _Started]:
    """Start ``sessions`` at once, on their loop: each one's tools, or why it did not start."""

    async def one(session: ServerSession) -> _Started:
        try:
            await session.ensure_started()
        except MCPServerUnavailable as exc:
            return exc
        return session.tools if session.tools is not None else ()

    results = await asyncio.gather(*(one(session) for session in sessions))
    return {session.config.name: result for session, result in zip(sessions, results, strict=True)}


async def _close(sessions: list[ServerSession]) -> None:
    await asyncio.gather(*(session.close() for session in sessions))


def _close_on(loop: asyncio.AbstractEventLoop, sessions: list[ServerSession]) -> None:
    """Close ``sessions`` on ``loop``, running in another thread, and wait (bounded)."""
    future = asyncio.run_coroutine_threadsafe(_close(sessions), loop)
    try:
        future.result(_CLOSE_TIMEOUT)
    except Exception:
        logger.exception("closing the MCP sessions failed")


def _run_loop(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(ready.set)
    try:
        loop.run_forever()
    finally:
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
