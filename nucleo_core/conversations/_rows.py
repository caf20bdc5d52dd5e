"""A conversation's parts as the text of table rows, and back: shared by both stores.

`SQLiteConversationStore` and `PostgresConversationStore` keep the same tables with the same
records; this module writes the records of what is not a message (carried states, metadata,
attached skills) and reads a whole conversation's rows back into a `ConversationSnapshot`,
naming the conversation and the row in every error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, final

from nucleo_core.conversations.artifact import Artifact
from nucleo_core.conversations.errors import ConversationStoreError
from nucleo_core.conversations.journal import ConversationSnapshot
from nucleo_core.conversations.marker import Marker
from nucleo_core.conversations.message_codec import decode_carried, decode_message, encode_carried
from nucleo_core.skills.skill import Skill

if TYPE_CHECKING:
    from nucleo_core.models.messages import Message
    from nucleo_core.tools.state import CarriedState

__all__ = ["SnapshotReader", "carried_record", "metadata_record", "skill_record"]


def carried_record(states: Sequence[CarriedState]) -> str:
    return encode_carried(list(states))


def metadata_record(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConversationStoreError("metadata must be a JSON value") from exc


def skill_record(skill: Skill | None) -> str | None:
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


@final
class SnapshotReader:
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
