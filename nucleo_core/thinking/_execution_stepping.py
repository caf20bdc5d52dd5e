"""How a turn drives its tools' coroutines: asyncio at first use, the cap, the first step.

A turn runs most calls without a task of their own, and a call's first step before its deadline
is armed (a tool that never suspends finishes in it); these are the pieces that make that
possible without changing what ``await`` and `asyncio.timeout` would do.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine, Generator
from types import CoroutineType, ModuleType
from typing import TYPE_CHECKING, Any, final

from nucleo_core.tools.tool import run_tool

if TYPE_CHECKING:
    import asyncio

    from nucleo_core.tools.tool import Tool

__all__: list[str] = []

_monotonic = time.monotonic
_asyncio: ModuleType | None = None


def _aio() -> ModuleType:
    """The asyncio module, imported at the first run (it is costly at package import)."""
    global _asyncio
    if _asyncio is None:
        import asyncio

        _asyncio = asyncio
    return _asyncio


@final
class _Cap:
    """A turn's concurrency cap: its semaphore, made when a call first runs as a task.

    A turn of ``calls`` calls, each run once, has at most that many running at once: when
    they are no more than ``limit`` the cap is never reached, and no call waits on it (`get`
    answers ``None``).
    """

    __slots__ = ("_limit", "_needed", "_semaphore")

    def __init__(self, limit: int, calls: int) -> None:
        self._limit = limit
        self._needed = calls > limit
        self._semaphore: asyncio.Semaphore | None = None

    def get(self) -> asyncio.Semaphore | None:
        if not self._needed:
            return None
        semaphore = self._semaphore
        if semaphore is None:
            semaphore = self._semaphore = _aio().Semaphore(self._limit)
        return semaphore


def _running(tool: Tool[Any, Any], input: Any) -> Coroutine[Any, Any, Any]:
    """The coroutine that runs ``tool`` on ``input``.

    It is `run_tool`'s, without that function's frame when the tool is async and its ``run``
    returns a coroutine (the common case).
    """
    if tool.is_async:
        awaitable = tool.run(input)
        if type(awaitable) is CoroutineType:
            return awaitable
        return _awaited(awaitable)
    return run_tool(tool, input)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


@final
class _Resumed:
    """Awaits the rest of a coroutine whose first step ran and yielded ``pending``.

    What ``await`` does for a coroutine, from its second step on: what it yielded goes to the
    task (which waits on it), what the task sends or throws back goes in.
    """

    __slots__ = ("_coroutine", "_pending")

    def __init__(self, coroutine: Coroutine[Any, Any, Any], pending: Any) -> None:
        self._coroutine = coroutine
        self._pending = pending

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, value = self._coroutine, self._pending
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as exc:  # a cancellation, thrown in by the task
                try:
                    value = coroutine.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    value = coroutine.send(sent)
                except StopIteration as stop:
                    return stop.value
