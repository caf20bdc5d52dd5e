"""`PostgresConversationStore`: durable conversations in a PostgreSQL database.

Imported only when a ``postgresql://`` store URL is used (it imports ``psycopg``).

- **The same journal**: the tables of `SQLiteConversationStore` (prefixed ``nucleo_``), the
  same JSON records; every journal call is one transaction on a pooled connection, committed
  (``synchronous_commit`` as the server has it, on by default) before it returns.
- **One writer per conversation, across hosts**: `hold` takes a *session-level advisory lock*
  named by the conversation id, on a connection of the hold's own. The server releases such a
  lock when its session ends, however it ends: the holder closing, its process killed (the
  socket closes, the backend ends), or its host gone (TCP keepalives end the session within
  about a minute). So a dead holder is detected through its lock, never guessed from a clock.
  Who holds it (pid, host, since when) is recorded in ``nucleo_writers``, written and read
  under a transaction-level advisory lock of the same conversation, so that a refused opener
  reads the record of whoever holds the lock, never a half-written or previous one.
- **Schema**: versioned in ``nucleo_schema`` (component ``conversations``), migrated forward
  under an advisory lock by whichever process opens the store first (see `stores.postgres`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, final

from nucleo_core.conversations.errors import ConversationBusy, ConversationStoreError
from nucleo_core.conversations.journal import ConversationSnapshot
from nucleo_core.conversations.message_codec import encode_message
from nucleo_core.conversations.sqlite_store import _carried, _json, _Reader, _skill_record
from nucleo_core.conversations.writer_hold import this_host
from nucleo_core.stores.postgres import PostgresDatabase, advisory_key, database

if TYPE_CHECKING:
    import psycopg

    from nucleo_core.conversations.artifacts import Artifact
    from nucleo_core.conversations.marker import Marker
    from nucleo_core.models.messages import Message
    from nucleo_core.skills.skill import Skill
    from nucleo_core.tools.state import CarriedState

__all__ = ["MIGRATIONS", "PostgresConversationStore", "PostgresWriterHold"]

logger = logging.getLogger("nucleo.conversations")

#: The forward-only steps of the ``conversations`` component: ``MIGRATIONS[n]`` goes from
#: version ``n`` to ``n + 1``. Timestamps are ISO text, as in SQLite, so both read alike.
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE nucleo_conversations (
        id TEXT PRIMARY KEY,
        seq BIGSERIAL UNIQUE,
        created TEXT NOT NULL,
        summary TEXT,
        carried TEXT NOT NULL
    );
    CREATE TABLE nucleo_messages (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (conversation_id, position)
    );
    CREATE TABLE nucleo_skills (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        record TEXT,
        PRIMARY KEY (conversation_id, position)
    );
    CREATE TABLE nucleo_markers (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL,
        at TEXT NOT NULL,
        position INTEGER,
        PRIMARY KEY (conversation_id, number)
    );
    CREATE TABLE nucleo_metadata (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (conversation_id, key)
    );
    CREATE TABLE nucleo_artifacts (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        seq BIGSERIAL,
        id TEXT NOT NULL,
        content TEXT NOT NULL,
        media_type TEXT NOT NULL,
        created TEXT NOT NULL,
        UNIQUE (conversation_id, id)
    );
    CREATE TABLE nucleo_writers (
        conversation_id TEXT PRIMARY KEY,
        token TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        since TEXT NOT NULL
    )
    """,
)

COMPONENT: Final = "conversations"

#: The holds this process has, by token (a refused opener tells whether it is this process).
_HOLDS: weakref.WeakValueDictionary[str, PostgresWriterHold] = weakref.WeakValueDictionary()


@final
@dataclass(slots=True, weakref_slot=True, eq=False, kw_only=True)
class PostgresWriterHold:
    """This process's hold of one conversation: a session-level advisory lock.

    Attributes:
        conversation_id: The conversation held.
        connection: The session holding the lock (``None`` once released).
        token: A random id of this hold.
        pid: This process's id when the hold was taken.
        host: This host's name.
        since: When the hold was taken (UTC).
    """

    conversation_id: str
    connection: psycopg.Connection[Any] | None
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    pid: int = field(default_factory=os.getpid)
    host: str = field(default_factory=this_host)
    since: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def held(self) -> bool:
        """Whether this process still holds the lock."""
        return self.connection is not None and not self.connection.closed


