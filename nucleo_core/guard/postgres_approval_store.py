"""`PostgresApprovalStore`: durable approvals in PostgreSQL, shared by every worker and host.

Imported only when a ``postgresql://`` store URL is used (it imports ``psycopg``).

The same guarantees as `SQLiteApprovalStore`, across hosts: a decision and a claim are each
one conditional ``UPDATE`` (``WHERE status = 'pending' AND expires_at > now``, or
``WHERE status = 'approved'``), which PostgreSQL runs one at a time per row: of two workers (or
a worker and a console) deciding one approval at once, exactly one updates the row, and the
other reads who did. Committed before the call returns. The table is ``nucleo_approvals``,
versioned in ``nucleo_schema`` (component ``approvals``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final, final

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
from nucleo_core.stores.postgres import PostgresDatabase, database

__all__ = ["MIGRATIONS", "PostgresApprovalStore"]

COMPONENT: Final = "approvals"

#: The forward-only steps of the ``approvals`` component (``MIGRATIONS[n]``: ``n`` → ``n + 1``).
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE nucleo_approvals (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        status TEXT NOT NULL,
        requested_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX nucleo_approvals_by_conversation ON nucleo_approvals (conversation_id)
    """,
)


def _error(message: str) -> ApprovalStoreError:
    return ApprovalStoreError(message)


@final
class PostgresApprovalStore(DecidesOnce):
    """An `ApprovalStore` in PostgreSQL.

    Args:
        url: The ``postgresql://`` store URL.
    """

    def __init__(self, url: str) -> None:
        self.path = url
        self._database: PostgresDatabase = database(url)
        self._lock = threading.Lock()
        self._migrated = False

    def migrate(self) -> int:
        """Create or migrate the table now; the version found before."""
        found = self._database.migrate(COMPONENT, MIGRATIONS, _error)
        self._migrated = True
        return found

    def _tx(self, doing: str) -> Any:
        if not self._migrated:
            with self._lock:
                if not self._migrated:
                    self.migrate()
        return self._database.transaction(doing, _error)

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records``, all or none (see `ApprovalStore.add`)."""
        rows = row_values(records)
        if not rows:
            return
        with self._tx("keep approvals") as db:
            db.executemany(
                "INSERT INTO nucleo_approvals VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                rows,
            )

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        with self._tx("read an approval") as db:
            db.execute("SELECT status, record FROM nucleo_approvals WHERE id = %s", (approval_id,))
            row = db.fetchone()
        return None if row is None else from_row(row)

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals (see `ApprovalStore.list`)."""
        query, params = listing_query("nucleo_approvals", "%s", status, conversation_id)
        with self._tx("list approvals") as db:
            db.execute(query, params)
            rows = db.fetchall()
        return listed(rows, status)

    def claim(self, approval_id: str) -> bool:
        """Approved → consumed, once (see `ApprovalStore.claim`)."""
        with self._tx("claim an approval") as db:
            db.execute("SELECT status, record FROM nucleo_approvals WHERE id = %s", (approval_id,))
            found = db.fetchone()
            if found is None:
                return False
            consumed = replace(from_row(found), status="consumed")
            db.execute(
                "UPDATE nucleo_approvals SET status = 'consumed', record = %s "
                "WHERE id = %s AND status = 'approved'",
                (encoded(consumed), approval_id),
            )
            return bool(db.rowcount == 1)

    def close(self) -> None:
        """Nothing of its own to release: the pool is the process's, shared by its stores."""

    def _decide(self, approval_id: str, decide: Decide) -> ApprovalRecord:
        with self._tx("decide an approval") as db:
            db.execute("SELECT status, record FROM nucleo_approvals WHERE id = %s", (approval_id,))
            row = db.fetchone()
            record = None if row is None else from_row(row)
            if record is None or record.status_at() != "pending":
                raise refusal(record, approval_id)
            decided = decide(record)
            # The condition is the guarantee: whoever read "pending" above, one UPDATE wins
            # (a concurrent one waits for the row, then finds its condition false).
            db.execute(
                "UPDATE nucleo_approvals SET status = %s, record = %s "
                "WHERE id = %s AND status = 'pending' AND expires_at > %s",
                (decided.status, encoded(decided), approval_id, time.time()),
            )
            won = db.rowcount == 1
        if not won:
            raise refusal(self.get(approval_id), approval_id)
        return decided
