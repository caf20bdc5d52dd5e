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
from typing import Any, Final, final

from nucleo_core.guard._approval_sql import POSTGRES, SQLApprovals
from nucleo_core.guard.approval_record import ApprovalStoreError
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
class PostgresApprovalStore(SQLApprovals):
    """An `ApprovalStore` in PostgreSQL.

    Args:
        url: The ``postgresql://`` store URL.
    """

    _sql = POSTGRES

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

    def _transaction(self, doing: str) -> Any:
        if not self._migrated:
            with self._lock:
                if not self._migrated:
                    self.migrate()
        return self._database.transaction(doing, _error)

    def close(self) -> None:
        """Nothing of its own to release: the pool is the process's, shared by its stores."""
