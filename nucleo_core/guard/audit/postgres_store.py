"""`PostgresAuditStore`: the audit record in PostgreSQL, one hash chain shared by every worker.

Imported only when a ``postgresql://`` store URL is used (it imports ``psycopg``).

- **One chain, many writers, many hosts**: the head (last sequence number and digest) is one
  row, made with the table; each append is one transaction that takes that row
  ``FOR UPDATE``, seals its entries after it, inserts them and moves the head. A concurrent
  append waits for the row, then reads the head the first one left: appends interleave whole,
  with no gap and no fork, and an append killed midway leaves nothing (its transaction ends
  with its session).
- **Durability**: an append with ``durable=True`` commits with the server's
  ``synchronous_commit`` (on by default: flushed to disk before the commit returns); the
  others with ``synchronous_commit = off``, which the server keeps through any crash of the
  worker (and loses at most its last fraction of a second to a crash of the server itself).
- **Schema**: ``nucleo_audit_records`` (``sequence``, ``content``, ``prev_digest``,
  ``digest``: the columns of `SQLiteAuditStore`, the content kept as text, never re-encoded),
  ``nucleo_audit_head``, and the view ``nucleo_audit_view`` with the columns an operator
  filters on, read from the content; versioned in ``nucleo_schema`` (component ``audit``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any, Final, final

from nucleo_core.guard.audit.errors import AuditStoreError
from nucleo_core.guard.audit.records import (
    GENESIS_DIGEST,
    AuditRecord,
    chain_digest,
)
from nucleo_core.guard.audit.store import AuditQuery, FollowsByPolling, page_query, paged_records
from nucleo_core.guard.audit.verify import StoredRow, VerifyReport, verify_chain
from nucleo_core.stores.errors import StoreVersionError
from nucleo_core.stores.postgres import PostgresDatabase, database

__all__ = ["MIGRATIONS", "PostgresAuditStore"]

COMPONENT: Final = "audit"

#: The forward-only steps of the ``audit`` component (``MIGRATIONS[n]``: ``n`` → ``n + 1``).
MIGRATIONS: Final[tuple[str, ...]] = (
    f"""
    CREATE TABLE nucleo_audit_records (
        sequence BIGINT PRIMARY KEY,
        content TEXT NOT NULL,
        prev_digest TEXT NOT NULL,
        digest TEXT NOT NULL
    );
    CREATE TABLE nucleo_audit_head (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sequence BIGINT NOT NULL,
        digest TEXT NOT NULL
    );
    INSERT INTO nucleo_audit_head (id, sequence, digest) VALUES (1, 0, '{GENESIS_DIGEST}');
    CREATE VIEW nucleo_audit_view AS SELECT
        sequence,
        content::jsonb ->> 'at' AS at,
        content::jsonb ->> 'kind' AS kind,
        content::jsonb ->> 'tool' AS tool,
        content::jsonb ->> 'source' AS source,
        content::jsonb -> 'requester' ->> 'thinker_class' AS thinker_class,
        content::jsonb -> 'requester' ->> 'thinker_id' AS thinker_id,
        content::jsonb -> 'requester' ->> 'conversation_id' AS conversation_id,
        content,
        prev_digest,
        digest
    FROM nucleo_audit_records
    """,
)

_COLUMNS = "sequence, content, prev_digest, digest"


def _field(name: str) -> str:
    """The top-level field ``name`` of a record's content, in SQL."""
    return f"(content::jsonb ->> '{name}')"


# Rows read per query, as in SQLite: a reader never holds a connection while its caller works.
_PAGE = 500


def _error(message: str) -> AuditStoreError:
    return AuditStoreError(message)


