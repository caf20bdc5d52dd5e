"""Crossing to an event loop that runs in another thread, and running such a loop."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["relay", "run_loop"]

_T = TypeVar("_T")


async def relay(
    loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, _T], timeout: float
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


def run_loop(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
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
