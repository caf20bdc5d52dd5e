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
import json
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, final

from nucleo_core.conversations.artifact import Artifact
from nucleo_core.conversations.errors import ConversationStoreError
from nucleo_core.conversations.journal import ConversationSnapshot
from nucleo_core.conversations.marker import Marker
from nucleo_core.conversations.message_codec import (
    decode_carried,
    decode_message,
    encode_carried,
    encode_message,
)
from nucleo_core.conversations.writer_hold import WriterHold, busy, lock_path, try_lock, unlock
from nucleo_core.skills.skill import Skill

if TYPE_CHECKING:
    from nucleo_core.models.messages import Message
    from nucleo_core.tools.state import CarriedState

__all__ = ["SCHEMA_VERSION", "SQLiteConversationStore"]

#: The schema this module writes; a file of a later version is refused.
SCHEMA_VERSION = 3

MEMORY = ":memory:"

logger = logging.getLogger("nucleo.conversations")

#: Who writes each conversation held now (version 2). Not tied to ``conversations``: a hold is
#: taken before the conversation it holds is created. A row whose lock is free is a holder that
#: ended without releasing (it died); the next holder replaces it.
_WRITERS = """
CREATE TABLE writers (
    conversation_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since TEXT NOT NULL
) WITHOUT ROWID
"""

#: Version 3 keeps each attached skill's record beside its name (``NULL``: attached by name
#: only, as every skill of an earlier version was), so a resumed conversation rebuilds the
#: skill's instructions and ``allowed-tools`` restriction as they were when it was attached.
_SKILL_RECORDS = "ALTER TABLE skills ADD COLUMN record TEXT"

#: The tables of version 1; version 2 adds `_WRITERS`, version 3 `_SKILL_RECORDS`.
_SCHEMA = """
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    summary TEXT,
    carried TEXT NOT NULL
);
CREATE TABLE messages (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (conversation_id, position)
) WITHOUT ROWID;
CREATE TABLE skills (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (conversation_id, position)
) WITHOUT ROWID;
CREATE TABLE markers (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL,
    position INTEGER,
    PRIMARY KEY (conversation_id, number)
) WITHOUT ROWID;
CREATE TABLE metadata (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (conversation_id, key)
) WITHOUT ROWID;
CREATE TABLE artifacts (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    content TEXT NOT NULL,
    media_type TEXT NOT NULL,
    created TEXT NOT NULL,
    UNIQUE (conversation_id, id)
);
"""