@final
class PostgresAuditStore(FollowsByPolling):
    """An `AuditStore` in PostgreSQL.

    Args:
        url: The ``postgresql://`` store URL.
        create: Whether missing tables are created; else the first use raises
            `AuditStoreError` (a reader should not conjure up an empty log where one was
            expected).
    """

    __slots__ = ("_closed", "_database", "_lock", "_ready", "create", "path")

    def __init__(self, url: str, *, create: bool = True) -> None:
        self.path = url
        self.create = create
        self._database: PostgresDatabase = database(url)
        self._lock = threading.Lock()
        self._ready = False
        self._closed = False

    def migrate(self) -> int:
        """Create or migrate the tables now; the version found before."""
        found = self._database.migrate(COMPONENT, MIGRATIONS, _error)
        self._ready = True
        return found

    def _tx(self, doing: str, *, pipeline: bool = False) -> Any:
        if self._closed:
            raise AuditStoreError(f"the audit store {self._database.url} was closed")
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._open()
        return self._database.transaction(doing, _error, pipeline=pipeline)

    def _open(self) -> None:
        if self.create:
            self.migrate()
            return
        version = self._database.versions(_error).get(COMPONENT)
        if version is None:
            raise AuditStoreError(
                f"the store {self._database.url} holds no audit record yet; check the store "
                "URL (--store, $NUCLEO_STORE_URL)"
            )
        if version > len(MIGRATIONS):
            raise StoreVersionError(str(self._database.url), COMPONENT, version, len(MIGRATIONS))
        self._ready = True

    # -- writing --------------------------------------------------------------------------------

    def append(self, contents: Sequence[str], *, durable: bool = False) -> int:
        """Seal and store records of ``contents`` in one transaction; see `AuditStore.append`."""
        # Pipelined: the head is read in one round trip (with BEGIN), the rows, the new head
        # and the commit are sent in one more.
        with self._tx("append to the audit store", pipeline=True) as db:
            if not durable:
                db.execute("SET LOCAL synchronous_commit = off")
            # The head row, locked: the next appender waits here until this one commits.
            db.execute("SELECT sequence, digest FROM nucleo_audit_head WHERE id = 1 FOR UPDATE")
            head = db.fetchone()
            if head is None:
                raise AuditStoreError(
                    f"the audit store {self._database.url} has lost its head row; run "
                    "`nucleo audit verify`"
                )
            sequence, digest = int(head[0]), str(head[1])
            if contents:
                rows: list[tuple[int, str, str, str]] = []
                for content in contents:
                    sequence += 1
                    previous = digest
                    digest = chain_digest(sequence, previous, content)
                    rows.append((sequence, content, previous, digest))
                db.executemany(
                    "INSERT INTO nucleo_audit_records (sequence, content, prev_digest, digest) "
                    "VALUES (%s, %s, %s, %s)",
                    rows,
                )
                db.execute(
                    "UPDATE nucleo_audit_head SET sequence = %s, digest = %s WHERE id = 1",
                    (sequence, digest),
                )
        return sequence

    def flush(self) -> None:
        """Make every append so far durable: wait until the server has flushed its log."""
        if not self._ready:
            return
        with self._tx("flush the audit store") as db:
            # A transaction id makes this commit write a commit record, which (with
            # synchronous_commit on) waits for the log flushed up to it: every earlier
            # asynchronous commit with it.
            db.execute("SELECT pg_current_xact_id()")

    # -- reading --------------------------------------------------------------------------------

    def read(self, query: AuditQuery | None = None) -> Iterator[AuditRecord]:
        """The records ``query`` selects, in sequence order; see `AuditStore.read`."""
        selected = query or AuditQuery()
        sql, parameters = page_query(
            selected, table="nucleo_audit_records", mark="%s", field=_field, page=_PAGE
        )

        def fetch(after: int) -> list[Any]:
            with self._tx("read the audit store") as db:
                db.execute(sql, (after, *parameters))
                return list(db.fetchall())

        return paged_records(fetch, selected, _PAGE)

    def verify(self) -> VerifyReport:
        """Check every record and the head, in one snapshot of the database."""
        with self._tx("verify the audit store") as db:
            # One repeatable-read snapshot: appends by other workers meanwhile are not seen.
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            db.execute("SELECT sequence, digest FROM nucleo_audit_head WHERE id = 1")
            head = db.fetchone()
            db.execute(f"SELECT {_COLUMNS} FROM nucleo_audit_records ORDER BY sequence")
            rows = [StoredRow(*row) for row in db.fetchall()]
        return verify_chain(rows, None if head is None else (int(head[0]), str(head[1])))

    def close(self) -> None:
        """The store cannot be used afterwards (the pool is the process's, shared)."""
        self._closed = True
