"""`PostgresConversationStore`: durable conversations in a PostgreSQL database.

Imported only when a ``postgresql://`` store URL is used (it imports ``psycopg``).

- **The same journal**: the tables of `SQLiteConversationStore` (prefixed ``nucleo_``), the
  same JSON records; every journal call is one transaction, committed (``synchronous_commit``
  as the server has it, on by default) before it returns. A call on a conversation this store
  holds runs on the hold's own session, pipelined (its statements and its commit sent at once:
  one round trip to the server); so a write can only commit while the writer's lock is held
  (a session that ended, with its lock, writes nothing more). Other calls borrow a pooled
  connection.
- **Opening is one transaction**: `open_for_writing` takes the lock, records the holder, and
  loads the conversation (or creates it, empty) in one pipelined transaction on the hold's
  session: a new conversation costs one commit, a stored one none that waits for the disk.
- **One writer per conversation, across hosts**: `hold` takes a *session-level advisory lock*
  named by the conversation id, on a connection of the hold's own. The server releases such a
  lock when its session ends, however it ends: the holder closing, its process killed (the
  socket closes, the backend ends), or its host gone (TCP keepalives end the session within
  about a minute). So a dead holder is detected through its lock, never guessed from a clock.
  Who holds it (pid, host, since when) is recorded in ``nucleo_writers``, written and read
  under a transaction-level advisory lock of the same conversation, so that a refused opener
  reads the record of whoever holds the lock, never a half-written or previous one. That table
  is ``UNLOGGED`` (schema version 2): a record names a live session, and no session outlives
  the server, so the records need not outlive it either (a crashed server comes back with the
  table empty and every lock free: the same state). Writing one therefore waits for no flush
  of the write-ahead log; the conversation's own tables are logged as before.
- **Schema**: versioned in ``nucleo_schema`` (component ``conversations``), migrated forward
  under an advisory lock by whichever process opens the store first (see `stores.postgres`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, final

from nucleo_core.conversations._journal_sql import POSTGRES, SQLJournal, read_snapshot
from nucleo_core.conversations._schema import POSTGRES_COMPONENT as COMPONENT
from nucleo_core.conversations._schema import POSTGRES_MIGRATIONS as MIGRATIONS
from nucleo_core.conversations.errors import ConversationBusy, ConversationStoreError
from nucleo_core.conversations.journal import ConversationSnapshot
from nucleo_core.conversations.postgres_hold import (
    HOLDS,
    PostgresWriterHold,
    held_here,
    hold_key,
    record_key,
)
from nucleo_core.conversations.writer_hold import busy, warn_taken_over
from nucleo_core.stores.postgres import PostgresDatabase, database

if TYPE_CHECKING:
    import psycopg

    from nucleo_core.conversations.artifact import Artifact

__all__ = ["MIGRATIONS", "PostgresConversationStore", "PostgresWriterHold"]

logger = logging.getLogger("nucleo.conversations")


def _store_error(message: str) -> ConversationStoreError:
    return ConversationStoreError(message)


@final
class PostgresConversationStore(SQLJournal):
    """The `ConversationJournal` of durable conversations, in PostgreSQL.

    Args:
        url: The ``postgresql://`` store URL.
        wait: How long `hold` waits for another holder to let go, in seconds (``0``: raise
            `ConversationBusy` at once).
    """

    _sql = POSTGRES

    __slots__ = (
        "__weakref__",
        "_closed",
        "_database",
        "_holds",
        "_lock",
        "_migrated",
        "_writing",
        "path",
        "wait",
    )

    def __init__(self, url: str, *, wait: float = 0.0) -> None:
        self.path = url
        self.wait = wait
        self._database: PostgresDatabase = database(url)
        self._lock = threading.RLock()
        self._holds: dict[str, PostgresWriterHold] = {}
        #: The holds by conversation id: the journal writes a held conversation on its session.
        self._writing: dict[str, PostgresWriterHold] = {}
        self._migrated = False
        self._closed = False

    # -- the connection -----------------------------------------------------------------------

    def file_exists(self) -> bool:
        """Always ``True``: the database is there (its tables are made on first use)."""
        return True

    def migrate(self) -> int:
        """Create or migrate the tables now; the version found before."""
        found = self._database.migrate(COMPONENT, MIGRATIONS, _store_error)
        self._migrated = True
        return found

    def _ready(self) -> PostgresDatabase:
        if self._closed:
            raise ConversationStoreError(f"the conversation store {self._database.url} was closed")
        if not self._migrated:
            with self._lock:
                if not self._migrated:
                    self.migrate()
        return self._database

    def _tx(self, doing: str, *, pipeline: bool = False) -> Any:
        return self._ready().transaction(doing, _store_error, pipeline=pipeline)

    @contextlib.contextmanager
    def _write(self, conversation_id: str, doing: str) -> Iterator[Any]:
        """A cursor in one transaction writing ``conversation_id``, committed on success.

        On the hold's session when this store holds the conversation (pipelined: the
        statements and the commit reach the server in one round trip), else on a pooled
        connection.

        Raises:
            ConversationStoreError: The transaction failed (and was rolled back), or the
                hold's session ended (its lock with it): nothing was written.
        """
        hold = self._writing.get(conversation_id)
        if hold is None:
            with self._tx(doing, pipeline=True) as db:
                yield db
            return
        import psycopg

        with hold.lock:
            connection = hold.connection
            if connection is None or connection.closed:
                raise ConversationStoreError(
                    f"cannot {doing}: this process's session holding it ended "
                    f"({self._database.url}), and its writer's lock with it"
                )
            try:
                with connection.pipeline(), connection.transaction():
                    yield connection.cursor()
            except psycopg.Error as exc:
                raise ConversationStoreError(
                    f"cannot {doing} ({self._database.url}): {exc}"
                ) from exc

    def _check_artifact(self, artifact: Artifact) -> None:
        if "\x00" in artifact.content:
            # PostgreSQL's text cannot hold NUL, which SQLite's can.
            raise ConversationStoreError(
                f"cannot store artifact {artifact.id}: its text holds a NUL character, which "
                "PostgreSQL's text cannot keep"
            )
        super()._check_artifact(artifact)

    def close(self) -> None:
        """Release every hold; the store cannot be used afterwards (the pool is shared)."""
        with self._lock:
            for hold in list(self._holds.values()):
                self.release(hold)
            self._closed = True

    def __del__(self) -> None:
        for hold in list(getattr(self, "_holds", {}).values()):
            connection, hold.connection = hold.connection, None
            if connection is not None:
                # The server releases the lock with the session; at interpreter shutdown
                # closing may fail, and the session ends with the process anyway.
                with contextlib.suppress(Exception):
                    connection.close()

    # -- the one writer -----------------------------------------------------------------------

    def hold(self, conversation_id: str) -> PostgresWriterHold:
        """Take the writer's hold of ``conversation_id``, until `release`.

        A record left by a holder whose session ended (it died) is replaced, with a warning
        naming that holder.

        Raises:
            ConversationBusy: Another session holds it (after waiting up to ``wait``).
            ConversationStoreError: The store cannot be reached.
        """
        return self._take(conversation_id, None)[0]

    def open_for_writing(
        self, conversation_id: str, *, created: datetime
    ) -> tuple[PostgresWriterHold, ConversationSnapshot]:
        """Take the hold of ``conversation_id`` and read it, in one transaction.

        What `hold`, then `load`, then (for a conversation not stored) `create` of an empty
        one created at ``created`` do, on the hold's session and pipelined: one round trip to
        take the lock, one to record the holder and read the conversation, and the commit.

        Raises:
            ConversationBusy: Another session holds it (after waiting up to ``wait``).
            ConversationStoreError: The store cannot be reached, or holds a corrupt record of
                the conversation (the hold is given back).
        """
        hold, snapshot = self._take(conversation_id, created)
        assert snapshot is not None
        return hold, snapshot

    def _take(
        self, conversation_id: str, created: datetime | None
    ) -> tuple[PostgresWriterHold, ConversationSnapshot | None]:
        import psycopg

        database = self._ready()
        deadline = time.monotonic() + self.wait
        connection = database.hold_session(_store_error)
        try:
            while True:
                hold, previous, refusal, snapshot = self._try_hold(
                    connection, conversation_id, created
                )
                if hold is not None:
                    break
                if time.monotonic() >= deadline:
                    assert refusal is not None
                    raise refusal
                # The holder's turn ends when it closes; poll rather than block inside the
                # record lock, so that the holder can still release.
                time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        except psycopg.Error as exc:
            database.end_session(connection, released=False)
            raise ConversationStoreError(
                f"cannot open conversation {conversation_id} for writing: {exc}"
            ) from exc
        except BaseException:
            # A lock taken in a failed transaction goes with the session: end it.
            database.end_session(connection, released=False)
            raise
        with self._lock:
            self._holds[hold.token] = hold
            self._writing[conversation_id] = hold
        HOLDS[hold.token] = hold
        if previous is not None:
            warn_taken_over(conversation_id, previous, hold.pid)
        return hold, snapshot

    def _try_hold(
        self, connection: psycopg.Connection[Any], conversation_id: str, created: datetime | None
    ) -> tuple[
        PostgresWriterHold | None,
        Sequence[Any] | None,
        ConversationBusy | None,
        ConversationSnapshot | None,
    ]:
        """One attempt, in one pipelined transaction; with ``created``, read (or create) it too.

        The record is read only once the record lock is taken (each statement of a pipeline
        reads what was committed when it starts, and they run in order).
        """
        with connection.pipeline(), connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (record_key(conversation_id),))
            found = connection.execute(
                "SELECT pid, host, since, token FROM nucleo_writers WHERE conversation_id = %s",
                (conversation_id,),
            )
            row = connection.execute(
                "SELECT pg_try_advisory_lock(%s)", (hold_key(conversation_id),)
            ).fetchone()
            record = found.fetchone()
            if row is None or not row[0]:
                return None, None, busy(conversation_id, record, ours=held_here), None
            hold = PostgresWriterHold(conversation_id=conversation_id, connection=connection)
            connection.execute(
                "INSERT INTO nucleo_writers (conversation_id, token, pid, host, since) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (conversation_id) DO UPDATE SET "
                "token = excluded.token, pid = excluded.pid, host = excluded.host, "
                "since = excluded.since",
                (conversation_id, hold.token, hold.pid, hold.host, hold.since.isoformat()),
            )
            snapshot = None
            if created is not None:
                # Read under the writer's lock: whatever the previous writer committed.
                snapshot = read_snapshot(connection, POSTGRES, conversation_id)
                if snapshot is None:
                    snapshot = ConversationSnapshot(id=conversation_id, created=created)
                    self._insert_head(connection, snapshot)
        return hold, record, None, snapshot

    def release(self, hold: PostgresWriterHold, *, forget: bool = False) -> None:
        """Give ``hold`` back; never raises (closing its session releases the lock anyway)."""
        del forget  # no lock file to remove
        with self._lock:
            self._holds.pop(hold.token, None)
            if self._writing.get(hold.conversation_id) is hold:
                del self._writing[hold.conversation_id]
        HOLDS.pop(hold.token, None)
        with hold.lock:  # a write of the conversation on its session finishes first
            connection, hold.connection = hold.connection, None
        if connection is None:
            return
        released = False
        try:
            # The record goes in the transaction that releases the lock, under the record
            # lock: no opener sees the lock free with this record still there.
            with connection.pipeline(), connection.transaction():
                connection.execute(
                    "SELECT pg_advisory_xact_lock(%s)", (record_key(hold.conversation_id),)
                )
                connection.execute(
                    "DELETE FROM nucleo_writers WHERE conversation_id = %s AND token = %s",
                    (hold.conversation_id, hold.token),
                )
                connection.execute(
                    "SELECT pg_advisory_unlock(%s)", (hold_key(hold.conversation_id),)
                )
            released = True
        except Exception:
            logger.warning(
                "conversation %s: could not clear its writer record (the next writer replaces it)",
                hold.conversation_id,
                exc_info=True,
            )
        finally:
            # A session whose lock is released serves the next hold; any other one ends.
            self._database.end_session(connection, released=released)

    # -- reading ------------------------------------------------------------------------------

    def ids(self) -> list[str]:
        """Every stored conversation id, oldest first."""
        with self._tx("list conversations") as db:
            db.execute(POSTGRES.list_ids)
            return [row[0] for row in db.fetchall()]

    def exists(self, conversation_id: str) -> bool:
        """Whether a conversation of that id is stored."""
        with self._tx("look up a conversation") as db:
            db.execute(POSTGRES.exists, (conversation_id,))
            return db.fetchone() is not None

    def load(self, conversation_id: str) -> ConversationSnapshot | None:
        """Everything stored for the conversation, or ``None`` when it is not stored.

        Raises:
            ConversationStoreError: A record of it is corrupt; the message names which.
        """
        with self._tx(f"load conversation {conversation_id}", pipeline=True) as db:
            # One snapshot of every table, however the writer goes on meanwhile.
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return read_snapshot(db.connection, POSTGRES, conversation_id)

    # -- the journal --------------------------------------------------------------------------

    def delete(self, conversation_id: str) -> bool:
        """Delete the conversation and everything stored with it; ``False`` if not stored."""
        with self._tx(f"delete conversation {conversation_id}") as db:
            db.execute(POSTGRES.delete, (conversation_id,))
            return bool(db.rowcount > 0)
