"""`AuditRecord`: an event with its time, its sequence number and its place in the hash chain.

**The content** of a record is the canonical JSON (`canonical_json`: sorted keys, no
whitespace, non-ASCII kept) of an object holding ``at`` (the UTC time, ISO 8601 with
microseconds and a ``Z``: ``2025-01-31T09:15:02.000001Z``), ``kind``, and every other field of
the event that is not empty: ``parents`` as an array, ``duration`` as a number of seconds,
``developer`` as an object (``exception_type``, ``message``, ``traceback``), and ``arguments``
(only when recorded) as a *string* holding the arguments' own canonical JSON.

**The chain**: a record's ``digest`` is the SHA-256, in lowercase hex, of the UTF-8 bytes of
its ``sequence`` (in decimal), a newline, its ``prev_digest``, a newline and its content; its
``prev_digest`` is the digest of the record before it (`GENESIS_DIGEST`, 64 zeros, for the
first). Editing, deleting, inserting or
reordering a record breaks the chain at that record; `verify_chain` names where.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, cast

from nucleo_core.guard.audit.errors import AuditStoreError
from nucleo_core.guard.audit.events import (
    AuditEvent,
    AuditKind,
    Decision,
    DeveloperDetails,
)

__all__ = [
    "GENESIS_DIGEST",
    "AuditEntry",
    "AuditRecord",
    "chain_digest",
    "format_time",
    "make_entry",
    "parse_time",
    "record_from_row",
]

#: The ``prev_digest`` of the first record.
GENESIS_DIGEST: Final = "0" * 64

_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
_encode = _ENCODER.encode

# The event's optional text fields, copied into the content as they are when not empty.
_TEXT_FIELDS: Final = (
    "thinker_class",
    "thinker_id",
    "conversation_id",
    "tool",
    "skill",
    "source",
    "risk",
    "rule",
    "decision",
    "outcome",
    "reason",
    "call_id",
    "approval_id",
    "arguments_digest",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRecord:
    """One record of the audit log, as it was stored.

    The fields of `AuditEvent` (but ``arguments``, kept as ``arguments_json`` and only when
    the log records arguments), plus:

    Attributes:
        sequence: The record's number, from 1, without gaps.
        at: When it was recorded (UTC).
        content: The canonical JSON the digest covers (see the module's documentation).
        prev_digest: The digest of the record before it.
        digest: This record's digest.
        arguments_json: The arguments' canonical JSON, when the log records arguments.
        developer: What failed, for the developer only: never shown to a model.
    """

    sequence: int
    at: datetime
    kind: AuditKind
    thinker_class: str | None = None
    thinker_id: str | None = None
    conversation_id: str | None = None
    parents: tuple[str, ...] = ()
    tool: str | None = None
    skill: str | None = None
    source: str | None = None
    risk: str | None = None
    rule: str | None = None
    decision: Decision | None = None
    outcome: str | None = None
    reason: str | None = None
    call_id: str | None = None
    approval_id: str | None = None
    duration: float | None = None
    arguments_digest: str | None = None
    arguments_json: str | None = None
    developer: DeveloperDetails | None = None
    content: str
    prev_digest: str
    digest: str

    @property
    def arguments(self) -> Any:
        """The recorded arguments, decoded; ``None`` when they were not recorded."""
        return None if self.arguments_json is None else json.loads(self.arguments_json)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object: every field, empty ones as ``null`` (or ``[]``)."""
        developer = self.developer
        return {
            "sequence": self.sequence,
            "at": format_time(self.at),
            "kind": self.kind,
            **{name: getattr(self, name) for name in _TEXT_FIELDS[:3]},
            "parents": list(self.parents),
            **{name: getattr(self, name) for name in _TEXT_FIELDS[3:13]},
            "duration": self.duration,
            "arguments_digest": self.arguments_digest,
            "arguments": self.arguments,
            "developer": None
            if developer is None
            else {
                "exception_type": developer.exception_type,
                "message": developer.message,
                "traceback": developer.traceback,
            },
            "prev_digest": self.prev_digest,
            "digest": self.digest,
        }


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """A record waiting for its sequence number: its content, and the columns stores index.

    Attributes:
        at: The time, as in the content.
        kind: The kind, as in the content.
        thinker_class: As in the content (``None`` when absent).
        thinker_id: As in the content.
        conversation_id: As in the content.
        tool: As in the content.
        source: As in the content.
        content: The canonical JSON the digest covers.
    """

    at: str
    kind: str
    thinker_class: str | None
    thinker_id: str | None
    conversation_id: str | None
    tool: str | None
    source: str | None
    content: str


def chain_digest(sequence: int, prev_digest: str, content: str) -> str:
    """The digest of the record numbered ``sequence`` after ``prev_digest``, holding ``content``."""
    return hashlib.sha256(f"{sequence}\n{prev_digest}\n{content}".encode()).hexdigest()


def format_time(moment: datetime) -> str:
    """``moment`` (UTC) as the record writes it: ``2025-01-31T09:15:02.000001Z``.

    Always with microseconds and a ``Z``, so that the text sorts as the times do.
    """
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    """A time written by `format_time`, back as an aware UTC ``datetime``."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def make_entry(
    event: AuditEvent,
    at_ns: int,
    arguments_digest: str | None,
    arguments_json: str | None,
) -> AuditEntry:
    """The entry recording ``event`` at ``at_ns`` (nanoseconds since the epoch)."""
    seconds, nanoseconds = divmod(at_ns, 1_000_000_000)
    moment = datetime.fromtimestamp(seconds, UTC)
    at = f"{moment:%Y-%m-%dT%H:%M:%S}.{nanoseconds // 1000:06d}Z"
    content: dict[str, Any] = {"at": at, "kind": event.kind}
    for name in _TEXT_FIELDS[:-1]:
        value = getattr(event, name)
        if value is not None:
            content[name] = value
    if arguments_digest is not None:
        content["arguments_digest"] = arguments_digest
    if arguments_json is not None:
        content["arguments"] = arguments_json
    if event.parents:
        content["parents"] = list(event.parents)
    if event.duration is not None:
        content["duration"] = event.duration
    developer = event.developer
    if developer is not None:
        content["developer"] = {
            "exception_type": developer.exception_type,
            "message": developer.message,
            "traceback": developer.traceback,
        }
    return AuditEntry(
        at,
        event.kind,
        event.thinker_class,
        event.thinker_id,
        event.conversation_id,
        event.tool,
        event.source,
        _encode(content),
    )


def record_from_row(sequence: int, content: str, prev_digest: str, digest: str) -> AuditRecord:
    """Rebuild a stored record from its content.

    Raises:
        AuditStoreError: The content is not a record's (the log was edited, or is corrupt).
    """
    try:
        fields = json.loads(content)
        if not isinstance(fields, dict):
            raise TypeError("not an object")
        developer = fields.pop("developer", None)
        parents = fields.pop("parents", [])
        return AuditRecord(
            sequence=sequence,
            at=parse_time(fields.pop("at")),
            kind=fields.pop("kind"),
            parents=tuple(str(parent) for parent in parents),
            duration=fields.pop("duration", None),
            arguments_json=fields.pop("arguments", None),
            developer=None if developer is None else DeveloperDetails(**developer),
            content=content,
            prev_digest=prev_digest,
            digest=digest,
            **cast("Mapping[str, Any]", {name: fields.pop(name, None) for name in _TEXT_FIELDS}),
        )
    except (ValueError, TypeError, KeyError) as exc:
        raise AuditStoreError(
            f"audit record {sequence} cannot be read ({type(exc).__name__}): the log was edited "
            "or is corrupt; run `nucleo audit verify`"
        ) from exc
