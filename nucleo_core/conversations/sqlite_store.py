"""`SQLiteConversationStore`: durable conversations in one SQLite file.

Imported only when a durable conversation is first used, so that ``import nucleo_core`` never
imports ``sqlite3``.

- **Durability**: write-ahead logging with ``synchronous=FULL``, so a committed change is on
  disk before the call that made it returns; a process killed at any moment leaves every
  committed change readable by the next one.
- **Transactions**: every journal call is one ``BEGIN IMMEDIATE`` ... ``COMMIT``; a failure
  rolls the whole change back and raises `ConversationStoreError`.
- **Threads**: one connection, shared by every thread under a lock.
- **One writer per conversation**: `hold` takes a conversation's `WriterHold` (a kernel lock
  on a file beside the store, its holder recorded in the ``writers`` table) or raises
  `ConversationBusy` naming the holder; `release` gives it back. See `writer_hold`.
- **Schema**: versioned by ``PRAGMA user_version``; a file written by a later schema is refused
  rather than misread, and one of an earlier version is migrated when first opened. Messages,
  carried states and metadata are stored as the JSON records of `message_codec`; an attached
  skill's record (version 3) as a JSON object of its fields.
"""

from __future__ import annotations

import atexit
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, final

from nucleo_core.conversations._journal_sql import SQLITE, SQLJournal, read_snapshot
from nucleo_core.conversations._schema import (
    SQLITE_SCHEMA,
    SQLITE_SKILL_RECORDS,
    SQLITE_WRITERS,
)
from nucleo_core.conversations._schema import SQLITE_SCHEMA_VERSION as SCHEMA_VERSION
from nucleo_core.conversations.errors import ConversationStoreError
from nucleo_core.conversations.journal import ConversationSnapshot
from nucleo_core.conversations.writer_hold import (
    WriterHold,
    busy,
    lock_path,
    try_lock,
    unlock,
    warn_taken_over,
)
from nucleo_core.stores.sqlite import (
    MEMORY,
    OneConnection,
    immediate,
    open_sqlite,
    readable_schema_version,
    run_script,
)

__all__ = ["SCHEMA_VERSION", "SQLiteConversationStore"]


logger = logging.getLogger("nucleo.conversations")


