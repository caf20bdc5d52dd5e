"""`ConversationContext`: one conversation's messages, skills, markers, summary and artifacts."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, final

from nucleo_core.conversations.artifacts import ArtifactStore
from nucleo_core.conversations.errors import (
    ConversationClosedError,
    ConversationConflict,
    ConversationStoreError,
)
from nucleo_core.conversations.journal import ConversationSnapshot
from nucleo_core.conversations.marker import ABNORMAL_END, Marker, render_markers
from nucleo_core.models.messages import Message, TextBlock
from nucleo_core.skills.skill import Skill

if TYPE_CHECKING:
    from nucleo_core.conversations.journal import ConversationJournal
    from nucleo_core.tools.state import CarriedState

__all__ = ["ConversationContext"]


@final
class ConversationContext:
    """The conversation one run works in: its messages and what rides along with them.

    A context is *temporary* (it lives in memory and vanishes when closed) or *durable* (every
    change is written to the conversation store, in one transaction, before it shows here, so
    a process killed between two turns loses nothing a context ever showed). Get one from
    `ConversationService.open`; ``ConversationContext()`` builds a free-standing temporary one.

    Every member is safe to use from several threads; a closed context can be read, and
    raises `ConversationClosedError` when asked to change.

    Args:
        conversation_id: The id; a fresh ``uuid4`` hex when omitted.
    """

    __slots__ = (
        "_artifacts",
        "_carried",
        "_closed",
        "_created",
        "_id",
        "_journal",
        "_lock",
        "_markers",
        "_messages",
        "_metadata",
        "_skill_records",
        "_skills",
        "_summary",
    )

    def __init__(self, conversation_id: str | None = None) -> None:
        self._id = conversation_id if conversation_id is not None else uuid.uuid4().hex
        self._created = datetime.now(UTC)
        self._messages: list[Message] = []
        self._skills: list[str] = []
        self._skill_records: dict[str, Skill] = {}
        self._markers: list[Marker] = []
        self._summary: str | None = None
        self._carried: tuple[CarriedState, ...] = ()
        self._metadata: dict[str, Any] = {}
        self._artifacts = ArtifactStore()
        self._journal: ConversationJournal | None = None
        self._closed = False
        self._lock = threading.RLock()

    @classmethod
    def _restore(
        cls, snapshot: ConversationSnapshot, journal: ConversationJournal | None
    ) -> ConversationContext:
        """A context holding ``snapshot``, writing through ``journal`` (durable when given)."""
        context = cls(snapshot.id)
        context._created = snapshot.created
        context._messages = list(snapshot.messages)
        context._skills = list(snapshot.skills)
        context._skill_records = {
            name: record
            for name, record in snapshot.skill_records.items()
            if name in context._skills
        }
        context._markers = list(snapshot.markers)
        context._summary = snapshot.summary
        context._carried = tuple(snapshot.carried)
        context._metadata = dict(snapshot.metadata)
        context._artifacts = ArtifactStore(snapshot.artifacts)
        if journal is not None:
            context._journal = journal
            context._artifacts._bind(journal, snapshot.id)
        return context

    # -- reading ----------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The conversation id."""
        return self._id

    @property
    def durable(self) -> bool:
        """Whether every change is written to the conversation store."""
        return self._journal is not None

    @property
    def closed(self) -> bool:
        """Whether the context was closed (it can still be read)."""
        return self._closed

    @property
    def created(self) -> datetime:
        """When the conversation was first opened (UTC)."""
        return self._created

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages, oldest first (a snapshot: later changes do not show in it)."""
        with self._lock:
            return tuple(self._messages)

    @property
    def skills(self) -> tuple[str, ...]:
        """The names of the attached skills, in attachment order."""
        with self._lock:
            return tuple(self._skills)

    def skill_record(self, name: str) -> Skill | None:
        """The skill ``name`` as it was attached (`attach_skill` given a `Skill`), else ``None``.

        ``None`` also for a skill attached by its name only, and for one not attached.
        """
        with self._lock:
            return self._skill_records.get(name)

    @property
    def markers(self) -> tuple[Marker, ...]:
        """Every marker recorded, oldest first, summarized ones included."""
        with self._lock:
            return tuple(self._markers)

    @property
    def summary(self) -> str | None:
        """The summary the last compaction wrote, or ``None`` before any compaction."""
        return self._summary

    @property
    def carried(self) -> tuple[CarriedState, ...]:
        """The carried states the last compaction kept, in registry order."""
        return self._carried

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The caller's metadata (read-only; change it with `set_metadata`)."""
        with self._lock:
            return MappingProxyType(dict(self._metadata))

    @property
    def artifacts(self) -> ArtifactStore:
        """The artifacts kept for this conversation."""
        return self._artifacts

    def __len__(self) -> int:
        return len(self._messages)

    def __repr__(self) -> str:
        kind = "durable" if self.durable else "temporary"
        state = ", closed" if self._closed else ""
        return f"<ConversationContext {self._id} {kind}, {len(self._messages)} messages{state}>"

    def snapshot(self) -> ConversationSnapshot:
        """Everything the context holds, as one value."""
        with self._lock:
            return ConversationSnapshot(
                id=self._id,
                created=self._created,
                messages=tuple(self._messages),
                skills=tuple(self._skills),
                skill_records=dict(self._skill_records),
                markers=tuple(self._markers),
                summary=self._summary,
                carried=self._carried,
                metadata=dict(self._metadata),
                artifacts=tuple(self._artifacts),
            )

    def last_user_utterance(self) -> int | None:
        """The index of the last user message holding text, or ``None`` when there is none.

        A user message of tool results only is not an utterance: it answers the model.
        """
        with self._lock:
            for index in range(len(self._messages) - 1, -1, -1):
                message = self._messages[index]
                if message.role == "user" and any(
                    isinstance(block, TextBlock) for block in message.content
                ):
                    return index
            return None

    def messages_for_model(self) -> tuple[Message, ...]:
        """The messages with each placed marker's note where it sits, as the model reads them.

        A question a rollback left last is followed by the note saying why the turn ended, so
        a resumed model never sees it hanging unanswered (see `render_markers`).
        """
        with self._lock:
            return render_markers(self._messages, self._markers)

    # -- changing ---------------------------------------------------------------------------

    def append(self, message: Message) -> None:
        """Add ``message`` at the end.

        Raises:
            ConversationClosedError: The context was closed.
            ConversationStoreError: The context is durable and the message could not be stored.
        """
        self.extend((message,))

    def extend(self, messages: Iterable[Message]) -> None:
        """Add ``messages`` at the end, in order, all or none.

        Raises:
            ConversationClosedError: The context was closed.
            ConversationStoreError: The context is durable and the messages could not be stored.
        """
        added = tuple(messages)
        for message in added:
            if not isinstance(message, Message):
                raise TypeError(
                    f"a conversation holds Message values, not {type(message).__name__}"
                )
        if not added:
            return
        with self._lock:
            self._check_open()
            if self._journal is not None:
                self._journal.append_messages(self._id, len(self._messages), added)
            self._messages.extend(added)

    def attach_skill(self, skill: Skill | str) -> bool:
        """Attach a skill; ``False`` when one of that name was already attached.

        A thinker attaches the `Skill` itself: the conversation then keeps its record (its
        instructions and ``allowed-tools`` as they are now, see `skill_record`), so a thinker
        resuming the conversation, in this process or another, rebuilds the same instructions
        and the same restriction even if no skill source provides that skill any more. A name
        alone is attached by name only; a thinker resolves it in its hub's skill registry.

        Raises:
            ConversationClosedError: The context was closed.
            ConversationStoreError: The context is durable and the skill could not be stored.
        """
        record = skill if isinstance(skill, Skill) else None
        name = skill.name if isinstance(skill, Skill) else skill
        if not isinstance(name, str):
            raise TypeError(f"attach_skill takes a Skill or a name, not {type(skill).__name__}")
        with self._lock:
            self._check_open()
            if name in self._skills:
                return False
            if self._journal is not None:
                self._journal.add_skill(self._id, len(self._skills), name, record=record)
            self._skills.append(name)
            if record is not None:
                self._skill_records[name] = record
            return True

    def record_marker(self, kind: str, reason: str) -> Marker:
        """Record that something happened here, after the current last message.

        Raises:
            ConversationClosedError: The context was closed.
        """
        with self._lock:
            self._check_open()
            marker = Marker(
                kind=kind, reason=reason, at=datetime.now(UTC), position=len(self._messages)
            )
            if self._journal is not None:
                self._journal.add_marker(self._id, len(self._markers), marker)
            self._markers.append(marker)
            return marker

    def rollback_to_last_user_utterance(self, reason: str, *, kind: str = ABNORMAL_END) -> int:
        """Remove everything after the last user utterance and record why, as a marker.

        The discipline of an abnormal end: the partial turn (assistant messages, tool uses
        and their results) goes, the question stays, and the marker right after it says why
        it went unanswered (see `messages_for_model`). Without any user utterance, every
        message goes. Message removal and marker are one transaction.

        Args:
            reason: Why the turn ended, written for the model that resumes the conversation.
            kind: The marker kind; `ABNORMAL_END` by default.

        Returns:
            How many messages were removed.

        Raises:
            ConversationClosedError: The context was closed.
        """
        with self._lock:
            self._check_open()
            utterance = self.last_user_utterance()
            keep = 0 if utterance is None else utterance + 1
            removed = len(self._messages) - keep
            marker = Marker(kind=kind, reason=reason, at=datetime.now(UTC), position=keep)
            if self._journal is not None:
                self._journal.truncate(self._id, keep, marker, len(self._markers))
            del self._messages[keep:]
            # Markers that sat after the removed messages now sit at the cut.
            self._markers = [
                replace(m, position=keep) if m.position is not None and m.position > keep else m
                for m in self._markers
            ]
            self._markers.append(marker)
            return removed

    def set_metadata(self, key: str, value: object) -> None:
        """Set metadata ``key`` to ``value``, which must be JSON (it is kept as JSON reads it).

        Raises:
            ConversationStoreError: ``value`` is not JSON.
            ConversationClosedError: The context was closed.
        """
        try:
            kept = json.loads(json.dumps(value, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ConversationStoreError(
                f"metadata {key!r} must be a JSON value (str, int, float, bool, None, list, dict)"
            ) from exc
        with self._lock:
            self._check_open()
            if self._journal is not None:
                self._journal.set_metadata(self._id, key, kept)
            self._metadata[key] = kept

    def apply_compaction(
        self,
        replaced: Sequence[Message],
        summary_message: Message,
        *,
        summary: str,
        carried: Sequence[CarriedState],
    ) -> None:
        """Replace the leading messages ``replaced`` by ``summary_message`` (see `compact`).

        Markers among the replaced messages lose their position (the summary covers them);
        later ones move with their messages.

        Raises:
            ConversationConflict: The conversation no longer starts with ``replaced``.
            ConversationClosedError: The context was closed.
        """
        with self._lock:
            self._check_open()
            count = len(replaced)
            current = self._messages[:count]
            if len(current) != count or any(
                a is not b for a, b in zip(current, replaced, strict=True)
            ):
                raise ConversationConflict(
                    f"conversation {self._id} changed while it was being compacted; "
                    "compact it again"
                )
            messages = [summary_message, *self._messages[count:]]
            markers = [_moved(marker, count) for marker in self._markers]
            kept = tuple(carried)
            if self._journal is not None:
                self._journal.compact(
                    self._id, messages, summary=summary, carried=kept, markers=markers
                )
            self._messages = messages
            self._markers = markers
            self._summary = summary
            self._carried = kept

    # -- the service's side -----------------------------------------------------------------

    def _bind(self, journal: ConversationJournal) -> None:
        """Store everything now and write every later change through ``journal``."""
        with self._lock, self._artifacts._lock:
            self._check_open()
            if self._journal is not None:
                return
            journal.create(self.snapshot())
            self._journal = journal
            self._artifacts._journal = journal
            self._artifacts._conversation_id = self._id

    def _close(self) -> None:
        with self._lock:
            self._closed = True
            self._artifacts._close()

    def _check_open(self) -> None:
        if self._closed:
            raise ConversationClosedError(
                f"conversation {self._id} is closed; open it again to continue it"
            )


def _moved(marker: Marker, count: int) -> Marker:
    if marker.position is None:
        return marker
    if marker.position <= count:
        return replace(marker, position=None)
    return replace(marker, position=marker.position - count + 1)
