"""`ConversationJournal`: where a durable conversation writes each change, in a transaction.

A durable `ConversationContext` calls its journal *before* it changes itself, so a change
the journal refused (and rolled back) is not applied in memory either, and everything a
context shows was committed. `ConversationSnapshot` is the whole state a journal creates a
conversation from and loads it back as.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from nucleo_core.conversations.artifact import Artifact
    from nucleo_core.conversations.marker import Marker
    from nucleo_core.models.messages import Message
    from nucleo_core.skills.skill import Skill
    from nucleo_core.tools.state import CarriedState

__all__ = ["ConversationJournal", "ConversationSnapshot"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversationSnapshot:
    """Everything a conversation holds, as one value.

    Attributes:
        id: The conversation id.
        created: When the conversation was first opened (UTC).
        messages: Its messages, oldest first.
        skills: The attached skill names, in attachment order.
        skill_records: The skills attached with their record (instructions and
            ``allowed-tools`` as they were when attached), by name; a name attached by name only
            has none.
        markers: Its markers, oldest first.
        summary: The last compaction's summary, or ``None``.
        carried: The carried states kept at the last compaction, in registry order.
        metadata: The caller's JSON metadata.
        artifacts: Its artifacts, oldest first.
    """

    id: str
    created: datetime
    messages: Sequence[Message] = ()
    skills: Sequence[str] = ()
    skill_records: Mapping[str, Skill] = field(default_factory=dict)
    markers: Sequence[Marker] = ()
    summary: str | None = None
    carried: Sequence[CarriedState] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    artifacts: Sequence[Artifact] = ()


class ConversationJournal(Protocol):
    """The write-through seam of a durable conversation; each call is one transaction.

    Every method raises `ConversationStoreError` when the change cannot be committed, after
    rolling back whatever part of it was written.
    """

    def create(self, snapshot: ConversationSnapshot) -> None:
        """Store a new conversation with everything ``snapshot`` holds."""
        ...

    def append_messages(
        self, conversation_id: str, start: int, messages: Sequence[Message]
    ) -> None:
        """Store ``messages`` at positions ``start``, ``start + 1``, ..."""
        ...

    def truncate(self, conversation_id: str, keep: int, marker: Marker, marker_index: int) -> None:
        """Drop every message from position ``keep`` on and record ``marker`` (a rollback).

        Markers placed after position ``keep`` move to ``keep``.
        """
        ...

    def add_marker(self, conversation_id: str, index: int, marker: Marker) -> None:
        """Record ``marker`` as the conversation's marker number ``index``."""
        ...

    def add_skill(
        self, conversation_id: str, index: int, name: str, *, record: Skill | None = None
    ) -> None:
        """Record skill ``name`` as the conversation's attached skill number ``index``.

        ``record``, when given, is the skill as attached, kept with the name.
        """
        ...

    def set_metadata(self, conversation_id: str, key: str, value: object) -> None:
        """Set metadata ``key`` to the JSON value ``value``."""
        ...

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
        ...

    def keep_artifact(self, conversation_id: str, artifact: Artifact) -> None:
        """Store ``artifact`` with the conversation."""
        ...
