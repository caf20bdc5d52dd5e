"""`BatchWriter`: the `AuditLog`'s writer thread, which stores what waited its interval.

Started on the first record of a log on disk (a log that records nothing starts no thread);
it stores the queue a batch (one transaction) at a time, and while the store fails keeps the
records queued and tries again, saying so once on ``nucleo.guard.audit``.
"""

from __future__ import annotations

import logging
import threading
import time

from nucleo_core.guard.audit._queue import Queued, entries
from nucleo_core.guard.audit.errors import AuditStoreError
from nucleo_core.guard.audit.store import AuditStore

__all__ = ["BatchWriter"]

logger = logging.getLogger("nucleo.guard.audit")


class BatchWriter:
    """Mixin of `AuditLog`: its writer thread, over the log's queue and locks."""

    # The writer's own state: its thread, whether it sleeps until a record wakes it, and the
    # store's last failure (said once). The rest is the log's.
    __slots__ = ("_error", "_sleeping", "_writer")

    _batch_size: int
    _closed: bool
    _error: AuditStoreError | None
    _flush_interval: float
    _pending: list[Queued]
    _sleeping: bool
    _store: AuditStore
    _wake: threading.Condition
    _write_lock: threading.Lock
    _writer: threading.Thread | None

    def _start_writer(self) -> None:
        # Started on the first record, so a log that records nothing starts no thread.
        self._writer = threading.Thread(
            target=self._write_batches, name="nucleo-audit-writer", daemon=True
        )
        self._writer.start()

    def _write_batches(self) -> None:
        # While records come, the writer wakes every ``flush_interval`` and stores what waits,
        # so that no record waits longer and no caller has to wake it (a notify per batch
        # made the lock and the GIL change hands twice). Once it finds nothing queued it
        # sleeps (`_sleeping`) until the next record wakes it.
        while True:
            with self._wake:
                if not self._pending and not self._closed:
                    self._sleeping = True
                    while not self._pending and not self._closed:
                        self._wake.wait()
                    self._sleeping = False
                # The oldest record waits its full interval (only `close` cuts it short):
                # then what waits is stored.
                deadline = time.monotonic() + self._flush_interval
                while not self._closed and (left := deadline - time.monotonic()) > 0:
                    self._wake.wait(left)
                if self._closed:
                    return  # `close` stores what is left
            try:
                self._write_waiting()
            except AuditStoreError as exc:
                if self._error is None or str(self._error) != str(exc):
                    logger.warning("audit records are waiting: %s", exc)
                self._error = exc
                with self._wake:
                    if not self._closed:
                        self._wake.wait(self._flush_interval)
            else:
                self._error = None

    def _write_waiting(self) -> None:
        """Store what is queued, a batch (one transaction) at a time."""
        with self._write_lock:
            while True:
                with self._wake:
                    batch = self._pending[: self._batch_size]
                    del self._pending[: self._batch_size]
                if not batch:
                    return
                try:
                    self._store.append(entries(batch), durable=False)
                except BaseException:
                    with self._wake:
                        self._pending[:0] = batch
                    raise
