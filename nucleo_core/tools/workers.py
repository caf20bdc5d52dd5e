"""nucleo's own worker threads, where synchronous tools run."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["MAX_TOOL_THREADS", "tool_threads"]

#: The most synchronous tools that run at once in one process. Threads start only when no idle
#: one is free, so a high cap costs nothing until it is used. It must be at least any
#: ``ExecutionPolicy.max_concurrency`` in use: the loop's default executor (``min(32, CPUs +
#: 4)`` workers) would otherwise run a turn's calls in batches.
MAX_TOOL_THREADS = 64

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def tool_threads() -> ThreadPoolExecutor:
    """The process's pool for synchronous tools (made on first use).

    Kept apart from the event loop's default executor, which HTTP clients also need (for
    name lookups): a synchronous tool still running past its timeout holds one of these
    threads, never one of theirs.
    """
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                from concurrent.futures import ThreadPoolExecutor

                _pool = ThreadPoolExecutor(MAX_TOOL_THREADS, thread_name_prefix="nucleo-tool")
    return _pool
