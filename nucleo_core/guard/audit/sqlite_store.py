"""`SQLiteAuditStore`: the audit record in one SQLite file, the default store.

Imported only when a store is opened, so that ``import nucleo_core`` never imports ``sqlite3``.

- **Durability**: write-ahead logging with ``synchronous=NORMAL``: every committed append
  survives a crash of the process (the operating system holds it) without an ``fsync`` per
  batch; an append with ``durable=True`` is committed with ``synchronous=FULL``, so it (and
  every append before it) is on disk before it returns. `flush` syncs what was committed.
- **Checkpoints**: the write-ahead log is copied into the database file (and both synced) by a
  thread of the store's own, on a connection of its own, once about 4 MiB were appended since
  the last one, rather than by the append that happens to fill it (SQLite's automatic
  checkpoint, off on the appending connection): an append never waits for that copy and its
  syncs. Should that thread fall behind by four times as much (or fail), the next append
  checkpoints itself, so the log never grows without end.
- **One chain, many writers**: each append is one ``BEGIN IMMEDIATE`` transaction that reads
  the head (the last sequence number and digest), seals the entries after it, inserts them
  and moves the head; SQLite lets one writer at a time in, so appends from several threads or
  processes interleave whole, never inside one another.
- **Threads**: one connection, shared by every thread under a lock; reads are paged, so a
  reader never holds the lock while its caller works.
- **Schema** (``PRAGMA user_version``, 2): ``audit_records`` (``sequence``, ``content``,
  ``prev_digest``, ``digest``), ``audit_head`` (one row) and the view ``audit_view``, which
  adds the columns an operator filters on (``at``, ``kind``, ``tool``, ``source``, the
  requester's) read from the content. Schema 1 kept those columns in the table, generated from
  the content and computed on every insert; its files are read and appended to as they are. A
  file written by a later schema is refused rather than misread. Plain types only (the content
  is kept as text, never as a JSON column that would re-encode it), so that a PostgreSQL store
  can keep the same columns. Needs SQLite 3.31 or later, with its JSON functions (the SQLite of
  every supported Python build).
- **Inserts**: many rows per ``INSERT`` statement, so that an append crosses into SQLite once
  per chunk of rows rather than once per row.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, final

from nucleo_core.guard.audit._checkpointer import Checkpointer
from nucleo_core.guard.audit.errors import AuditStoreError
from nucleo_core.guard.audit.records import (
    GENESIS_DIGEST,
    AuditRecord,
)
from nucleo_core.guard.audit.store import AuditQuery, FollowsByPolling, page_query, paged_records
from nucleo_core.guard.audit.verify import StoredRow, VerifyReport, verify_chain
from nucleo_core.stores.sqlite import (
    OneConnection,
    immediate,
    open_sqlite,
    readable_schema_version,
    run_script,
)

__all__ = ["SCHEMA_VERSION", "SQLiteAuditStore"]

#: The schema this module writes; a file of a later version is refused.
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE audit_records (
    sequence INTEGER PRIMARY KEY,
    content TEXT NOT NULL,
    prev_digest TEXT NOT NULL,
    digest TEXT NOT NULL
);
CREATE TABLE audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    sequence INTEGER NOT NULL,
    digest TEXT NOT NULL
);
CREATE VIEW audit_view AS SELECT
    sequence,
    json_extract(content, '$.at') AS at,
    json_extract(content, '$.kind') AS kind,
    json_extract(content, '$.tool') AS tool,
    json_extract(content, '$.source') AS source,
    json_extract(content, '$.requester.thinker_class') AS thinker_class,
    json_extract(content, '$.requester.thinker_id') AS thinker_id,
    json_extract(content, '$.requester.conversation_id') AS conversation_id,
    content,
    prev_digest,
    digest
FROM audit_records
"""
# Schema 1 kept those columns in the table, generated from the content: never indexed, so no
# faster to filter on, and computed on every insert (they doubled an append's cost). A file
# of schema 1 is read and appended to as it is; a new file is of schema 2.
_READABLE_SCHEMAS = frozenset({1, SCHEMA_VERSION})

# Rows per INSERT statement: one statement binds many rows, so an append crosses from Python
# into SQLite (and gives up the GIL) once per chunk rather than once per row; 4 parameters a
# row stays under SQLite's oldest limit of 999 parameters a statement.
_CHUNK = 200
_INSERTS: dict[int, str] = {}


