"""`Checkpointer`: the thread that copies a SQLite audit store's write-ahead log into its file."""

from __future__ import annotations

import logging
import sqlite3
import threading
from typing import final

__all__ = ["Checkpointer"]

logger = logging.getLogger("nucleo.guard.audit")


@final
class Checkpointer:
    """A daemon thread that checkpoints a store's write-ahead log when asked, on its own connection.

    A ``PASSIVE`` checkpoint copies what it can without waiting for readers or writers, and
    SQLite runs it without the GIL: an append goes on meanwhile, and the calling thread never
    waits for the copy or its syncs. A failure is logged and tried again at the next request.
    """

    __slots__ = ("_asked", "_path", "_stopping", "_thread", "_timeout")

    def __init__(self, path: str, timeout: float) -> None:
        self._path = path
        self._timeout = timeout
        self._asked = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def request(self) -> bool:
        """Ask for a checkpoint; whether the thread will make one (``False``: it is busy)."""
        if self._stopping:
            return False
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="nucleo-audit-checkpoint", daemon=True
            )
            self._thread.start()
        if self._asked.is_set():
            return False  # the last request is not taken yet
        self._asked.set()
        return True

    def stop(self, *, wait: bool = True) -> None:
        """End the thread (after the checkpoint it is making, if any)."""
        self._stopping = True
        self._asked.set()
        thread = self._thread
        if wait and thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        connection: sqlite3.Connection | None = None
        try:
            while True:
                self._asked.wait()
                if self._stopping:
                    return
                self._asked.clear()
                try:
                    if connection is None:
                        connection = sqlite3.connect(
                            self._path, timeout=self._timeout, isolation_level=None
                        )
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as exc:
                    logger.warning(
                        "the audit store %s could not be checkpointed: %s", self._path, exc
                    )
        finally:
            if connection is not None:
                connection.close()