@final
class SQLiteConversationStore(SQLJournal, OneConnection):
    """The `ConversationJournal` of durable conversations, in a SQLite file.

    Args:
        path: The database file (created, with its folder, on first connection), or
            ``":memory:"`` for a database that lives as long as this store.
    """

    __slots__ = ("__weakref__", "_holds", "_lock", "path")

    _sql = SQLITE

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._connection: sqlite3.Connection | None = None
        self._closed = False
        self._lock = threading.RLock()
        self._holds: dict[str, WriterHold] = {}

    # -- the connection -----------------------------------------------------------------------

    def file_exists(self) -> bool:
        """Whether there is anything to read yet (an open connection, or the file)."""
        return self._connection is not None or (self.path != MEMORY and Path(self.path).exists())

    def close(self) -> None:
        """Release every hold, close the connection; the store cannot be used afterwards."""
        with self._lock:
            self._release_all()
            self._close_connection()
            _HOLDING.discard(self)

    def __del__(self) -> None:
        # A store dropped without `close` (a service never shut down, say the local of a
        # script's main) releases its holds as `close` releases them, so the next writer does
        # not take this one for a writer that died; then its connection is closed.
        holds = list(getattr(self, "_holds", {}).values())
        try:
            if holds and self._connection is not None:
                self._release_all()
        except Exception:  # at interpreter shutdown: the locks still go, below
            pass
        for hold in holds:
            unlock(hold)
        super().__del__()

    def _closed_error(self) -> ConversationStoreError:
        return ConversationStoreError(f"the conversation store {self.path} was closed")

    def _open(self) -> sqlite3.Connection:
        return open_sqlite(
            self.path,
            timeout=10.0,
            pragmas=("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON"),
            prepare=self._migrate,
            cannot_open=lambda reason: ConversationStoreError(
                f"cannot open the conversation store {self.path}: {reason}"
            ),
            cannot_use=lambda reason: ConversationStoreError(
                f"cannot use the conversation store {self.path}: {reason}"
            ),
        )

    def _migrate(self, connection: sqlite3.Connection) -> None:
        with immediate(connection):
            store = f"the conversation store {self.path}"
            version = readable_schema_version(
                connection, SCHEMA_VERSION, ConversationStoreError, store
            )
            if version == 0:
                run_script(connection, SQLITE_SCHEMA)
            if version < 2:  # version 2 added who writes each conversation
                connection.execute(SQLITE_WRITERS)
            if version < 3 and not _has_column(connection, "skills", "record"):
                connection.execute(SQLITE_SKILL_RECORDS)  # version 3 added the skills' records
            if version < SCHEMA_VERSION:
                connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @contextmanager
    def _transaction(
        self, doing: str, *, write: bool = True, reopen: bool = True
    ) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if not reopen and self._connection is None:
                raise ConversationStoreError(f"cannot {doing}: the store is not open")
            connection = self._connect()
            try:
                connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield connection
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
                connection.execute("COMMIT")
            except sqlite3.Error as exc:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise ConversationStoreError(f"cannot {doing}: {exc}") from exc

    def _write(self, conversation_id: str, doing: str) -> AbstractContextManager[Any]:
        return self._transaction(doing)

    # -- the one writer -------------------------------------------------------------------------

    def hold(self, conversation_id: str) -> WriterHold | None:
        """Take the writer's hold of ``conversation_id`` for this store, until `release`.

        An in-memory store needs none (no other process sees it): ``None``. A hold found left
        by a holder that ended without releasing it (it died) is taken over, with a warning
        naming that holder.

        Raises:
            ConversationBusy: Another process, or another store of this process, holds it.
            ConversationStoreError: The store or the lock file cannot be used.
        """
        if self.path == MEMORY:
            return None
        path = lock_path(self.path, conversation_id)
        fd: int | None = None
        hold: WriterHold | None = None
        try:
            # One write transaction around the lock and its record: an opener that finds the
            # lock taken reads the record of whoever took it, never a half-written one.
            with self._transaction(f"open conversation {conversation_id} for writing") as db:
                record = db.execute(
                    "SELECT pid, host, since, token FROM writers WHERE conversation_id = ?",
                    (conversation_id,),
                ).fetchone()
                fd = try_lock(path, conversation_id)
                if fd is None:
                    raise busy(conversation_id, record)
                hold = WriterHold(conversation_id=conversation_id, lock_file=path, fd=fd)
                db.execute(
                    "INSERT OR REPLACE INTO writers (conversation_id, token, pid, host, since) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (conversation_id, hold.token, hold.pid, hold.host, hold.since.isoformat()),
                )
        except BaseException:  # the record was not committed: give the lock back
            if hold is not None:
                unlock(hold)
            elif fd is not None:
                os.close(fd)
            raise
        with self._lock:
            self._holds[hold.token] = hold
            _HOLDING.add(self)
        if record is not None:
            warn_taken_over(conversation_id, record, hold.pid)
        return hold

    def open_for_writing(
        self, conversation_id: str, *, created: datetime
    ) -> tuple[WriterHold | None, ConversationSnapshot]:
        """`hold`, then `load`, then (for a conversation not stored) `create` an empty one.

        Raises:
            ConversationBusy: Another process, or another store of this process, holds it.
            ConversationStoreError: The store cannot be used, or holds a corrupt record of the
                conversation (the hold is given back).
        """
        hold = self.hold(conversation_id)
        try:
            snapshot = self.load(conversation_id)
            if snapshot is None:
                snapshot = ConversationSnapshot(id=conversation_id, created=created)
                self.create(snapshot)
        except BaseException:
            if hold is not None:
                self.release(hold)
            raise
        return hold, snapshot

    def release(self, hold: WriterHold, *, forget: bool = False) -> None:
        """Give ``hold`` back; never raises (a failure is logged, and the lock released anyway).

        Args:
            hold: A hold this store took.
            forget: Remove the lock file too (the conversation was deleted).
        """
        with self._lock:
            if self._holds.pop(hold.token, None) is None or not hold.held:
                unlock(hold)
                return
            try:
                # The lock is released inside the transaction that deletes its record, so no
                # opener sees it taken with no record, nor free with this record still there.
                with self._transaction(
                    f"release conversation {hold.conversation_id}", reopen=False
                ) as db:
                    db.execute(
                        "DELETE FROM writers WHERE conversation_id = ? AND token = ?",
                        (hold.conversation_id, hold.token),
                    )
                    if forget:
                        hold.lock_file.unlink(missing_ok=True)
                    unlock(hold)
            except (ConversationStoreError, OSError):
                logger.warning(
                    "conversation %s: could not clear its writer record (the next writer "
                    "replaces it)",
                    hold.conversation_id,
                    exc_info=True,
                )
            finally:
                unlock(hold)

    def _release_all(self) -> None:
        with self._lock:
            for hold in list(self._holds.values()):
                self.release(hold)

    # -- reading ------------------------------------------------------------------------------

    def ids(self) -> list[str]:
        """Every stored conversation id, oldest first."""
        if not self.file_exists():
            return []
        with self._transaction("list conversations", write=False) as db:
            rows = db.execute(SQLITE.list_ids).fetchall()
        return [row[0] for row in rows]

    def exists(self, conversation_id: str) -> bool:
        """Whether a conversation of that id is stored."""
        if not self.file_exists():
            return False
        with self._transaction("look up a conversation", write=False) as db:
            row = db.execute(SQLITE.exists, (conversation_id,)).fetchone()
        return row is not None

    def load(self, conversation_id: str) -> ConversationSnapshot | None:
        """Everything stored for the conversation, or ``None`` when it is not stored.

        Raises:
            ConversationStoreError: A record of it is corrupt; the message names which.
        """
        if not self.file_exists():
            return None
        with self._transaction(f"load conversation {conversation_id}", write=False) as db:
            return read_snapshot(db, SQLITE, conversation_id)

    # -- the journal --------------------------------------------------------------------------

    def delete(self, conversation_id: str) -> bool:
        """Delete the conversation and everything stored with it; ``False`` if not stored."""
        if not self.file_exists():
            return False
        with self._transaction(f"delete conversation {conversation_id}") as db:
            cursor = db.execute(SQLITE.delete, (conversation_id,))
            return cursor.rowcount > 0


#: The stores holding a conversation now, released at exit: a process that ends without
#: closing its service leaves no record of itself as a writer that ended abnormally.
_HOLDING: weakref.WeakSet[SQLiteConversationStore] = weakref.WeakSet()


@atexit.register
def _release_at_exit() -> None:
    for store in list(_HOLDING):
        store._release_all()


def _has_column(connection: sqlite3.Connection, table: str, column: str) -> bool:
    """Whether ``table`` has ``column`` (a migration adds a column only once)."""
    rows = connection.execute(f"PRAGMA table_info({table})").fetchall()
    return any(row[1] == column for row in rows)
