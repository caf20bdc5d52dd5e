"""`MCPClientPool`: one session per MCP server, shared by every thinker and every call.

The pool runs its own event loop in a background thread, where each server's session lives
inside the SDK's context managers. Calls come from any thread or event loop: they are handed to
the pool's loop and awaited where they were made, with the time limit enforced on both sides,
so a server that dies or hangs produces an error result in time, never a hang.

Closing the pool (or the pool being garbage-collected, or the interpreter exiting) closes every
session; the SDK stops each stdio server's whole process group, so no child process is left.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import logging
import queue
import threading
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from nucleo_core.mcp.errors import MCPConfigError, MCPServerUnavailable
from nucleo_core.mcp.report import MCPServerStatus
from nucleo_core.mcp.result import MCPToolResult

if TYPE_CHECKING:
    from types import TracebackType

    from nucleo_core.mcp._session import Listing, ServerSession
    from nucleo_core.mcp.config import MCPServerConfig

__all__ = ["ListingListener", "MCPClientPool"]

logger = logging.getLogger("nucleo.mcp")

#: Called with a server's id and its tools (wire form) whenever a session lists them: at
#: start, after each restart, and after each ``tools/list_changed``. Runs on the pool's
#: notifier thread, one call at a time, in order; it may block, and may call back into the pool.
ListingListener = Callable[[str, "tuple[Mapping[str, Any], ...]"], None]

#: Slack added to a caller-side wait over the pool's own limits (the pool answers first).
_GRACE = 2.0
#: The most a caller waits for a session's restart backoff on top of its start time.
_BACKOFF_CAP = 4.0
#: How long closing waits for every session to end.
_CLOSE_TIMEOUT = 30.0

_T = TypeVar("_T")


class MCPClientPool:
    """Sessions to the configured MCP servers, started when first needed.

    Every method is safe to call from any thread; `call` is awaitable from any event loop.

    Example:
        >>> from nucleo_core.mcp import MCPClientPool, MCPServerConfig
        >>> pool = MCPClientPool([MCPServerConfig(name="time", command="mcp-server-time")])
        >>> pool.status("time").state
        'idle'
        >>> pool.close()

    Args:
        servers: The server configurations (ids must be unique).
    """

    def __init__(self, servers: Iterable[MCPServerConfig]) -> None:
        configs: dict[str, MCPServerConfig] = {}
        for config in servers:
            if config.name in configs:
                raise MCPConfigError(
                    f"{config.origin}: MCP server '{config.name}' is configured twice "
                    f"(also in {configs[config.name].origin})"
                )
            configs[config.name] = config
        self._runtime = _Runtime(configs)
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

    def status(self, server: str) -> MCPServerStatus:
        """The session state of ``server`` now."""
        self.config(server)
        session = self._runtime.sessions.get(server)
        if session is None:
            return MCPServerStatus(
                name=server,
                state="closed" if self.closed else "idle",
                tools=None,
                restarts=0,
                error=None,
                stderr_tail="",
                protocol_version=None,
            )
        return MCPServerStatus(
            name=server,
            state=session.state,
            tools=None if session.tools is None else len(session.tools),
            restarts=session.restarts,
            error=None if session.error is None else str(session.error),
            stderr_tail=session.stderr_tail,
            protocol_version=session.protocol_version,
        )

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
            RuntimeError: Called from the pool's own threads, or after `close`.
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
            RuntimeError: Called from the pool's own threads, or after `close`.
        """
        names = list(self._runtime.configs if servers is None else servers)
        for name in names:
            self.config(name)
        limit = max((self._runtime.configs[n].startup_timeout for n in names), default=0.0)
        try:
            return self._runtime.run(self._runtime.start_all(names), limit + _BACKOFF_CAP + _GRACE)
        except TimeoutError:
            return {
                name: MCPServerUnavailable(
                    name,
                    "it did not start in time",
                    command=self._runtime.configs[name].describe(),
                )
                for name in names
            }

    async def astart(self, server: str) -> tuple[Mapping[str, Any], ...]:
        """`start`, awaitable from any event loop."""
        return await asyncio.to_thread(self.start, server)

    # -- calls --------------------------------------------------------------------------------

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,
        structured: bool = False,
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
        """
        config = self.config(server)
        limit = timeout if timeout is not None else config.timeout
        if self.closed:
            return MCPToolResult.failure("unavailable", "the MCP client pool is closed")
        bound = limit + config.startup_timeout + _BACKOFF_CAP + _GRACE
        try:
            return await self._runtime.relay(
                self._runtime.call(server, tool, dict(arguments), limit, structured), bound
            )
        except RuntimeError:
            return MCPToolResult.failure("unavailable", "the MCP client pool is closed")
        except TimeoutError:
            return MCPToolResult.failure(
                "timeout", f"MCP server '{server}' did not answer within {bound:g} s"
            )

    def call_sync(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,
        structured: bool = False,
    ) -> MCPToolResult:
        """`call` from synchronous code (not from the pool's own threads)."""
        config = self.config(server)
        limit = timeout if timeout is not None else config.timeout
        if self.closed:
            return MCPToolResult.failure("unavailable", "the MCP client pool is closed")
        bound = limit + config.startup_timeout + _BACKOFF_CAP + _GRACE
        try:
            return self._runtime.run(
                self._runtime.call(server, tool, dict(arguments), limit, structured), bound
            )
        except TimeoutError:
            return MCPToolResult.failure(
                "timeout", f"MCP server '{server}' did not answer within {bound:g} s"
            )

    # -- closing ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close every session and stop the pool's threads; idempotent.

        Each stdio server is stopped as the MCP specification says (its stdin closed, then
        SIGTERM and SIGKILL to its process group), so no child process is left behind.
        """
        self._finalizer()

    async def aclose(self) -> None:
        """`close`, awaitable from any event loop."""
        await asyncio.to_thread(self.close)

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
    """The pool's loop, threads and sessions; holds no reference to the pool itself.

    Kept apart so that the pool's finalizer (run when the pool is closed, collected, or the
    interpreter exits) can close everything without keeping the pool alive.
    """

    def __init__(self, configs: Mapping[str, MCPServerConfig]) -> None:
        self.configs = dict(configs)
        self.sessions: dict[str, ServerSession] = {}
        self.listeners: list[Callable[[], ListingListener | None]] = []
        self.lock = threading.Lock()
        self.closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._notices: queue.SimpleQueue[tuple[str, Listing] | None] = queue.SimpleQueue()
        self._notifier: threading.Thread | None = None

    # -- the loop -----------------------------------------------------------------------------

    def loop(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.closed:
                raise RuntimeError("the MCP client pool is closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                # Daemon threads: at interpreter exit, the non-daemon threads are joined
                # before atexit runs the finalizer that closes the sessions on this loop.
                thread = threading.Thread(
                    target=_run_loop, args=(loop, ready), name="nucleo-mcp-pool", daemon=True
                )
                notifier = threading.Thread(
                    target=self._deliver, name="nucleo-mcp-notify", daemon=True
                )
                thread.start()
                notifier.start()
                ready.wait()
                self._loop, self._thread, self._notifier = loop, thread, notifier
            return self._loop

    def submit(self, coroutine: Coroutine[Any, Any, _T]) -> concurrent.futures.Future[_T]:
        try:
            loop = self.loop()
        except RuntimeError:
            coroutine.close()
            raise
        return asyncio.run_coroutine_threadsafe(coroutine, loop)

    async def relay(self, coroutine: Coroutine[Any, Any, _T], timeout: float) -> _T:
        """Run ``coroutine`` on the pool's loop and await it from the caller's loop.

        One wake-up each way (``call_soon_threadsafe``): none of the concurrent future, its
        lock and chained callbacks that ``run_coroutine_threadsafe`` and ``wrap_future`` add,
        nor the extra loop step of ``wait_for``. This hop is what a call through the pool costs
        over a session in the caller's own loop, so it is kept to the minimum.

        Raises:
            RuntimeError: The pool is closed.
            TimeoutError: No answer within ``timeout``; the call is cancelled on the pool's loop
                (as it is when the caller is cancelled).
        """
        try:
            loop = self.loop()
        except RuntimeError:
            coroutine.close()
            raise
        caller = asyncio.get_running_loop()
        if caller is loop:  # already on the pool's loop: no hop
            return await asyncio.wait_for(coroutine, timeout)
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

        def finished(task: asyncio.Task[_T]) -> None:  # on the pool's loop
            with contextlib.suppress(RuntimeError):  # the caller's loop was closed meanwhile
                caller.call_soon_threadsafe(settle, task)

        def start() -> None:  # on the pool's loop
            task = loop.create_task(coroutine)
            task.add_done_callback(finished)
            started.append(task)

        def expire() -> None:  # on the caller's loop
            if not answer.done():
                answer.set_exception(TimeoutError())

        def stop() -> None:  # on the pool's loop
            for task in started:
                task.cancel()

        loop.call_soon_threadsafe(start)
        timer = caller.call_later(timeout, expire)
        answered = False
        try:
            result = await answer
            answered = True
            return result
        finally:
            timer.cancel()
            if not answered:  # timed out, or the caller was cancelled: stop the call too
                with contextlib.suppress(RuntimeError):  # the pool's loop is closed
                    loop.call_soon_threadsafe(stop)

    def run(self, coroutine: Coroutine[Any, Any, _T], timeout: float) -> _T:
        """Run ``coroutine`` on the pool's loop and wait for it (not from the pool's threads)."""
        current = threading.current_thread()
        if current is self._thread or current is self._notifier:
            coroutine.close()
            raise RuntimeError("blocking MCP pool calls cannot be made from the pool's threads")
        future = self.submit(coroutine)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError from None

    # -- sessions (on the loop) ---------------------------------------------------------------

    def session(self, server: str) -> ServerSession:
        found = self.sessions.get(server)
        if found is None:
            from nucleo_core.mcp._session import ServerSession

            found = self.sessions[server] = ServerSession(self.configs[server], self.notify)
        return found

    async def start_all(
        self, names: list[str]
    ) -> dict[str, tuple[Mapping[str, Any], ...] | MCPServerUnavailable]:
        async def one(name: str) -> tuple[Mapping[str, Any], ...] | MCPServerUnavailable:
            try:
                await self.session(name).ensure_started()
            except MCPServerUnavailable as exc:
                return exc
            tools = self.sessions[name].tools
            return tools if tools is not None else ()

        results = await asyncio.gather(*(one(name) for name in names))
        return dict(zip(names, results, strict=True))

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        timeout: float,
        structured: bool,
    ) -> MCPToolResult:
        return await self.session(server).call(
            tool, arguments, timeout=timeout, structured=structured
        )

    async def close_sessions(self) -> None:
        await asyncio.gather(*(session.close() for session in list(self.sessions.values())))

    # -- listings -----------------------------------------------------------------------------

    def notify(self, server: str, tools: Listing) -> None:
        """Queue a listing for the listeners (called on the loop; never blocks it)."""
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

    def shutdown(self) -> None:
        current = threading.current_thread()
        if current is self._thread or current is self._notifier:
            # Collected (or closed) on one of the pool's own threads, which cannot wait for
            # themselves: close from a thread of its own.
            threading.Thread(target=self._shutdown, name="nucleo-mcp-close", daemon=True).start()
            return
        self._shutdown()

    def _shutdown(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.closed = True
            loop, thread, notifier = self._loop, self._thread, self._notifier
        if loop is None or thread is None:
            return
        current = threading.current_thread()
        future = asyncio.run_coroutine_threadsafe(self.close_sessions(), loop)
        try:
            future.result(_CLOSE_TIMEOUT)
        except Exception:
            logger.exception("closing the MCP sessions failed")
        loop.call_soon_threadsafe(loop.stop)
        thread.join(_CLOSE_TIMEOUT)
        self._notices.put(None)
        if notifier is not None and current is not notifier:
            notifier.join(_CLOSE_TIMEOUT)


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
