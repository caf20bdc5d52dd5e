"""What a kept artifact is: its record, and the reference that stands for it elsewhere.

`ArtifactStore` (in ``artifacts``) keeps them; the conversation journals store them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["JSON_MEDIA_TYPE", "TEXT_MEDIA_TYPE", "Artifact", "ArtifactRef"]

JSON_MEDIA_TYPE = "application/json"
TEXT_MEDIA_TYPE = "text/plain"


@dataclass(frozen=True, slots=True, kw_only=True)
class ArtifactRef:
    """What stands for an artifact where its content does not go: a sub-thinker's input.

    Attributes:
        id: The artifact id (``art_`` and 12 hex digits).
        size: The content's length in characters.
        media_type: ``application/json``, ``text/plain``, or what the keeper declared.
    """

    id: str
    size: int
    media_type: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Artifact:
    """A large output kept aside from the conversation.

    Attributes:
        id: The artifact id the model reads it by.
        content: The whole content.
        media_type: Its media type; ``application/json`` content is read by JSON path.
        created: When it was kept (UTC).
    """

    id: str
    content: str
    media_type: str
    created: datetime

    @property
    def ref(self) -> ArtifactRef:
        """The reference that stands for this artifact."""
        return ArtifactRef(id=self.id, size=len(self.content), media_type=self.media_type)

    @property
    def is_json(self) -> bool:
        """Whether the media type says JSON (``application/json`` or ``...+json``)."""
        base = self.media_type.split(";", 1)[0].strip().lower()
        return base == JSON_MEDIA_TYPE or base.endswith("+json")