def _insert(rows: int) -> str:
    sql = _INSERTS.get(rows)
    if sql is None:
        values = ", ".join(["(?, ?, ?, ?)"] * rows)
        sql = _INSERTS[rows] = (
            f"INSERT INTO audit_records (sequence, content, prev_digest, digest) VALUES {values}"
        )
    return sql


_COLUMNS = "sequence, content, prev_digest, digest"
# Bytes appended (records' contents, and a row's digests and numbers) between checkpoints,
# about SQLite's own 1,000 pages; past `_CHECKPOINT_LATE` times as much, an append checkpoints.
_CHECKPOINT_BYTES = 4 << 20
_CHECKPOINT_LATE = 4
_ROW_BYTES = 160


def _field(name: str) -> str:
    """The top-level field ``name`` of a record's content, in SQL."""
    return f"json_extract(content, '$.{name}')"


# Rows read per query: a reader holds the connection's lock for one page at a time.
_PAGE = 500


@final
class SQLiteAuditStore(FollowsByPolling, OneConnection):
    """An `AuditStore` in a SQLite file.

    Args:
        path: The database file; created, with its folder, on first use when ``create``.
        create: Whether a missing file is created; else opening it raises `AuditStoreError`
            (a reader should not conjure up an empty log where one was expected).
        timeout: How long an append waits for another writer, in seconds.
    """

    __slots__ = (
        "_checkpointer",
        "_create",
        "_lock",
        "_synchronous",
        "_timeout",
        "_unchecked",
        "path",
    )

    def __init__(
        self, path: str | os.PathLike[str], *, create: bool = True, timeout: float = 10.0
    ) -> None:
        self.path = os.fspath(path)
        self._create = create
        self._timeout = timeout
        self._connection: sqlite3.Connection | None = None
        self._closed = False
        self._lock = threading.RLock()
        self._synchronous = "NORMAL"
        # Bytes appended since the last checkpoint, and the thread that makes them.
        self._unchecked = 0
        self._checkpointer: Checkpointer | None = None

    # -- writing --------------------------------------------------------------------------------

    def append(self, contents: Sequence[str], *, durable: bool = False) -> int:
        """Seal and store records of ``contents`` in one ``BEGIN IMMEDIATE`` transaction.

        See `AuditStore.append`.
        """
        with self._lock:
            connection = self._connect()
            try:
                self._set_synchronous(connection, "FULL" if durable else "NORMAL")
                with immediate(connection):
                    sequence, digest = self._head(connection)
                    if contents:
                        # The chain is sealed here, in one pass, inside the transaction that
                        # read the head: a writer in another process cannot fork it. Each
                        # digest is `chain_digest`'s, written out in the loop.
                        sha256 = hashlib.sha256
                        rows: list[object] = []
                        size = 0
                        for content in contents:
                            sequence += 1
                            previous = digest
                            text = f"{sequence}\n{previous}\n{content}".encode()
                            digest = sha256(text).hexdigest()
                            rows += (sequence, content, previous, digest)
                            size += len(text)
                        for start in range(0, len(rows), 4 * _CHUNK):
                            chunk = rows[start : start + 4 * _CHUNK]
                            connection.execute(_insert(len(chunk) // 4), chunk)
                        connection.execute(
                            "INSERT INTO audit_head (id, sequence, digest) VALUES (1, ?, ?) "
                            "ON CONFLICT (id) DO UPDATE SET sequence = excluded.sequence, "
                            "digest = excluded.digest",
                            (sequence, digest),
                        )
                if contents:
                    self._appended(connection, size + _ROW_BYTES * len(contents))
            except sqlite3.Error as exc:
                raise AuditStoreError(
                    f"cannot append to the audit store {self.path}: {exc}"
                ) from exc
            return sequence

    def _appended(self, connection: sqlite3.Connection, size: int) -> None:
        """Count ``size`` appended bytes; past the mark, have the log checkpointed."""
        unchecked = self._unchecked = self._unchecked + size
        if unchecked < _CHECKPOINT_BYTES:
            return
        if unchecked >= _CHECKPOINT_BYTES * _CHECKPOINT_LATE:
            # The thread fell behind (or failed): this append copies the log itself.
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self._unchecked = 0
            return
        checkpointer = self._checkpointer
        if checkpointer is None:
            checkpointer = self._checkpointer = Checkpointer(self.path, self._timeout)
        if checkpointer.request():
            self._unchecked = 0

    def flush(self) -> None:
        """Sync every committed append to disk (a checkpoint of the write-ahead log)."""
        with self._lock:
            if self._connection is None:
                return
            try:
                self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:
                raise AuditStoreError(f"cannot flush the audit store {self.path}: {exc}") from exc

    # -- reading --------------------------------------------------------------------------------

    def read(self, query: AuditQuery | None = None) -> Iterator[AuditRecord]:
        """The records ``query`` selects, in sequence order; see `AuditStore.read`."""
        selected = query or AuditQuery()
        sql, parameters = page_query(
            selected, table="audit_records", mark="?", field=_field, page=_PAGE
        )

        def fetch(after: int) -> list[Any]:
            with self._lock:
                connection = self._connect()
                try:
                    return connection.execute(sql, (after, *parameters)).fetchall()
                except sqlite3.Error as exc:
                    raise AuditStoreError(
                        f"cannot read the audit store {self.path}: {exc}"
                    ) from exc

        return paged_records(fetch, selected, _PAGE)

    def verify(self) -> VerifyReport:
        """Check every record and the head, in one snapshot of the file."""
        with self._lock:
            connection = self._connect()
            try:
                # One read transaction: appends by other processes meanwhile are not seen.
                connection.execute("BEGIN")
                try:
                    head = connection.execute(
                        "SELECT sequence, digest FROM audit_head WHERE id = 1"
                    ).fetchone()
                    cursor = connection.execute(
                        f"SELECT {_COLUMNS} FROM audit_records ORDER BY rowid"
                    )
                    rows = (StoredRow(*row) for row in cursor)
                    return verify_chain(rows, None if head is None else (head[0], head[1]))
                finally:
                    connection.execute("COMMIT")
            except sqlite3.Error as exc:
                raise AuditStoreError(f"cannot verify the audit store {self.path}: {exc}") from exc

    # -- the connection -------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        with self._lock:
            checkpointer, self._checkpointer = self._checkpointer, None
            if checkpointer is not None:
                checkpointer.stop()
            self._close_connection()  # the last connection to close checkpoints the log

    def __del__(self) -> None:
        # A store dropped without `close`: its checkpoints stop, then its connection closes.
        checkpointer = getattr(self, "_checkpointer", None)
        if checkpointer is not None:
            checkpointer.stop(wait=False)
        super().__del__()

    def _closed_error(self) -> AuditStoreError:
        return AuditStoreError(f"the audit store {self.path} was closed")

    def _open(self) -> sqlite3.Connection:
        if not self._create and not Path(self.path).exists():
            raise AuditStoreError(
                f"no audit record at {self.path}: nothing was recorded there yet (or the file "
                "was moved or deleted)"
            )
        connection = open_sqlite(
            self.path,
            timeout=self._timeout,
            # Checkpoints are made by the store's own thread (`Checkpointer`), not by an append.
            pragmas=("journal_mode=WAL", "synchronous=NORMAL", "wal_autocheckpoint=0"),
            prepare=self._migrate,
            cannot_open=self._cannot_open,
            create=self._create,
        )
        self._synchronous = "NORMAL"
        return connection

    def _cannot_open(self, reason: str) -> AuditStoreError:
        return AuditStoreError(f"cannot open the audit store {self.path}: {reason}")

    def _migrate(self, connection: sqlite3.Connection) -> None:
        with immediate(connection):
            store = f"the audit store {self.path}"
            version = readable_schema_version(connection, SCHEMA_VERSION, AuditStoreError, store)
            if version == 0:
                tables = connection.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                ).fetchone()[0]
                if tables:
                    raise AuditStoreError(
                        f"{self.path} is a SQLite file but not an audit record; "
                        "configure another path"
                    )
                run_script(connection, _SCHEMA)
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version not in _READABLE_SCHEMAS:
                raise AuditStoreError(
                    f"{self.path} holds audit schema {version}, which this nucleo does not "
                    "read; configure another path"
                )

    def _set_synchronous(self, connection: sqlite3.Connection, mode: str) -> None:
        if self._synchronous != mode:
            connection.execute(f"PRAGMA synchronous={mode}")
            self._synchronous = mode

    @staticmethod
    def _head(connection: sqlite3.Connection) -> tuple[int, str]:
        row = connection.execute("SELECT sequence, digest FROM audit_head WHERE id = 1").fetchone()
        return (0, GENESIS_DIGEST) if row is None else (int(row[0]), str(row[1]))