def _hold_key(conversation_id: str) -> int:
    return advisory_key("nucleo.conversation", conversation_id)


def _record_key(conversation_id: str) -> int:
    return advisory_key("nucleo.conversation.writer-record", conversation_id)


def _store_error(message: str) -> ConversationStoreError:
    return ConversationStoreError(message)


@final
class PostgresConversationStore:
    """The `ConversationJournal` of durable conversations, in PostgreSQL.

    Args:
        url: The ``postgresql://`` store URL.
        wait: How long `hold` waits for another holder to let go, in seconds (``0``: raise
            `ConversationBusy` at once).
    """

    __slots__ = (
        "__weakref__",
        "_closed",
        "_database",
        "_holds",
        "_lock",
        "_migrated",
        "path",
        "wait",
    )

    def __init__(self, url: str, *, wait: float = 0.0) -> None:
        self.path = url
        self.wait = wait
        self._database: PostgresDatabase = database(url)
        self._lock = threading.RLock()
        self._holds: dict[str, PostgresWriterHold] = {}
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

    def _tx(self, doing: str) -> Any:
        return self._ready().transaction(doing, _store_error)

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
        import psycopg

        database = self._ready()
        deadline = time.monotonic() + self.wait
        connection = database.hold_session(_store_error)
        try:
            while True:
                hold, previous, refusal = self._try_hold(connection, conversation_id)
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
        _HOLDS[hold.token] = hold
        if previous is not None:
            pid, host, since, _ = previous
            logger.warning(
                "conversation %s: its previous writer (pid %s on host %s, since %s) ended "
                "without closing it; this process (pid %d) takes it over",
                conversation_id,
                pid,
                host,
                since,
                hold.pid,
            )
        return hold

    def _try_hold(
        self, connection: psycopg.Connection[Any], conversation_id: str
    ) -> tuple[PostgresWriterHold | None, Sequence[Any] | None, ConversationBusy | None]:
        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (_record_key(conversation_id),))
            record = connection.execute(
                "SELECT pid, host, since, token FROM nucleo_writers WHERE conversation_id = %s",
                (conversation_id,),
            ).fetchone()
            row = connection.execute(
                "SELECT pg_try_advisory_lock(%s)", (_hold_key(conversation_id),)
            ).fetchone()
            if row is None or not row[0]:
                return None, None, _busy(conversation_id, record)
            hold = PostgresWriterHold(conversation_id=conversation_id, connection=connection)
            connection.execute(
                "INSERT INTO nucleo_writers (conversation_id, token, pid, host, since) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (conversation_id) DO UPDATE SET "
                "token = excluded.token, pid = excluded.pid, host = excluded.host, "
                "since = excluded.since",
                (conversation_id, hold.token, hold.pid, hold.host, hold.since.isoformat()),
            )
        return hold, record, None

    def release(self, hold: PostgresWriterHold, *, forget: bool = False) -> None:
        """Give ``hold`` back; never raises (closing its session releases the lock anyway)."""
        del forget  # no lock file to remove
        with self._lock:
            self._holds.pop(hold.token, None)
        _HOLDS.pop(hold.token, None)
        connection, hold.connection = hold.connection, None
        if connection is None:
            return
        released = False
        try:
            # The record goes in the transaction that releases the lock, under the record
            # lock: no opener sees the lock free with this record still there.
            with connection.transaction():
                connection.execute(
                    "SELECT pg_advisory_xact_lock(%s)", (_record_key(hold.conversation_id),)
                )
                connection.execute(
                    "DELETE FROM nucleo_writers WHERE conversation_id = %s AND token = %s",
                    (hold.conversation_id, hold.token),
                )
                connection.execute(
                    "SELECT pg_advisory_unlock(%s)", (_hold_key(hold.conversation_id),)
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
            db.execute("SELECT id FROM nucleo_conversations ORDER BY created, seq")
            return [row[0] for row in db.fetchall()]

    def exists(self, conversation_id: str) -> bool:
        """Whether a conversation of that id is stored."""
        with self._tx("look up a conversation") as db:
            db.execute("SELECT 1 FROM nucleo_conversations WHERE id = %s", (conversation_id,))
            return db.fetchone() is not None

    def load(self, conversation_id: str) -> ConversationSnapshot | None:
        """Everything stored for the conversation, or ``None`` when it is not stored.

        Raises:
            ConversationStoreError: A record of it is corrupt; the message names which.
        """
        cid = (conversation_id,)
        with self._tx(f"load conversation {conversation_id}") as db:
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            db.execute(
                "SELECT created, summary, carried FROM nucleo_conversations WHERE id = %s", cid
            )
            head = db.fetchone()
            if head is None:
                return None
            db.execute(
                "SELECT position, record FROM nucleo_messages WHERE conversation_id = %s "
                "ORDER BY position",
                cid,
            )
            messages = db.fetchall()
            db.execute(
                "SELECT name, record FROM nucleo_skills WHERE conversation_id = %s "
                "ORDER BY position",
                cid,
            )
            skills = db.fetchall()
            db.execute(
                "SELECT kind, reason, at, position FROM nucleo_markers "
                "WHERE conversation_id = %s ORDER BY number",
                cid,
            )
            markers = db.fetchall()
            db.execute(
                "SELECT key, value FROM nucleo_metadata WHERE conversation_id = %s ORDER BY key",
                cid,
            )
            metadata = db.fetchall()
            db.execute(
                "SELECT id, content, media_type, created FROM nucleo_artifacts "
                "WHERE conversation_id = %s ORDER BY seq",
                cid,
            )
            artifacts = db.fetchall()
        return _Reader(conversation_id).snapshot(
            head, messages, skills, markers, metadata, artifacts
        )

    # -- the journal --------------------------------------------------------------------------

    def create(self, snapshot: ConversationSnapshot) -> None:
        """Store a new conversation with everything ``snapshot`` holds."""
        cid = snapshot.id
        with self._tx(f"create conversation {cid}") as db:
            db.execute(
                "INSERT INTO nucleo_conversations (id, created, summary, carried) "
                "VALUES (%s, %s, %s, %s)",
                (cid, snapshot.created.isoformat(), snapshot.summary, _carried(snapshot.carried)),
            )
            _insert_records(db, cid, 0, [encode_message(m) for m in snapshot.messages])
            db.executemany(
                "INSERT INTO nucleo_skills (conversation_id, position, name, record) "
                "VALUES (%s, %s, %s, %s)",
                [
                    (cid, index, name, _skill_record(snapshot.skill_records.get(name)))
                    for index, name in enumerate(snapshot.skills)
                ],
            )
            _insert_markers(db, cid, snapshot.markers)
            db.executemany(
                "INSERT INTO nucleo_metadata (conversation_id, key, value) VALUES (%s, %s, %s)",
                [(cid, key, _json(value)) for key, value in snapshot.metadata.items()],
            )
            for artifact in snapshot.artifacts:
                _insert_artifact(db, cid, artifact)

    def append_messages(
        self, conversation_id: str, start: int, messages: Sequence[Message]
    ) -> None:
        """Store ``messages`` at positions ``start``, ``start + 1``, ..."""
        records = [encode_message(message) for message in messages]
        with self._tx(f"append to conversation {conversation_id}") as db:
            _insert_records(db, conversation_id, start, records)

    def truncate(self, conversation_id: str, keep: int, marker: Marker, marker_index: int) -> None:
        """Drop every message from position ``keep`` on and record ``marker``."""
        with self._tx(f"roll back conversation {conversation_id}") as db:
            db.execute(
                "DELETE FROM nucleo_messages WHERE conversation_id = %s AND position >= %s",
                (conversation_id, keep),
            )
            db.execute(
                "UPDATE nucleo_markers SET position = %s "
                "WHERE conversation_id = %s AND position > %s",
                (keep, conversation_id, keep),
            )
            _insert_marker(db, conversation_id, marker_index, marker)

    def add_marker(self, conversation_id: str, index: int, marker: Marker) -> None:
        """Record ``marker`` as the conversation's marker number ``index``."""
        with self._tx(f"record a marker in conversation {conversation_id}") as db:
            _insert_marker(db, conversation_id, index, marker)

    def add_skill(
        self, conversation_id: str, index: int, name: str, *, record: Skill | None = None
    ) -> None:
        """Record skill ``name`` as the conversation's attached skill number ``index``."""
        encoded = _skill_record(record)
        with self._tx(f"attach a skill to conversation {conversation_id}") as db:
            db.execute(
                "INSERT INTO nucleo_skills (conversation_id, position, name, record) "
                "VALUES (%s, %s, %s, %s)",
                (conversation_id, index, name, encoded),
            )

    def set_metadata(self, conversation_id: str, key: str, value: object) -> None:
        """Set metadata ``key`` to the JSON value ``value``."""
        encoded = _json(value)
        with self._tx(f"set metadata of conversation {conversation_id}") as db:
            db.execute(
                "INSERT INTO nucleo_metadata (conversation_id, key, value) VALUES (%s, %s, %s) "
                "ON CONFLICT (conversation_id, key) DO UPDATE SET value = excluded.value",
                (conversation_id, key, encoded),
            )

    def compact(
        self,
        conversation_id: str,
        messages: Sequence[Message],
        *,
        summary: str,
        carried: Sequence[CarriedState],
        markers: Sequence[Marker],
    ) -> None:
        """Replace every message, the summary, the carried states and the markers at once."""
        records = [encode_message(message) for message in messages]
        carried_record = _carried(carried)
        with self._tx(f"compact conversation {conversation_id}") as db:
            db.execute("DELETE FROM nucleo_messages WHERE conversation_id = %s", (conversation_id,))
            _insert_records(db, conversation_id, 0, records)
            db.execute("DELETE FROM nucleo_markers WHERE conversation_id = %s", (conversation_id,))
            _insert_markers(db, conversation_id, markers)
            db.execute(
                "UPDATE nucleo_conversations SET summary = %s, carried = %s WHERE id = %s",
                (summary, carried_record, conversation_id),
            )

    def keep_artifact(self, conversation_id: str, artifact: Artifact) -> None:
        """Store ``artifact`` with the conversation."""
        with self._tx(f"keep an artifact of conversation {conversation_id}") as db:
            _insert_artifact(db, conversation_id, artifact)

    def delete(self, conversation_id: str) -> bool:
        """Delete the conversation and everything stored with it; ``False`` if not stored."""
        with self._tx(f"delete conversation {conversation_id}") as db:
            db.execute("DELETE FROM nucleo_conversations WHERE id = %s", (conversation_id,))
            return bool(db.rowcount > 0)


def _busy(conversation_id: str, record: Sequence[Any] | None) -> ConversationBusy:
    if record is None:
        return ConversationBusy(conversation_id, pid=None, host=None, since=None)
    pid, host, since, token = record
    try:
        when = datetime.fromisoformat(since) if isinstance(since, str) else None
    except ValueError:
        when = None
    return ConversationBusy(
        conversation_id,
        pid=pid if isinstance(pid, int) else None,
        host=host if isinstance(host, str) else None,
        since=when,
        this_process=token in _HOLDS,
    )


def _insert_records(db: Any, cid: str, start: int, records: Sequence[str]) -> None:
    if records:
        db.executemany(
            "INSERT INTO nucleo_messages (conversation_id, position, record) VALUES (%s, %s, %s)",
            [(cid, start + offset, record) for offset, record in enumerate(records)],
        )


def _insert_markers(db: Any, cid: str, markers: Sequence[Marker]) -> None:
    for index, marker in enumerate(markers):
        _insert_marker(db, cid, index, marker)


def _insert_marker(db: Any, cid: str, index: int, marker: Marker) -> None:
    db.execute(
        "INSERT INTO nucleo_markers (conversation_id, number, kind, reason, at, position) "
        "VALUES (%s, %s, %s, %s, %s, %s)",
        (cid, index, marker.kind, marker.reason, marker.at.isoformat(), marker.position),
    )


def _insert_artifact(db: Any, cid: str, artifact: Artifact) -> None:
    if "\x00" in artifact.content:
        # PostgreSQL's text cannot hold NUL, which SQLite's can.
        raise ConversationStoreError(
            f"cannot store artifact {artifact.id}: its text holds a NUL character, which "
            "PostgreSQL's text cannot keep"
        )
    try:
        artifact.content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConversationStoreError(
            f"cannot store artifact {artifact.id}: its text is not valid Unicode"
        ) from exc
    db.execute(
        "INSERT INTO nucleo_artifacts (conversation_id, id, content, media_type, created) "
        "VALUES (%s, %s, %s, %s, %s)",
        (cid, artifact.id, artifact.content, artifact.media_type, artifact.created.isoformat()),
    )


#: A forked child's copies of this process's hold sessions: kept referenced and never closed,
#: since closing one would end the session (and release the lock) the parent still holds.
_INHERITED: list[object] = []


def _forget_inherited_holds() -> None:
    for hold in list(_HOLDS.values()):
        connection, hold.connection = hold.connection, None
        if connection is not None:
            _INHERITED.append(connection)
    _HOLDS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_holds)
