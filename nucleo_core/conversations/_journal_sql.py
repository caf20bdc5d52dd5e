"""The journal's reads and writes as SQL, written once for the SQLite and PostgreSQL stores.

Both stores keep the same tables (PostgreSQL's prefixed ``nucleo_``) holding the same records
(`_rows`); they differ in the parameter marker, in the column that orders rows by insertion,
and in how a write reaches the database (SQLite: a transaction on the store's connection;
PostgreSQL: the writer's own session, pipelined). `SQLJournal` implements every journal call
over `JournalSQL`'s statements and the store's ``_write`` transaction, so the two stores
cannot drift apart in what they store.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from nucleo_core.conversations._rows import (
    SnapshotReader,
    carried_record,
    metadata_record,
    skill_record,
)
from nucleo_core.conversations.errors import ConversationStoreError
from nucleo_core.conversations.message_codec import encode_message

if TYPE_CHECKING:
    from nucleo_core.conversations.artifact import Artifact
    from nucleo_core.conversations.journal import ConversationSnapshot
    from nucleo_core.conversations.marker import Marker
    from nucleo_core.models.messages import Message
    from nucleo_core.skills.skill import Skill
    from nucleo_core.tools.state import CarriedState

__all__ = ["POSTGRES", "SQLITE", "JournalSQL", "SQLJournal"]


@dataclass(frozen=True, slots=True, init=False)
class JournalSQL:
    """The statements of one dialect.

    Args:
        prefix: What each table's name starts with (``nucleo_`` in a shared database).
        marker: The parameter marker (``?`` or ``%s``).
        order: The column that orders a table's rows by insertion (``rowid``, ``seq``).
    """

    list_ids: str
    exists: str
    read_head: str
    read_rest: tuple[str, ...]
    insert_head: str
    insert_message: str
    insert_skill: str
    insert_marker: str
    insert_metadata: str
    set_metadata: str
    insert_artifact: str
    delete_messages_from: str
    move_markers_back: str
    delete_messages: str
    delete_markers: str
    set_summary: str
    delete: str

    def __init__(self, *, prefix: str, marker: str, order: str) -> None:
        def sql(text: str) -> str:
            return text.replace("{t}", prefix).replace("?", marker)

        values = {
            "list_ids": f"SELECT id FROM {{t}}conversations ORDER BY created, {order}",
            "exists": "SELECT 1 FROM {t}conversations WHERE id = ?",
            "read_head": "SELECT created, summary, carried FROM {t}conversations WHERE id = ?",
            "insert_head": (
                "INSERT INTO {t}conversations (id, created, summary, carried) VALUES (?, ?, ?, ?)"
            ),
            "insert_message": (
                "INSERT INTO {t}messages (conversation_id, position, record) VALUES (?, ?, ?)"
            ),
            "insert_skill": (
                "INSERT INTO {t}skills (conversation_id, position, name, record) "
                "VALUES (?, ?, ?, ?)"
            ),
            "insert_marker": (
                "INSERT INTO {t}markers (conversation_id, number, kind, reason, at, position) "
                "VALUES (?, ?, ?, ?, ?, ?)"
            ),
            "insert_metadata": (
                "INSERT INTO {t}metadata (conversation_id, key, value) VALUES (?, ?, ?)"
            ),
            "set_metadata": (
                "INSERT INTO {t}metadata (conversation_id, key, value) VALUES (?, ?, ?) "
                "ON CONFLICT (conversation_id, key) DO UPDATE SET value = excluded.value"
            ),
            "insert_artifact": (
                "INSERT INTO {t}artifacts (conversation_id, id, content, media_type, created) "
                "VALUES (?, ?, ?, ?, ?)"
            ),
            "delete_messages_from": (
                "DELETE FROM {t}messages WHERE conversation_id = ? AND position >= ?"
            ),
            "move_markers_back": (
                "UPDATE {t}markers SET position = ? WHERE conversation_id = ? AND position > ?"
            ),
            "delete_messages": "DELETE FROM {t}messages WHERE conversation_id = ?",
            "delete_markers": "DELETE FROM {t}markers WHERE conversation_id = ?",
            "set_summary": "UPDATE {t}conversations SET summary = ?, carried = ? WHERE id = ?",
            "delete": "DELETE FROM {t}conversations WHERE id = ?",
        }
        for name, text in values.items():
            object.__setattr__(self, name, sql(text))
        rest = (
            "SELECT position, record FROM {t}messages WHERE conversation_id = ? ORDER BY position",
            "SELECT name, record FROM {t}skills WHERE conversation_id = ? ORDER BY position",
            "SELECT kind, reason, at, position FROM {t}markers WHERE conversation_id = ? "
            "ORDER BY number",
            "SELECT key, value FROM {t}metadata WHERE conversation_id = ? ORDER BY key",
            "SELECT id, content, media_type, created FROM {t}artifacts "
            f"WHERE conversation_id = ? ORDER BY {order}",
        )
        object.__setattr__(self, "read_rest", tuple(sql(text) for text in rest))


SQLITE: Final = JournalSQL(prefix="", marker="?", order="rowid")
POSTGRES: Final = JournalSQL(prefix="nucleo_", marker="%s", order="seq")


def read_snapshot(connection: Any, sql: JournalSQL, cid: str) -> ConversationSnapshot | None:
    """The stored conversation ``cid`` read on ``connection``, or ``None``.

    Every query is sent before any row is fetched, so a pipelined PostgreSQL connection reads
    the whole conversation in one more round trip after its head.
    """
    head = connection.execute(sql.read_head, (cid,)).fetchone()
    if head is None:
        return None
    cursors = [connection.execute(statement, (cid,)) for statement in sql.read_rest]
    messages, skills, markers, metadata, artifacts = (cursor.fetchall() for cursor in cursors)
    return SnapshotReader(cid).snapshot(head, messages, skills, markers, metadata, artifacts)


class SQLJournal:
    """The writes of the `ConversationJournal` protocol, over a store's transactions.

    A store names its dialect in ``_sql`` and gives `_write`, the transaction a write of one
    conversation runs in; `_check_artifact` may refuse what its database cannot keep.
    """

    __slots__ = ()

    _sql: JournalSQL

    @abstractmethod
    def _write(self, conversation_id: str, doing: str) -> AbstractContextManager[Any]:
        """A transaction that writes ``conversation_id``; ``doing`` names it in errors."""

    def _check_artifact(self, artifact: Artifact) -> None:
        """Refuse an artifact the database cannot keep (its text has no UTF-8 form)."""
        try:
            artifact.content.encode("utf-8")
        except UnicodeEncodeError as exc:
            # A lone surrogate (text decoded with surrogateescape, say) has no UTF-8 form.
            raise ConversationStoreError(
                f"cannot store artifact {artifact.id}: its text is not valid Unicode"
            ) from exc

    def create(self, snapshot: ConversationSnapshot) -> None:
        """Store a new conversation with everything ``snapshot`` holds."""
        with self._write(snapshot.id, f"create conversation {snapshot.id}") as db:
            self._insert_head(db, snapshot)

    def append_messages(
        self, conversation_id: str, start: int, messages: Sequence[Message]
    ) -> None:
        """Store ``messages`` at positions ``start``, ``start + 1``, ..."""
        records = [encode_message(message) for message in messages]
        with self._write(conversation_id, f"append to conversation {conversation_id}") as db:
            self._insert_records(db, conversation_id, start, records)

    def truncate(self, conversation_id: str, keep: int, marker: Marker, marker_index: int) -> None:
        """Drop every message from position ``keep`` on and record ``marker``."""
        sql = self._sql
        with self._write(conversation_id, f"roll back conversation {conversation_id}") as db:
            db.execute(sql.delete_messages_from, (conversation_id, keep))
            db.execute(sql.move_markers_back, (keep, conversation_id, keep))
            self._insert_marker(db, conversation_id, marker_index, marker)

    def add_marker(self, conversation_id: str, index: int, marker: Marker) -> None:
        """Record ``marker`` as the conversation's marker number ``index``."""
        with self._write(
            conversation_id, f"record a marker in conversation {conversation_id}"
        ) as db:
            self._insert_marker(db, conversation_id, index, marker)

    def add_skill(
        self, conversation_id: str, index: int, name: str, *, record: Skill | None = None
    ) -> None:
        """Record skill ``name`` as the conversation's attached skill number ``index``.

        ``record``, when given, is the skill as attached, kept with the name.
        """
        encoded = skill_record(record)
        with self._write(
            conversation_id, f"attach a skill to conversation {conversation_id}"
        ) as db:
            db.execute(self._sql.insert_skill, (conversation_id, index, name, encoded))

    def set_metadata(self, conversation_id: str, key: str, value: object) -> None:
        """Set metadata ``key`` to the JSON value ``value``."""
        encoded = metadata_record(value)
        with self._write(conversation_id, f"set metadata of conversation {conversation_id}") as db:
            db.execute(self._sql.set_metadata, (conversation_id, key, encoded))

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
        sql = self._sql
        records = [encode_message(message) for message in messages]
        carried_text = carried_record(carried)
        with self._write(conversation_id, f"compact conversation {conversation_id}") as db:
            db.execute(sql.delete_messages, (conversation_id,))
            self._insert_records(db, conversation_id, 0, records)
            db.execute(sql.delete_markers, (conversation_id,))
            self._insert_markers(db, conversation_id, markers)
            db.execute(sql.set_summary, (summary, carried_text, conversation_id))

    def keep_artifact(self, conversation_id: str, artifact: Artifact) -> None:
        """Store ``artifact`` with the conversation."""
        with self._write(
            conversation_id, f"keep an artifact of conversation {conversation_id}"
        ) as db:
            self._insert_artifact(db, conversation_id, artifact)

    # -- rows ---------------------------------------------------------------------------------

    def _insert_head(self, db: Any, snapshot: ConversationSnapshot) -> None:
        """Insert a new conversation with everything ``snapshot`` holds."""
        sql, cid = self._sql, snapshot.id
        db.execute(
            sql.insert_head,
            (cid, snapshot.created.isoformat(), snapshot.summary, carried_record(snapshot.carried)),
        )
        self._insert_records(db, cid, 0, [encode_message(m) for m in snapshot.messages])
        if snapshot.skills:
            db.executemany(
                sql.insert_skill,
                [
                    (cid, index, name, skill_record(snapshot.skill_records.get(name)))
                    for index, name in enumerate(snapshot.skills)
                ],
            )
        self._insert_markers(db, cid, snapshot.markers)
        if snapshot.metadata:
            db.executemany(
                sql.insert_metadata,
                [(cid, key, metadata_record(value)) for key, value in snapshot.metadata.items()],
            )
        for artifact in snapshot.artifacts:
            self._insert_artifact(db, cid, artifact)

    def _insert_records(self, db: Any, cid: str, start: int, records: Sequence[str]) -> None:
        if len(records) == 1:
            db.execute(self._sql.insert_message, (cid, start, records[0]))
        elif records:
            db.executemany(
                self._sql.insert_message,
                [(cid, start + offset, record) for offset, record in enumerate(records)],
            )

    def _insert_markers(self, db: Any, cid: str, markers: Sequence[Marker]) -> None:
        for index, marker in enumerate(markers):
            self._insert_marker(db, cid, index, marker)

    def _insert_marker(self, db: Any, cid: str, index: int, marker: Marker) -> None:
        db.execute(
            self._sql.insert_marker,
            (cid, index, marker.kind, marker.reason, marker.at.isoformat(), marker.position),
        )

    def _insert_artifact(self, db: Any, cid: str, artifact: Artifact) -> None:
        self._check_artifact(artifact)
        db.execute(
            self._sql.insert_artifact,
            (cid, artifact.id, artifact.content, artifact.media_type, artifact.created.isoformat()),
        )
