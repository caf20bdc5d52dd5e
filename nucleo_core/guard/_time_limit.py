"""Run a blocking step in a daemon thread and wait for it at most so long.

Permission hooks are asked at every call, so a thread per call (~100 µs to start, more on a
loaded machine) would cost more than the rest of the guard; idle threads are kept and handed
the next step instead. A thread whose step overran its limit is never handed another: it is
told to end once its step returns, if it ever does.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from typing import final

__all__ = ["DEFAULT_HOOK_TIMEOUT", "TimeLimiter"]

#: Seconds all of one call's permission hooks may take together, by default (the guard's, and
#: its configuration's: `nucleo_core.guard.permission_guard` re-exports it).
DEFAULT_HOOK_TIMEOUT = 5.0

# Idle threads kept for the next steps; more idle than this end.
_IDLE_KEPT = 8


@final
class _Step:
    __slots__ = ("context", "done", "failure", "run")

    def __init__(self, run: Callable[[], None]) -> None:
        self.run = run
        self.context = contextvars.copy_context()  # the step sees the caller's variables
        self.done = threading.Event()
        self.failure: BaseException | None = None


@final
class _Worker:
    __slots__ = ("steps",)

    def __init__(self, name: str) -> None:
        self.steps: queue.SimpleQueue[_Step | None] = queue.SimpleQueue()
        threading.Thread(target=self._loop, name=name, daemon=True).start()

    def _loop(self) -> None:
        while (step := self.steps.get()) is not None:
            try:
                step.context.run(step.run)
            except BaseException as exc:  # handed to the caller, which decides what it means
                step.failure = exc
            finally:
                step.done.set()


@final
class TimeLimiter:
    """Runs steps in daemon threads it keeps, waiting for each at most so long.

    Args:
        name: The threads' name, as shown in a stack dump.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()

    def finished_within(self, run: Callable[[], None], seconds: float) -> bool:
        """Run ``run`` in a daemon thread; whether it finished within ``seconds``.

        What ``run`` raised is raised here. Past the limit the caller stops waiting and ``run``
        is left to finish on its own (the thread is a daemon, so a step that never returns
        cannot keep the interpreter from exiting); the caller must read only what ``run``
        produced before the limit. (The hub's admission time limit works the same way; it sits
        in a layer below this one, so it cannot call this.)
        """
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            worker = _Worker(self._name)
        step = _Step(run)
        worker.steps.put(step)
        if not step.done.wait(seconds):
            worker.steps.put(None)  # ends the thread once the overrunning step returns
            return False
        with self._lock:
            if len(self._idle) < _IDLE_KEPT:
                self._idle.append(worker)
                worker = None
        if worker is not None:
            worker.steps.put(None)
        if step.failure is not None:
            raise step.failure
        return True
