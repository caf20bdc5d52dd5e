"""The pool's runtime: where each MCP server's session lives, and how calls reach it.

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
import logging
import queue
import threading
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from nucleo_core.mcp._crossing import run_loop
from nucleo_core.mcp._features import ClientFeatures
from nucleo_core.mcp.errors import MISSING_SDK, MCPServerUnavailable

if TYPE_CHECKING:
    from nucleo_core.mcp._session import Listing, ServerSession
    from nucleo_core.mcp.config import MCPServerConfig

__all__ = ["ListingListener", "PoolRuntime", "Started"]

logger = logging.getLogger("nucleo.mcp")

#: Called with a server's id and its tools (wire form) whenever a session lists them: at
#: start, after each restart, and after each ``tools/list_changed``. Runs on the pool's
#: notifier thread, one call at a time, in order; it may block, and may call back into the pool.
ListingListener = Callable[[str, "tuple[Mapping[str, Any], ...]"], None]

#: How long closing waits for every session to end.
_CLOSE_TIMEOUT = 30.0

_T = TypeVar("_T")

#: What starting one server gave: its tools, or why it did not start.
Started: TypeAlias = "tuple[Mapping[str, Any], ...] | MCPServerUnavailable"


class PoolRuntime:
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
                target=run_loop, args=(loop, ready), name="nucleo-mcp-pool", daemon=True
            )
            thread.start()
            ready.wait()
            self._loop, self._thread = loop, thread
        return self._loop

    def _on_home(self) -> bool:
        return self._home_thread == threading.get_ident()

    def blocks(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether waiting here for ``loop`` would stop it (this is its thread, or a pool's)."""
        if loop is self.home and self._on_home():
            return True
        current = threading.current_thread()
        return current is self._thread or current is self._notifier

    # -- crossing to a session's loop ---------------------------------------------------------

    def run(
        self, loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, _T], timeout: float
    ) -> _T:
        """Run ``coroutine`` on ``loop`` and wait for it (from a thread that may block).

        Raises:
            RuntimeError: Waiting here would block ``loop`` itself, or ``loop`` is closed.
            TimeoutError: No answer within ``timeout`` (the call is cancelled).
        """
        if self.blocks(loop):
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
            elif self.blocks(loop):  # on the home loop's thread: close there, awaited later
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


async def _close(sessions: list[ServerSession]) -> None:
    await asyncio.gather(*(session.close() for session in sessions))


def _close_on(loop: asyncio.AbstractEventLoop, sessions: list[ServerSession]) -> None:
    """Close ``sessions`` on ``loop``, running in another thread, and wait (bounded)."""
    future = asyncio.run_coroutine_threadsafe(_close(sessions), loop)
    try:
        future.result(_CLOSE_TIMEOUT)
    except Exception:
        logger.exception("closing the MCP sessions failed")
