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
from nucleo_core.guard.audit.store import AuditQuery, FollowsByPolling
from nucleo_core.guard.audit.verify import StoredRow, VerifyReport, verify_chain

__all__ = ["MemoryAuditStore"]


@final
class MemoryAuditStore(FollowsByPolling):
    """An `AuditStore` that keeps its records in this process's memory, under a lock.

    Records are sealed and checked exactly as `SQLiteAuditStore` seals and checks them; they
    vanish with the process. `rows` exposes them as stored, so a test can tamper with them.

    Args:
        max_records: Keep only the latest this many records (``None``: all of them). Older
            ones are forgotten as new ones come; the numbering and the chain go on, and
            `verify` checks the records kept, from the last one forgotten. A hub given no log
            keeps one of these with a bound (`ToolHub`), so that a long-lived process does
            not grow without end.

    Raises:
        ValueError: ``max_records`` is not a positive number.
    """

    __slots__ = ("_closed", "_floor", "_head", "_lock", "max_records", "rows")

    def __init__(self, *, max_records: int | None = None) -> None:
        if max_records is not None and (type(max_records) is not int or max_records < 1):
            raise ValueError("max_records: a positive number of records, or None for all")
        self.max_records = max_records
        self.rows: list[StoredRow] = []
        self._head: tuple[int, str] | None = None
        # The sequence number and digest of the last record forgotten (none yet: genesis).
        self._floor: tuple[int, str] = (0, GENESIS_DIGEST)
        self._lock = threading.Lock()
        self._closed = False

    @property
    def forgotten(self) -> int:
        """How many of the oldest records were forgotten (``max_records``)."""
        return self._floor[0]

    def append(self, contents: Sequence[str], *, durable: bool = False) -> int:
        """Seal and keep records of ``contents``, in order; see `AuditStore.append`."""
        with self._lock:
            self._check_open()
            sequence, digest = self._head or (0, GENESIS_DIGEST)
            rows = self.rows
            add = rows.append
            for content in contents:
                sequence += 1
                previous, digest = digest, chain_digest(sequence, digest, content)
                add(StoredRow(sequence, content, previous, digest))
            if contents:
                self._head = (sequence, digest)
            excess = 0 if self.max_records is None else len(rows) - self.max_records
            if excess > 0:
                last = rows[excess - 1]
                self._floor = (last.sequence, last.digest)
                del rows[:excess]
            return sequence

    def skip(self, count: int) -> None:
        """Forget the next ``count`` records unwritten: their numbers are taken, and gone.

        For an `AuditLog` whose queue holds more than ``max_records``: the records it would
        store and this store would forget at once are never sealed. What this store keeps is
        forgotten too (it is older still), and the chain starts again after the skipped
        numbers, from `GENESIS_DIGEST`: `verify` checks it from there.
        """
        if count < 1:
            return
        with self._lock:
            self._check_open()
            sequence = (self._head or (0, GENESIS_DIGEST))[0] + count
            self.rows.clear()
            self._head = (sequence, GENESIS_DIGEST)
            self._floor = (sequence, GENESIS_DIGEST)

    def read(self, query: AuditQuery | None = None) -> Iterator[AuditRecord]:
        """The records ``query`` selects, in sequence order; see `AuditStore.read`."""
        with self._lock:
            self._check_open()
            rows = list(self.rows)
        selected = query or AuditQuery()
        # A record's kind is in its content as `"kind":"<kind>"`, its quotes unescaped, which
        # no string value can hold: a cheap test before a record is decoded (what passes it is
        # still decoded and matched, so a nested object's "kind" lets nothing wrong through).
        marks = tuple(f'"kind":"{kind}"' for kind in selected.kinds)
        for row in sorted(rows, key=lambda row: row.sequence):
            if row.sequence <= selected.after:
                continue
            if marks and not any(mark in row.content for mark in marks):
                continue
            record = record_from_row(row.sequence, row.content, row.prev_digest, row.digest)
            if selected.matches(record):
                yield record

    def verify(self) -> VerifyReport:
        """Check the chain and the head; see `AuditStore.verify`."""
        with self._lock:
            self._check_open()
            rows, head, floor = list(self.rows), self._head, self._floor
        return verify_chain(rows, head, floor=floor)

    def flush(self) -> None:
        """Nothing to do: memory is as durable as this store gets."""

    def close(self) -> None:
        """Forget nothing, but refuse further use."""
        with self._lock:
            self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise AuditStoreError("the memory audit store was closed")
