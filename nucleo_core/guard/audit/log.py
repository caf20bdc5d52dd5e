"""`AuditLog`: the front the hub and the call door record through.

`AuditLog.record` is cheap: it writes the event's content (all but its time), stamps it with
the time and queues it; the call door's records of ``auto`` calls are queued cheaper still,
stamped at the call and written with their batch (`AuditLog._record_deferred`), a call's
finish joining its start in the queue when nothing was queued between them. The queue is
stored in batches, one transaction per batch, the records sealed (numbered and chained) in
one pass inside it, with no ``fsync`` per batch: by the caller whose record fills a batch of
``batch_size``, and, for a store on disk, by a writer thread once the oldest queued record
waited ``flush_interval`` seconds.

A record made with ``durable=True`` is stored, with every record queued before it, before
`record` returns, and synced to disk: the call door records a call's start so before it runs a
``confirm``- or ``notify``-level tool. `read` and `verify` store the queue first, so that a
reader in this process sees every record made; `flush` stores and syncs it; `close` (and the
end of the interpreter, for a log on disk never closed) stores it. A crash keeps every batch stored,
and loses at most the queue.

Nothing is dropped silently: when the store fails, records stay queued and the writer tries
again; a durable record, `flush` and `close` raise `AuditStoreError`, and so does `record`
once ``max_pending`` records wait, so that the caller fails closed.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any, Final, cast, final

from nucleo_core._closing import ClosesOnExit
from nucleo_core.guard.audit._queue import Deferred, Queued, count_queued, entries
from nucleo_core.guard.audit._writer import BatchWriter
from nucleo_core.guard.audit.canonical import canonical_json, sha256_hex
from nucleo_core.guard.audit.errors import AuditStoreError
from nucleo_core.guard.audit.events import AuditEvent
from nucleo_core.guard.audit.memory_store import MemoryAuditStore
from nucleo_core.guard.audit.records import AuditRecord, content_parts
from nucleo_core.guard.audit.store import AuditQuery, AuditStore
from nucleo_core.guard.audit.verify import VerifyReport

__all__ = ["AuditLog"]

logger = logging.getLogger("nucleo.guard.audit")

#: Records stored per transaction, at most, and the writer's wake-up for a part batch.
DEFAULT_BATCH_SIZE: Final = 512
DEFAULT_FLUSH_INTERVAL: Final = 0.2
#: How many records may wait before `record` stores them itself (and raises if it cannot).
DEFAULT_MAX_PENDING: Final = 20_000


_OPEN: weakref.WeakSet[AuditLog] = weakref.WeakSet()


@final
class AuditLog(BatchWriter, ClosesOnExit):
    """The audit record of a process: every grant, refusal, decision, approval and call.

    Args:
        store: Where the records are kept (`SQLiteAuditStore`, `MemoryAuditStore`, ...).
        record_arguments: Keep each call's arguments in full, not only their digest. Off by
            default: arguments may carry secrets.
        batch_size: The most records stored in one transaction.
        flush_interval: How long a record waits, at most, before the writer stores it (a
            batch filled sooner is stored by the caller that fills it).
        max_pending: How many records may wait before `record` stores them itself.
    """

    __slots__ = (
        "__weakref__",
        "_batch_size",
        "_closed",
        "_flush_interval",
        "_lazy_bound",
        "_lock",
        "_max_pending",
        "_pending",
        "_record_arguments",
        "_store",
        "_threaded",
        "_wake",
        "_write_lock",
    )

    def __init__(
        self,
        store: AuditStore,
        *,
        record_arguments: bool = False,
        batch_size: int = DEFAULT_BATCH_SIZE,
        flush_interval: float = DEFAULT_FLUSH_INTERVAL,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> None:
        if batch_size < 1 or max_pending < 1 or flush_interval <= 0:
            raise ValueError("batch_size and max_pending are at least 1; flush_interval > 0")
        self._store = store
        # A memory store's append costs less than waking a thread: its batches are stored by
        # the caller that fills one (and by every read), with no writer thread at all.
        self._threaded = not isinstance(store, MemoryAuditStore)
        # A bounded memory store's records are queued until read, and the oldest forgotten
        # unwritten (`_forget_queued`); an unbounded one is written batch by batch.
        self._lazy_bound = store.max_records if isinstance(store, MemoryAuditStore) else None
        self._record_arguments = record_arguments
        self._batch_size = batch_size
        self._flush_interval = flush_interval
        self._max_pending = max_pending
        self._pending: list[Queued] = []
        # The queue's lock, taken bare on the hot path (a Condition's own `with` is Python
        # code); the writer waits on the condition built over it.
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        # Held while a batch is taken from the queue and stored, so batches go in order.
        self._write_lock = threading.Lock()
        self._writer: threading.Thread | None = None
        # Whether the writer sleeps until a record wakes it (it found nothing queued).
        self._sleeping = False
        self._closed = False
        self._error: AuditStoreError | None = None
        if self._threaded:
            # Stored at exit if never closed; a memory log's records vanish with the process
            # anyway, so it is spared sealing them on the way out.
            _OPEN.add(self)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        start: str | os.PathLike[str] | None = None,
        record_arguments: bool | None = None,
    ) -> AuditLog:
        """The project's audit log, in SQLite, as configured (see `audit_settings`).

        Without an audit path configured (nor ``$NUCLEO_AUDIT``), the project's store URL
        (``$NUCLEO_STORE_URL``, ``store`` in its configuration) keeps it, PostgreSQL included.

        Args:
            path: The SQLite file; the configured one (by default ``.nucleo/audit.sqlite3``
                in the project folder) when ``None``.
            start: Where the project folder is looked for (the working directory).
            record_arguments: Overrides the configuration's ``record_arguments``.

        Raises:
            AuditConfigError: The configuration is malformed.
        """
        from nucleo_core.guard.audit.opening import project_audit_store

        store, configured = project_audit_store(path, start=start)
        keep = configured if record_arguments is None else record_arguments
        return cls(store, record_arguments=keep)

    @property
    def store(self) -> AuditStore:
        """Where the records are kept."""
        return self._store

    @property
    def record_arguments(self) -> bool:
        """Whether calls' arguments are kept in full."""
        return self._record_arguments

    # -- recording ------------------------------------------------------------------------------

    def record(self, event: AuditEvent, *, durable: bool = False) -> None:
        """Record ``event``: queued for the writer, or stored before returning if ``durable``.

        Raises:
            AuditValueError: The event's arguments (or admission details) have no canonical
                JSON form.
            AuditStoreError: The log is closed; or a durable record (or a queue past
                ``max_pending``) could not be stored.
        """
        digest = event.arguments_digest
        kept: str | None = None
        arguments = event.arguments
        if arguments is not None and (digest is None or self._record_arguments):
            text = canonical_json(arguments)
            if digest is None:
                digest = sha256_hex(text)
            if self._record_arguments:
                kept = text
        # The content is written now, but its time: the caller may reuse its objects
        # afterwards, and the time is joined (and the chain sealed) when the batch is stored.
        head, tail = content_parts(event, digest, kept)
        self._record_content(head, tail, durable)

    def _record_content(self, head: str, tail: str, durable: bool = False) -> None:
        """Record the content ``head + time + tail`` (see `content_parts`), stamped now.

        For callers that write a record's parts themselves, from pieces they keep (the call
        door does, per tool); the parts must be what `content_parts` writes for the event.
        """
        self._enqueue((time.time_ns(), head, tail), durable)

    def _record_deferred(self, records: Deferred) -> None:
        """Queue ``records``, their contents written (`Deferred.write`) when they are stored.

        For the call door's records of ``auto`` calls: written with their batch, in one tight
        loop, rather than one by one between calls; they carry their own times.
        """
        self._enqueue(records, False)

    def _follow(self, records: Deferred, then: Any) -> bool:
        """Set ``records.then`` if ``records`` is still the last thing queued, unwritten.

        A call's finish joins its start so when nothing was recorded between them: they are
        written one after the other either way, and the queue takes one entry, not two.
        Returns whether it did; if not, the caller records ``then`` on its own.
        """
        with self._lock:
            pending = self._pending
            if pending and pending[-1] is records and not self._closed:
                records.then = then
                return True
        return False

    def _enqueue(self, queued: Queued, durable: bool) -> None:
        if durable:
            self._store_now(queued)
            return
        with self._lock:
            if self._closed:
                raise AuditStoreError("the audit log was closed; nothing more can be recorded")
            pending = self._pending
            pending.append(queued)
            waiting = len(pending)
            if self._threaded:
                if self._writer is None:
                    self._start_writer()
                elif self._sleeping:
                    self._wake.notify()  # records come again: the writer times their wait
        if self._threaded:
            if waiting >= self._max_pending:
                self._store_now(None)
            elif waiting % self._batch_size == 0:
                # A full batch is stored by the caller that fills it: handing it to the writer
                # costs more (the GIL changing hands) than storing it; the writer stores what
                # waited ``flush_interval``, and what a failed store left queued. A caller
                # never waits for the writer storing meanwhile: that store takes it along.
                try:
                    self._store_now(None, sync=False, wait=False)
                except AuditStoreError as exc:
                    logger.warning("audit records are waiting: %s", exc)
        elif self._lazy_bound is not None:
            if waiting > self._lazy_bound + self._lazy_bound // 8:
                self._forget_queued()
        elif waiting >= self._batch_size:
            # With no writer thread (a memory store), a full batch is stored by its caller.
            self._store_now(None, sync=False)

    def _forget_queued(self) -> None:
        """Forget, unsealed, the queued records a bounded memory store would forget anyway.

        A memory store that keeps its latest ``max_records`` would forget the oldest queued
        records as soon as they were stored: they are dropped before being written at all
        (their numbers are skipped, `MemoryAuditStore.skip`), so that a long-lived hub that is
        never read pays only for queueing its records. In chunks of an eighth of the bound,
        so that trimming the queue costs nothing per record.
        """
        store = cast("MemoryAuditStore", self._store)
        with self._write_lock:
            with self._lock:
                excess = len(self._pending) - cast("int", self._lazy_bound)
                if excess <= 0:
                    return
                forgotten = self._pending[:excess]
                del self._pending[:excess]
            store.skip(count_queued(forgotten))

    def flush(self) -> None:
        """Store every queued record now, and sync the store to disk.

        Raises:
            AuditStoreError: The store failed; the records stay queued.
        """
        self._store_now(None)

    def close(self) -> None:
        """Store what is queued, stop the writer and close the store. Closing twice is harmless.

        Raises:
            AuditStoreError: The queued records could not be stored (the store is closed
                anyway; they are lost, and the message says how many).
        """
        with self._wake:
            if self._closed:
                return
            self._closed = True
            writer, self._writer = self._writer, None
            self._wake.notify_all()
        if writer is not None:
            writer.join()
        _OPEN.discard(self)
        try:
            self._store_now(None)
        except AuditStoreError as exc:
            lost = len(self._pending)
            raise AuditStoreError(f"{exc}; {lost} audit records were not stored") from exc
        finally:
            self._store.close()

    # -- reading --------------------------------------------------------------------------------

    def read(self, query: AuditQuery | None = None) -> Iterator[AuditRecord]:
        """The records ``query`` selects, in order, once what is queued is stored."""
        self._store_now(None, sync=False)
        return self._store.read(query)

    def verify(self) -> VerifyReport:
        """Check the whole chain, once what is queued is stored; name the first bad record."""
        self._store_now(None, sync=False)
        return self._store.verify()

    # -- the writer -----------------------------------------------------------------------------

    def _store_now(self, queued: Queued | None, *, sync: bool = True, wait: bool = True) -> None:
        """Store the queue (and ``queued`` after it) in one transaction, synced if ``sync``.

        ``wait=False``: not while another thread stores (the writer, or a reader, whose queue
        then waits for the writer's next round).
        """
        if not self._write_lock.acquire(blocking=wait):
            return
        try:
            with self._wake:
                if queued is not None and self._closed:
                    raise AuditStoreError("the audit log was closed; nothing more can be recorded")
                batch, self._pending = self._pending, []
            if queued is not None:
                batch.append(queued)
            if not batch:
                if sync:
                    self._store.flush()
                return
            try:
                self._store.append(entries(batch), durable=sync)
            except BaseException:
                # Kept for the next attempt, in order; only the durable record's caller knows.
                kept = batch[:-1] if queued is not None else batch
                with self._wake:
                    self._pending[:0] = kept
                raise
        finally:
            self._write_lock.release()


@atexit.register
def _close_open_logs() -> None:
    # A script that never closed its log still gets its queued records stored.
    for log in list(_OPEN):
        try:
            log.close()
        except Exception as exc:  # at exit: say so, and close the others
            logger.error("the audit log could not be closed at exit: %s", exc)
