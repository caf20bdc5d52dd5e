"""Await a blocking decision taken in a daemon thread, so an abandoned call applies nothing."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["decided_off_loop"]

_T = TypeVar("_T")


async def decided_off_loop(decide: Callable[[], _T]) -> _T:
    """Run ``decide`` in a daemon thread and await its answer.

    Admission is synchronous (guardrails and hooks are plain functions) and may be slow; the
    event loop must not wait on it. The thread is a daemon, so a decision that never comes
    cannot keep the interpreter from exiting (the hub's admission time limit ends the wait
    itself). When the awaiting call is cancelled first (its tool timeout, a cancelled turn),
    the answer arriving later is dropped: the caller applies only what it awaited.
    """
    import asyncio  # imported here: asyncio costs ~15 ms at `import nucleo_core`

    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def answer(result: _T) -> None:
        if not future.done():  # cancelled meanwhile: the answer is nobody's any more
            future.set_result(result)

    def fail(error: BaseException) -> None:
        if not future.done():
            future.set_exception(error)

    def run() -> None:
        try:
            try:
                result = decide()
            except BaseException as exc:  # handed to the awaiting side, which re-raises it
                loop.call_soon_threadsafe(fail, exc)
            else:
                loop.call_soon_threadsafe(answer, result)
        except RuntimeError:  # the loop closed while deciding: nobody is waiting
            pass

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name="nucleo-decision", daemon=True).start()
    return await future
