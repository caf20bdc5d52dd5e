"""Artifact custody: large tool outputs kept aside, with a preview in the conversation.

A tool output longer than the custody threshold is not put into the conversation whole: it is
kept as an `Artifact` of the conversation's `ArtifactStore`, and the conversation gets a
preview naming the artifact's id, its size and the two tools that read the rest
(``get_artifact_field`` and ``search_artifact_content``). A sub-thinker is handed an
`ArtifactRef` (id, size, media type), never the content, and reads the artifact through its own
store once `ArtifactStore.link` conveyed it there.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, final

from nucleo_core.conversations.artifact import (
    JSON_MEDIA_TYPE,
    TEXT_MEDIA_TYPE,
    Artifact,
    ArtifactRef,
)
from nucleo_core.conversations.errors import ArtifactNotFound, ConversationClosedError
from nucleo_core.models.messages import ContentBlock, Message, ToolResultBlock

if TYPE_CHECKING:
    from nucleo_core.conversations.journal import ConversationJournal

__all__ = [
    "DEFAULT_PREVIEW_CHARS",
    "DEFAULT_THRESHOLD_CHARS",
    "JSON_MEDIA_TYPE",
    "TEXT_MEDIA_TYPE",
    "Artifact",
    "ArtifactRef",
    "ArtifactStore",
]

#: Outputs longer than this many characters are kept as artifacts.
DEFAULT_THRESHOLD_CHARS = 4000
#: How many characters of a kept output the conversation shows.
DEFAULT_PREVIEW_CHARS = 500


@final
class ArtifactStore:
    """The artifacts of one conversation, oldest first; thread-safe.

    A durable conversation's store writes each artifact to the conversation store before it
    is readable, so an artifact a preview names survives a restart with the preview.
    """

    __slots__ = ("__weakref__", "_artifacts", "_closed", "_conversation_id", "_journal", "_lock")

    def __init__(self, artifacts: Iterable[Artifact] = ()) -> None:
        self._artifacts: dict[str, Artifact] = {artifact.id: artifact for artifact in artifacts}
        self._journal: ConversationJournal | None = None
        self._conversation_id: str | None = None
        self._closed = False
        self._lock = threading.Lock()

    # -- keeping ----------------------------------------------------------------------------

    def keep(self, content: str, media_type: str = TEXT_MEDIA_TYPE) -> ArtifactRef:
        """Keep ``content`` as a new artifact and return its reference.

        Raises:
            ConversationStoreError: The conversation is durable and the artifact could not
                be stored.
            ConversationClosedError: The conversation was closed.
        """
        if not isinstance(content, str):
            raise TypeError(f"an artifact's content is text, not {type(content).__name__}")
        artifact = Artifact(
            id=f"art_{uuid.uuid4().hex[:12]}",
            content=content,
            media_type=media_type,
            created=datetime.now(UTC),
        )
        self._add(artifact)
        return artifact.ref

    def link(self, refs: Iterable[ArtifactRef | str], source: ArtifactStore) -> None:
        """Make artifacts of ``source`` readable here under the same ids (conveyance).

        The artifact itself is shared, not copied in memory; a durable store also writes it,
        so that it is still readable after a restart.

        Raises:
            ArtifactNotFound: ``source`` keeps no artifact of one of the ids.
        """
        for ref in refs:
            artifact = source.get(ref.id if isinstance(ref, ArtifactRef) else ref)
            if artifact.id not in self._artifacts:
                self._add(artifact)

    def custody(
        self,
        text: str,
        *,
        threshold_chars: int = DEFAULT_THRESHOLD_CHARS,
        preview_chars: int = DEFAULT_PREVIEW_CHARS,
        media_type: str | None = None,
    ) -> str:
        """``text`` itself when it is short enough, else a preview of the artifact it became.

        Args:
            text: A tool output.
            threshold_chars: The longest text that goes into the conversation as it is.
            preview_chars: How many characters of a kept text the preview shows.
            media_type: The text's media type; when omitted, text that parses as a JSON object
                or array is ``application/json`` and anything else ``text/plain``.

        Returns:
            ``text``, or a preview naming the artifact id, its size and how to read the rest.
        """
        if len(text) <= threshold_chars:
            return text
        ref = self.keep(text, media_type or _sniff(text))
        return self.preview(ref, preview_chars)

    def custody_results(
        self,
        message: Message,
        *,
        threshold_chars: int = DEFAULT_THRESHOLD_CHARS,
        preview_chars: int = DEFAULT_PREVIEW_CHARS,
    ) -> Message:
        """``message`` with every tool result longer than the threshold replaced by its preview.

        The results turn a thinker appends after running a turn's tool calls goes through
        here; ids, order and error flags are kept, so the pairing of uses and results holds.
        The message itself is returned when nothing was long enough to keep.
        """
        changed = False
        blocks: list[ContentBlock] = []
        for block in message.content:
            if isinstance(block, ToolResultBlock) and len(block.content) > threshold_chars:
                shown = self.custody(
                    block.content, threshold_chars=threshold_chars, preview_chars=preview_chars
                )
                block = replace(block, content=shown)
                changed = True
            blocks.append(block)
        return Message(role=message.role, content=tuple(blocks)) if changed else message

    # -- reading ----------------------------------------------------------------------------

    def get(self, artifact_id: str) -> Artifact:
        """The artifact of id ``artifact_id``.

        Raises:
            ArtifactNotFound: There is none; the error lists the ids there are.
        """
        found = self._artifacts.get(artifact_id)
        if found is None:
            raise ArtifactNotFound(self.ids())
        return found

    def find(self, artifact_id: str) -> Artifact | None:
        """The artifact of id ``artifact_id``, or ``None``."""
        return self._artifacts.get(artifact_id)

    def ids(self) -> list[str]:
        """The ids of every artifact, oldest first."""
        return list(self._artifacts)

    def refs(self) -> list[ArtifactRef]:
        """References to every artifact, oldest first."""
        return [artifact.ref for artifact in list(self._artifacts.values())]

    def preview(self, ref: ArtifactRef | str, limit: int = DEFAULT_PREVIEW_CHARS) -> str:
        """What the conversation shows of an artifact: a header, its start, and how to read on.

        Raises:
            ArtifactNotFound: There is no artifact of that id.
        """
        artifact = self.get(ref.id if isinstance(ref, ArtifactRef) else ref)
        size = len(artifact.content)
        shown = artifact.content[: max(limit, 0)]
        reading = (
            f'use get_artifact_field or search_artifact_content with artifact_id="{artifact.id}"'
        )
        header = (
            f"[Output kept as artifact {artifact.id} ({size} chars, {artifact.media_type}); "
            f"the first {len(shown)} chars follow. To read more, {reading}.]"
        )
        rest = size - len(shown)
        if rest <= 0:
            return f"{header}\n{shown}"
        return f"{header}\n{shown}\n[... {rest} more chars in artifact {artifact.id}]"

    def __len__(self) -> int:
        return len(self._artifacts)

    def __contains__(self, artifact_id: object) -> bool:
        return isinstance(artifact_id, str) and artifact_id in self._artifacts

    def __iter__(self) -> Iterator[Artifact]:
        return iter(list(self._artifacts.values()))

    def __repr__(self) -> str:
        return f"<ArtifactStore {len(self._artifacts)} artifacts>"

    # -- the conversation's side --------------------------------------------------------------

    def _bind(self, journal: ConversationJournal, conversation_id: str) -> None:
        """Write every later artifact through ``journal`` (the conversation became durable)."""
        with self._lock:
            self._journal = journal
            self._conversation_id = conversation_id

    def _close(self) -> None:
        with self._lock:
            self._closed = True

    def _add(self, artifact: Artifact) -> None:
        with self._lock:
            if self._closed:
                raise ConversationClosedError(
                    "the conversation is closed: its artifacts can be read, not added to"
                )
            if self._journal is not None and self._conversation_id is not None:
                self._journal.keep_artifact(self._conversation_id, artifact)
            self._artifacts[artifact.id] = artifact


def _sniff(text: str) -> str:
    if text.lstrip()[:1] in ("{", "["):
        try:
            json.loads(text)
        except ValueError:
            return TEXT_MEDIA_TYPE
        return JSON_MEDIA_TYPE
    return TEXT_MEDIA_TYPE
