"""`MemoryAuditStore`: the audit record in memory, for tests and short-lived processes."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import final

from nucleo_core.guard.audit.errors import AuditStoreError
from nucleo_core.guard.audit.records import (
    GENESIS_DIGEST,
    AuditRecord,
    chain_digest,
    record_from_row,
)
from nucleo_core.guard.audit.store import AuditQuery, follow_records
from nucleo_core.guard.audit.verify import StoredRow, VerifyReport, verify_chain

__all__ = ["MemoryAuditStore"]


@final
class MemoryAuditStore:
    """An `AuditStore` that keeps its records in this process's memory, under a lock.

    Records are sealed and checked exactly as `SQLiteAuditStore` seals and checks them; they
    vanish with the process. `rows` exposes them as stored, so a test can tamper with them.
    """

    __slots__ = ("_closed", "_head", "_lock", "rows")

    def __init__(self) -> None:
        self.rows: list[StoredRow] = []
        self._head: tuple[int, str] | None = None
        self._lock = threading.Lock()
        self._closed = False

    def append(self, contents: Sequence[str], *, durable: bool = False) -> int:
        """Seal and keep records of ``contents``, in order; see `AuditStore.append`."""
        with self._lock:
            self._check_open()
            sequence, digest = self._head or (0, GENESIS_DIGEST)
            for content in contents:
                sequence += 1
                previous, digest = digest, chain_digest(sequence, digest, content)
                self.rows.append(StoredRow(sequence, content, previous, digest))
            if contents:
                self._head = (sequence, digest)
            return sequence

    def read(self, query: AuditQuery | None = None) -> Iterator[AuditRecord]:
        """The records ``query`` selects, in sequence order; see `AuditStore.read`."""
        with self._lock:
            self._check_open()
            rows = list(self.rows)
        selected = query or AuditQuery()
        for row in sorted(rows, key=lambda row: row.sequence):
            if row.sequence <= selected.after:
                continue
            record = record_from_row(row.sequence, row.content, row.prev_digest, row.digest)
            if selected.matches(record):
                yield record

    def follow(
        self,
        query: AuditQuery | None = None,
        *,
        poll_interval: float = 0.5,
        stop: threading.Event | None = None,
    ) -> Iterator[AuditRecord]:
        """The records ``query`` selects, then each new one; see `AuditStore.follow`."""
        return follow_records(self.read, query, poll_interval=poll_interval, stop=stop)

    def verify(self) -> VerifyReport:
        """Check the chain and the head; see `AuditStore.verify`."""
        with self._lock:
            self._check_open()
            rows, head = list(self.rows), self._head
        return verify_chain(rows, head)

    def flush(self) -> None:
        """Nothing to do: memory is as durable as this store gets."""

    def close(self) -> None:
        """Forget nothing, but refuse further use."""
        with self._lock:
            self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise AuditStoreError("the memory audit store was closed")
