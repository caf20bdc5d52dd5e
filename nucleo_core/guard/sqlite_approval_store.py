"""`SQLiteApprovalStore`: approvals in one SQLite file, the default store.

``sqlite3`` is imported only when a store is first used, so that ``import nucleo_core`` never
imports it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from nucleo_core.guard._approval_sql import SQLITE, SQLApprovals
from nucleo_core.guard.approval_record import ApprovalStoreError
from nucleo_core.stores.sqlite import immediate, open_sqlite, readable_schema_version, run_script

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


class SQLiteApprovalStore(SQLApprovals):
    """Approvals in one SQLite file, shared by every process that opens it.

    Write-ahead logging with ``synchronous=FULL``: an approval added or decided is on disk
    before the call returns. Decisions and claims are single conditional ``UPDATE``
    statements (``WHERE status = 'pending' AND expires_at > now``), each in a
    ``BEGIN IMMEDIATE`` transaction with the read before it, so of two processes
    deciding one approval at once, exactly one succeeds. The file and its folder are made on
    first use.

    Args:
        path: The SQLite file (see `default_approvals_path`).
    """

    _sql = SQLITE

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
        store = f"the approvals' store {self.path}"
        readable_schema_version(connection, _SCHEMA_VERSION, ApprovalStoreError, store)
        run_script(connection, _SCHEMA)
        connection.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")

    def _cannot_open(self, reason: str) -> ApprovalStoreError:
        return ApprovalStoreError(f"the approvals' store {self.path} cannot be opened: {reason}")

    @contextmanager
    def _transaction(self, doing: str) -> Iterator[sqlite3.Connection]:
        # ``doing`` goes unused: a SQLite error is raised as it is.
        with self._lock, immediate(self._db()) as db:
            yield db

    def close(self) -> None:
        """Close the connection (a later use opens it again)."""
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()
