"""An approvals' store over SQL, written once for the SQLite and PostgreSQL stores.

Both keep the same table (PostgreSQL's named ``nucleo_approvals``, in a shared database): a row
per approval holding its id, its conversation, the status column, its times and the record's
JSON (`row_values`). They differ in the table's name, the parameter marker (`ApprovalSQL`) and
the transaction a call runs in. `SQLApprovals` implements every call of `ApprovalStore` over
those statements and the store's ``_transaction``, so the two stores cannot drift apart: a
decision and a claim are each one conditional ``UPDATE``, which exactly one of two deciders
wins.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Any, Final

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
from nucleo_core.guard.approval_record import ApprovalRecord, ApprovalStatus

__all__ = ["POSTGRES", "SQLITE", "ApprovalSQL", "SQLApprovals"]


@dataclass(frozen=True, slots=True, init=False)
class ApprovalSQL:
    """The statements of one dialect.

    Args:
        table: The table's name.
        mark: The parameter marker (``?`` or ``%s``).
    """

    table: str
    mark: str
    insert: str
    select: str
    claim: str
    decide: str

    def __init__(self, *, table: str, mark: str) -> None:
        def sql(text: str) -> str:
            return text.replace("{t}", table).replace("?", mark)

        values = {
            "table": table,
            "mark": mark,
            # A record whose id is kept already is left as it is.
            "insert": sql("INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"),
            "select": sql("SELECT status, record FROM {t} WHERE id = ?"),
            "claim": sql(
                "UPDATE {t} SET status = 'consumed', record = ? "
                "WHERE id = ? AND status = 'approved'"
            ),
            "decide": sql(
                "UPDATE {t} SET status = ?, record = ? "
                "WHERE id = ? AND status = 'pending' AND expires_at > ?"
            ),
        }
        for name, text in values.items():
            object.__setattr__(self, name, text)


SQLITE: Final = ApprovalSQL(table="approvals", mark="?")
POSTGRES: Final = ApprovalSQL(table="nucleo_approvals", mark="%s")


class SQLApprovals(DecidesOnce):
    """The calls of the `ApprovalStore` protocol, over a store's transactions.

    A store names its dialect in ``_sql`` and gives `_transaction`, and its own `close`.
    """

    __slots__ = ()

    _sql: ApprovalSQL

    @abstractmethod
    def _transaction(self, doing: str) -> AbstractContextManager[Any]:
        """One transaction, as what runs its statements; ``doing`` names it in errors.

        What it yields has ``execute`` (returning a cursor: ``fetchone``, ``fetchall``,
        ``rowcount``) and ``executemany``: a SQLite connection, a psycopg cursor.
        """

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records``, all or none (see `ApprovalStore.add`)."""
        rows = row_values(records)
        if not rows:
            return
        with self._transaction("keep approvals") as db:
            db.executemany(self._sql.insert, rows)

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        with self._transaction("read an approval") as db:
            row = db.execute(self._sql.select, (approval_id,)).fetchone()
        return None if row is None else from_row(row)

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals (see `ApprovalStore.list`)."""
        query, params = listing_query(self._sql.table, self._sql.mark, status, conversation_id)
        with self._transaction("list approvals") as db:
            rows = db.execute(query, params).fetchall()
        return listed(rows, status)

    def claim(self, approval_id: str) -> bool:
        """Approved → consumed, once (see `ApprovalStore.claim`)."""
        with self._transaction("claim an approval") as db:
            found = db.execute(self._sql.select, (approval_id,)).fetchone()
            if found is None:
                return False
            consumed = replace(from_row(found), status="consumed")
            cursor = db.execute(self._sql.claim, (encoded(consumed), approval_id))
            return bool(cursor.rowcount == 1)

    def _decide(self, approval_id: str, decide: Decide) -> ApprovalRecord:
        with self._transaction("decide an approval") as db:
            row = db.execute(self._sql.select, (approval_id,)).fetchone()
            record = None if row is None else from_row(row)
            if record is None or record.status_at() != "pending":
                raise refusal(record, approval_id)
            decided = decide(record)
            # The condition is the guarantee: whoever read "pending" above, one UPDATE wins
            # (a concurrent one waits for the row, then finds its condition false).
            cursor = db.execute(
                self._sql.decide, (decided.status, encoded(decided), approval_id, time.time())
            )
            won = cursor.rowcount == 1
        if not won:
            raise refusal(self.get(approval_id), approval_id)
        return decided