@final
class SQLiteConversationStore:
    """The `ConversationJournal` of durable conversations, in a SQLite file.

    Args:
        path: The database file (created, with its folder, on first connection), or
            ``":memory:"`` for a database that lives as long as this store.
    """

    __slots__ = ("__weakref__", "_closed", "_connection", "_holds", "_lock", "path")

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
            self._closed = True
            connection, self._connection = self._connection, None
            if connection is not None:
                connection.close()
            _HOLDING.discard(self)

    def __del__(self) -> None:
        # A store dropped without `close` (a service never shut down, say the local of a
        # script's main) closes its connection here, so that Python 3.13+ does not warn about
        # it; everything was committed already. Its holds are released as `close` releases
        # them, so the next writer does not take this one for a writer that died.
        holds = list(getattr(self, "_holds", {}).values())
        try:
            if holds and self._connection is not None:
                self._release_all()
        except Exception:  # at interpreter shutdown: the locks still go, below
            pass
        for hold in holds:
            unlock(hold)
        connection = getattr(self, "_connection", None)
        if connection is not None:
            connection.close()

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None:
            return self._connection
        if self._closed:
            raise ConversationStoreError(f"the conversation store {self.path} was closed")
        try:
            if self.path != MEMORY:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=10.0, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise ConversationStoreError(
                f"cannot open the conversation store {self.path}: {exc}"
            ) from exc
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            self._migrate(connection)
        except BaseException as exc:
            connection.close()
            if isinstance(exc, sqlite3.Error):
                raise ConversationStoreError(
                    f"cannot use the conversation store {self.path}: {exc}"
                ) from exc
            raise
        self._connection = connection
        return connection

    def _migrate(self, connection: sqlite3.Connection) -> None:
        connection.execute("BEGIN IMMEDIATE")
        try:
            (version,) = connection.execute("PRAGMA user_version").fetchone()
            if version > SCHEMA_VERSION:
                raise ConversationStoreError(
                    f"the conversation store {self.path} has schema version {version}, newer "
                    f"than this nucleo reads (up to {SCHEMA_VERSION}); upgrade nucleo-core"
                )
            if version == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        connection.execute(statement)
            if version < 2:  # version 2 added who writes each conversation
                connection.execute(_WRITERS)
            if version < 3 and not _has_column(connection, "skills", "record"):
                connection.execute(_SKILL_RECORDS)  # version 3 added the skills' records
            if version < SCHEMA_VERSION:
                connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

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
            pid, host, since, _ = record
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
            rows = db.execute("SELECT id FROM conversations ORDER BY created, rowid").fetchall()
        return [row[0] for row in rows]

    def exists(self, conversation_id: str) -> bool:
        """Whether a conversation of that id is stored."""
        if not self.file_exists():
            return False
        with self._transaction("look up a conversation", write=False) as db:
            row = db.execute(
                "SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        return row is not None

    def load(self, conversation_id: str) -> ConversationSnapshot | None:
        """Everything stored for the conversation, or ``None`` when it is not stored.

        Raises:
            ConversationStoreError: A record of it is corrupt; the message names which.
        """
        if not self.file_exists():
            return None
        with self._transaction(f"load conversation {conversation_id}", write=False) as db:
            head = db.execute(
                "SELECT created, summary, carried FROM conversations WHERE id = ?",
                (conversation_id,),
            ).fetchone()
            if head is None:
                return None
            messages = db.execute(
                "SELECT position, record FROM messages WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
            skills = db.execute(
                "SELECT name, record FROM skills WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
            markers = db.execute(
                "SELECT kind, reason, at, position FROM markers WHERE conversation_id = ? "
                "ORDER BY number",
                (conversation_id,),
            ).fetchall()
            metadata = db.execute(
                "SELECT key, value FROM metadata WHERE conversation_id = ? ORDER BY key",
                (conversation_id,),
            ).fetchall()
            artifacts = db.execute(
                "SELECT id, content, media_type, created FROM artifacts "
                "WHERE conversation_id = ? ORDER BY rowid",
                (conversation_id,),
            ).fetchall()
        return _Reader(conversation_id).snapshot(
            head, messages, skills, markers, metadata, artifacts
        )

    # -- the journal --------------------------------------------------------------------------

    def create(self, snapshot: ConversationSnapshot) -> None:
        """Store a new conversation with everything ``snapshot`` holds."""
        cid = snapshot.id
        with self._transaction(f"create conversation {cid}") as db:
            db.execute(
                "INSERT INTO conversations (id, created, summary, carried) VALUES (?, ?, ?, ?)",
                (cid, snapshot.created.isoformat(), snapshot.summary, _carried(snapshot.carried)),
            )
            _insert_messages(db, cid, 0, snapshot.messages)
            db.executemany(
                "INSERT INTO skills (conversation_id, position, name, record) VALUES (?, ?, ?, ?)",
                [
                    (cid, index, name, _skill_record(snapshot.skill_records.get(name)))
                    for index, name in enumerate(snapshot.skills)
                ],
            )
            _insert_markers(db, cid, snapshot.markers)
            db.executemany(
                "INSERT INTO metadata (conversation_id, key, value) VALUES (?, ?, ?)",
                [(cid, key, _json(value)) for key, value in snapshot.metadata.items()],
            )
            for artifact in snapshot.artifacts:
                _insert_artifact(db, cid, artifact)

    def append_messages(
        self, conversation_id: str, start: int, messages: Sequence[Message]
    ) -> None:
        """Store ``messages`` at positions ``start``, ``start + 1``, ..."""
        records = [encode_message(message) for message in messages]
        with self._transaction(f"append to conversation {conversation_id}") as db:
            _insert_records(db, conversation_id, start, records)

    def truncate(self, conversation_id: str, keep: int, marker: Marker, marker_index: int) -> None:
        """Drop every message from position ``keep`` on and record ``marker``."""
        with self._transaction(f"roll back conversation {conversation_id}") as db:
            db.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND position >= ?",
                (conversation_id, keep),
            )
            db.execute(
                "UPDATE markers SET position = ? WHERE conversation_id = ? AND position > ?",
                (keep, conversation_id, keep),
            )
            _insert_marker(db, conversation_id, marker_index, marker)

    def add_marker(self, conversation_id: str, index: int, marker: Marker) -> None:
        """Record ``marker`` as the conversation's marker number ``index``."""
        with self._transaction(f"record a marker in conversation {conversation_id}") as db:
            _insert_marker(db, conversation_id, index, marker)

    def add_skill(
        self, conversation_id: str, index: int, name: str, *, record: Skill | None = None
    ) -> None:
        """Record skill ``name`` as the conversation's attached skill number ``index``.

        ``record``, when given, is the skill as attached, kept with the name.
        """
        encoded = _skill_record(record)
        with self._transaction(f"attach a skill to conversation {conversation_id}") as db:
            db.execute(
                "INSERT INTO skills (conversation_id, position, name, record) VALUES (?, ?, ?, ?)",
                (conversation_id, index, name, encoded),
            )

    def set_metadata(self, conversation_id: str, key: str, value: object) -> None:
        """Set metadata ``key`` to the JSON value ``value``."""
        encoded = _json(value)
        with self._transaction(f"set metadata of conversation {conversation_id}") as db:
            db.execute(
                "INSERT INTO metadata (conversation_id, key, value) VALUES (?, ?, ?) "
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
        with self._transaction(f"compact conversation {conversation_id}") as db:
            db.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            _insert_records(db, conversation_id, 0, records)
            db.execute("DELETE FROM markers WHERE conversation_id = ?", (conversation_id,))
            _insert_markers(db, conversation_id, markers)
            db.execute(
                "UPDATE conversations SET summary = ?, carried = ? WHERE id = ?",
                (summary, carried_record, conversation_id),
            )

    def keep_artifact(self, conversation_id: str, artifact: Artifact) -> None:
        """Store ``artifact`` with the conversation."""
        with self._transaction(f"keep an artifact of conversation {conversation_id}") as db:
            _insert_artifact(db, conversation_id, artifact)

    def delete(self, conversation_id: str) -> bool:
        """Delete the conversation and everything stored with it; ``False`` if not stored."""
        if not self.file_exists():
            return False
        with self._transaction(f"delete conversation {conversation_id}") as db:
            cursor = db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
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


# -- writing helpers -----------------------------------------------------------------------------


def _carried(states: Sequence[CarriedState]) -> str:
    return encode_carried(list(states))


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConversationStoreError("metadata must be a JSON value") from exc


def _skill_record(skill: Skill | None) -> str | None:
    """``skill``'s fields as a JSON object (``None`` for a skill attached by name only)."""
    if skill is None:
        return None
    fields = {
        "name": skill.name,
        "description": skill.description,
        "instructions": skill.instructions,
        "bundle": skill.bundle,
        "allowed_tools": None if skill.allowed_tools is None else list(skill.allowed_tools),
        "license": skill.license,
        "compatibility": skill.compatibility,
        "metadata": dict(skill.metadata),
        "location": skill.location,
    }
    try:
        return json.dumps(fields, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConversationStoreError(
            f"cannot store skill {skill.name!r}: its metadata is not JSON"
        ) from exc


def _insert_messages(
    db: sqlite3.Connection, cid: str, start: int, messages: Sequence[Message]
) -> None:
    _insert_records(db, cid, start, [encode_message(message) for message in messages])


def _insert_records(db: sqlite3.Connection, cid: str, start: int, records: Sequence[str]) -> None:
    db.executemany(
        "INSERT INTO messages (conversation_id, position, record) VALUES (?, ?, ?)",
        [(cid, start + offset, record) for offset, record in enumerate(records)],
    )


def _insert_markers(db: sqlite3.Connection, cid: str, markers: Sequence[Marker]) -> None:
    for index, marker in enumerate(markers):
        _insert_marker(db, cid, index, marker)


def _insert_marker(db: sqlite3.Connection, cid: str, index: int, marker: Marker) -> None:
    db.execute(
        "INSERT INTO markers (conversation_id, number, kind, reason, at, position) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (cid, index, marker.kind, marker.reason, marker.at.isoformat(), marker.position),
    )


def _insert_artifact(db: sqlite3.Connection, cid: str, artifact: Artifact) -> None:
    try:
        db.execute(
            "INSERT INTO artifacts (conversation_id, id, content, media_type, created) "
            "VALUES (?, ?, ?, ?, ?)",
            (cid, artifact.id, artifact.content, artifact.media_type, artifact.created.isoformat()),
        )
    except UnicodeEncodeError as exc:
        # A lone surrogate (text decoded with surrogateescape, say) has no UTF-8 form.
        raise ConversationStoreError(
            f"cannot store artifact {artifact.id}: its text is not valid Unicode"
        ) from exc


# -- reading helpers -----------------------------------------------------------------------------


class _Reader:
    """Decodes one conversation's rows, naming the conversation and row in every error."""

    __slots__ = ("cid",)

    def __init__(self, cid: str) -> None:
        self.cid = cid

    def snapshot(
        self,
        head: Sequence[Any],
        messages: Sequence[Sequence[Any]],
        skills: Sequence[Sequence[Any]],
        markers: Sequence[Sequence[Any]],
        metadata: Sequence[Sequence[Any]],
        artifacts: Sequence[Sequence[Any]],
    ) -> ConversationSnapshot:
        created, summary, carried = head
        decoded: list[Message] = []
        for expected, (position, record) in enumerate(messages):
            if position != expected:
                self._fail(f"message {expected} is missing")
            decoded.append(self._decode(f"message {position}", decode_message, record))
        return ConversationSnapshot(
            id=self.cid,
            created=self._time("its creation time", created),
            messages=tuple(decoded),
            skills=tuple(row[0] for row in skills),
            skill_records={
                name: self._skill(index, name, record)
                for index, (name, record) in enumerate(skills)
                if record is not None
            },
            markers=tuple(
                Marker(
                    kind=kind, reason=reason, at=self._time(f"marker {index}", at), position=place
                )
                for index, (kind, reason, at, place) in enumerate(markers)
            ),
            summary=summary,
            carried=self._decode("its carried state", decode_carried, carried),
            metadata={
                key: self._decode(f"metadata {key!r}", _decode_json, value)
                for key, value in metadata
            },
            artifacts=tuple(
                Artifact(
                    id=artifact_id,
                    content=content,
                    media_type=media_type,
                    created=self._time(f"artifact {artifact_id}", when),
                )
                for artifact_id, content, media_type, when in artifacts
            ),
        )

    def _decode(self, what: str, decode: Any, record: object) -> Any:
        if not isinstance(record, str):
            self._fail(f"{what} is not text")
        try:
            return decode(record)
        except ConversationStoreError as exc:
            raise ConversationStoreError(f"conversation {self.cid}, {what}: {exc}") from exc

    def _skill(self, index: int, name: object, record: object) -> Skill:
        """Attached skill number ``index``, decoded from ``record`` and checked field by field."""
        what = f"conversation {self.cid}, skill {index}"
        if not isinstance(record, str):
            self._fail(f"skill {index}'s record is not text")
        try:
            fields = json.loads(record)
        except ValueError as exc:
            raise ConversationStoreError(f"{what}: its record is not JSON") from exc
        if not isinstance(fields, dict):
            raise ConversationStoreError(f"{what}: its record is not a JSON object")
        texts = ("name", "description", "instructions", "bundle", "location")
        for key in texts:
            if not isinstance(fields.get(key), str):
                raise ConversationStoreError(f"{what}: field {key!r} is not text")
        for key in ("license", "compatibility"):
            if fields.get(key) is not None and not isinstance(fields[key], str):
                raise ConversationStoreError(f"{what}: field {key!r} is not text or null")
        allowed = fields.get("allowed_tools")
        if allowed is not None and (
            not isinstance(allowed, list) or not all(isinstance(item, str) for item in allowed)
        ):
            raise ConversationStoreError(f"{what}: field 'allowed_tools' is not a list of names")
        metadata = fields.get("metadata", {})
        if not isinstance(metadata, dict):
            raise ConversationStoreError(f"{what}: field 'metadata' is not a JSON object")
        if fields["name"] != name:
            raise ConversationStoreError(f"{what}: its record is of another skill")
        return Skill(
            name=fields["name"],
            description=fields["description"],
            instructions=fields["instructions"],
            bundle=fields["bundle"],
            allowed_tools=None if allowed is None else tuple(allowed),
            license=fields.get("license"),
            compatibility=fields.get("compatibility"),
            metadata=MappingProxyType(metadata),
            location=fields["location"],
        )

    def _time(self, what: str, value: object) -> datetime:
        try:
            if not isinstance(value, str):
                raise TypeError(value)
            return datetime.fromisoformat(value)
        except (TypeError, ValueError) as exc:
            raise ConversationStoreError(
                f"conversation {self.cid}, {what}: not an ISO timestamp"
            ) from exc

    def _fail(self, problem: str) -> NoReturn:
        raise ConversationStoreError(f"corrupt conversation {self.cid}: {problem}")


def _decode_json(record: str) -> object:
    try:
        return json.loads(record)
    except ValueError as exc:
        raise ConversationStoreError("corrupt metadata record: it is not JSON") from exc
