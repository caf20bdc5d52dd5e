"""`Marker`: a note in a conversation's record of something that happened outside its turns."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from nucleo_core.models.messages import Message, TextBlock

__all__ = ["ABNORMAL_END", "Marker", "render_markers"]

#: The marker kind a rollback after an abnormal end records.
ABNORMAL_END = "abnormal_end"


@dataclass(frozen=True, slots=True, kw_only=True)
class Marker:
    """Something the conversation should remember that is not a turn, such as an abnormal end.

    A marker sits between two messages: `position` is how many messages precede it. A
    compaction that summarizes the messages before a marker folds the marker into the summary
    and sets its position to ``None``; it stays in `ConversationContext.markers` as a record.

    Attributes:
        kind: What happened (`ABNORMAL_END`, or any kind the caller defines).
        reason: Why, written for the model that resumes the conversation.
        at: When it was recorded (UTC).
        position: How many messages precede it, or ``None`` once it was summarized.
    """

    kind: str
    reason: str
    at: datetime
    position: int | None

    @property
    def note(self) -> str:
        """The marker as the model reads it."""
        if self.kind == ABNORMAL_END:
            return f"[The previous turn ended without an answer: {self.reason}]"
        return f"[{self.kind}: {self.reason}]"


def render_markers(messages: Sequence[Message], markers: Iterable[Marker]) -> tuple[Message, ...]:
    """``messages`` with the note of each placed marker where it sits.

    A note joins the assistant message before it, or else the assistant message after it, or
    else stands as an assistant message of its own; so roles alternate as they did, and a
    user message a rollback left last is answered by the note. Markers without a position
    (summarized ones) are not rendered; a position past the end counts as the end.
    """
    notes: dict[int, list[str]] = {}
    for marker in markers:
        if marker.position is not None:
            notes.setdefault(min(marker.position, len(messages)), []).append(marker.note)
    if not notes:
        return tuple(messages)
    rendered: list[Message] = []
    for position in range(len(messages) + 1):
        following = messages[position] if position < len(messages) else None
        texts = notes.get(position)
        if texts:
            blocks = tuple(TextBlock(text=text) for text in texts)
            if rendered and rendered[-1].role == "assistant":
                rendered[-1] = Message(role="assistant", content=rendered[-1].content + blocks)
            elif following is not None and following.role == "assistant":
                following = Message(role="assistant", content=blocks + following.content)
            else:
                rendered.append(Message(role="assistant", content=blocks))
        if following is not None:
            rendered.append(following)
    return tuple(rendered)
