"""`SQLiteApprovalStore`: approvals in one SQLite file, the default store.

``sqlite3`` is imported only when a store is first used, so that ``import nucleo_core`` never
imports it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from nucleo_core.guard._approval_deciding import (
    Decide,
    DecidesOnce,
    encoded,
    from_row,
    listed,
    listing_query,
    refusal,
    row_values,
)
from nucleo_core.guard.approval_record import (
    ApprovalRecord,
    ApprovalStatus,
    ApprovalStoreError,
)
from nucleo_core.stores.sqlite import immediate, open_sqlite, run_script, schema_version

if TYPE_CHECKING:
    import sqlite3

__all__ = ["SQLiteApprovalStore"]

_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    status TEXT NOT NULL,
    requested_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS approvals_by_conversation ON approvals (conversation_id);
CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals (status);
"""


class SQLiteApprovalStore(DecidesOnce):
    """Approvals in one SQLite file, shared by every process that opens it.

    Write-ahead logging with ``synchronous=FULL``: an approval added or decided is on disk
    before the call returns. Decisions and claims are single conditional ``UPDATE``
    statements (``WHERE status = 'pending' AND expires_at > now``), so of two processes
    deciding one approval at once, exactly one succeeds. The file and its folder are made on
    first use.

    Args:
        path: The SQLite file (see `default_approvals_path`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = open_sqlite(
                self.path,
                timeout=30.0,
                pragmas=("journal_mode=WAL", "synchronous=FULL"),
                prepare=self._prepare,
                cannot_open=self._cannot_open,
            )
        return self._connection

    def _prepare(self, connection: sqlite3.Connection) -> None:
        version = schema_version(connection)
        if version > _SCHEMA_VERSION:
            raise ApprovalStoreError(
                f"{self.path} was written by a later nucleo (approvals schema {version}); "
                "upgrade nucleo to read it"
            )
        run_script(connection, _SCHEMA)
        connection.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")

    def _cannot_open(self, reason: str) -> ApprovalStoreError:
        return ApprovalStoreError(f"the approvals' store {self.path} cannot be opened: {reason}")

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records``, all or none (see `ApprovalStore.add`)."""
        rows = row_values(records)
        with self._lock, immediate(self._db()) as db:
            db.executemany("INSERT OR IGNORE INTO approvals VALUES (?, ?, ?, ?, ?, ?)", rows)

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        with self._lock:
            row = (
                self._db()
                .execute("SELECT status, record FROM approvals WHERE id = ?", (approval_id,))
                .fetchone()
            )
        return None if row is None else from_row(row)

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals (see `ApprovalStore.list`)."""
        query, params = listing_query("approvals", "?", status, conversation_id)
        with self._lock:
            rows = self._db().execute(query, params).fetchall()
        return listed(rows, status)

    def claim(self, approval_id: str) -> bool:
        """Approved → consumed, once (see `ApprovalStore.claim`)."""
        with self._lock:
            db = self._db()
            row = db.execute("SELECT status, record FROM approvals WHERE id = ?", (approval_id,))
            found = row.fetchone()
            if found is None:
                return False
            consumed = replace(from_row(found), status="consumed")
            cursor = db.execute(
                "UPDATE approvals SET status = 'consumed', record = ? "
                "WHERE id = ? AND status = 'approved'",
                (encoded(consumed), approval_id),
            )
            return cursor.rowcount == 1

    def close(self) -> None:
        """Close the connection (a later use opens it again)."""
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _decide(self, approval_id: str, decide: Decide) -> ApprovalRecord:
        with self._lock:
            db = self._db()
            row = db.execute(
                "SELECT status, record FROM approvals WHERE id = ?", (approval_id,)
            ).fetchone()
            record = None if row is None else from_row(row)
            if record is None or record.status_at() != "pending":
                raise refusal(record, approval_id)
            decided = decide(record)
            # The condition is the guarantee: whoever read "pending" above, one UPDATE wins.
            cursor = db.execute(
                "UPDATE approvals SET status = ?, record = ? "
                "WHERE id = ? AND status = 'pending' AND expires_at > ?",
                (decided.status, encoded(decided), approval_id, time.time()),
            )
            if cursor.rowcount != 1:
                again = db.execute(
                    "SELECT status, record FROM approvals WHERE id = ?", (approval_id,)
                ).fetchone()
                raise refusal(None if again is None else from_row(again), approval_id)
            return decided
