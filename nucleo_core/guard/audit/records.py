"""`AuditRecord`: an event with its time, its sequence number and its place in the hash chain.

**The content** of a record is the canonical JSON (`canonical_json`: sorted keys, no
whitespace, non-ASCII kept) of an object holding ``at`` (the UTC time, ISO 8601 with
microseconds and a ``Z``: ``2025-01-31T09:15:02.000001Z``), ``kind``, and every other field of
the event that is not empty: ``requester`` as an object (``thinker_class``, ``thinker_id``,
``conversation_id``, ``parents`` as an array), ``duration`` as a number of seconds,
``developer`` as an object (``exception_type``, ``message``, ``traceback``), and ``arguments``
(only when recorded) as a *string* holding the arguments' own canonical JSON.

**The chain**: a record's ``digest`` is the SHA-256, in lowercase hex, of the UTF-8 bytes of
its ``sequence`` (in decimal), a newline, its ``prev_digest``, a newline and its content; its
``prev_digest`` is the digest of the record before it (`GENESIS_DIGEST`, 64 zeros, for the
first). Editing, deleting, inserting or
reordering a record breaks the chain at that record; `verify_chain` names where.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring
from typing import Any, Final, cast

from nucleo_core.guard.audit.canonical import canonical_json, sha256_hex
from nucleo_core.guard.audit.errors import AuditStoreError
from nucleo_core.guard.audit.events import (
    AuditEvent,
    DeveloperDetails,
    EventFields,
    Requester,
)

__all__ = [
    "GENESIS_DIGEST",
    "AuditRecord",
    "chain_digest",
    "content_object",
    "content_parts",
    "format_time",
    "make_content",
    "parse_time",
    "record_from_row",
    "sha256_hex",
    "time_text",
]

#: The ``prev_digest`` of the first record.
GENESIS_DIGEST: Final = "0" * 64

_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
_encode = _ENCODER.encode

# The event's optional text fields, copied into the content as they are when not empty.
_TEXT_FIELDS: Final = (
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
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRecord(EventFields):
    """One record of the audit log, as it was stored.

    The fields of its event (`EventFields`: ``kind``, ``requester``, ``tool``...
    ``admission``; the event's ``arguments`` are kept as ``arguments_json``, and only when the
    log records arguments), plus:

    Attributes:
        sequence: The record's number, from 1, without gaps.
        at: When it was recorded (UTC).
        arguments_json: The arguments' canonical JSON, when the log records arguments.
        content: The canonical JSON the digest covers (see the module's documentation).
        prev_digest: The digest of the record before it.
        digest: This record's digest.
    """

    sequence: int
    at: datetime
    arguments_json: str | None = None
    content: str
    prev_digest: str
    digest: str

    @property
    def arguments(self) -> Any:
        """The recorded arguments, decoded; ``None`` when they were not recorded."""
        return None if self.arguments_json is None else json.loads(self.arguments_json)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object: every field, an empty one as ``null``."""
        requester = self.requester
        developer = self.developer
        return {
            "sequence": self.sequence,
            "at": format_time(self.at),
            "kind": self.kind,
            "thinker_class": None if requester is None else requester.thinker_class,
            "thinker_id": None if requester is None else requester.thinker_id,
            "conversation_id": None if requester is None else requester.conversation_id,
            "parents": [] if requester is None else list(requester.parents),
            **{name: getattr(self, name) for name in _TEXT_FIELDS},
            "duration": self.duration,
            "arguments_digest": self.arguments_digest,
            "arguments": self.arguments,
            "developer": None if developer is None else _developer_object(developer),
            "admission": None if self.admission is None else dict(self.admission),
            "prev_digest": self.prev_digest,
            "digest": self.digest,
        }


def chain_digest(sequence: int, prev_digest: str, content: str) -> str:
    """The digest of the record numbered ``sequence`` after ``prev_digest``, holding ``content``."""
    return sha256_hex(f"{sequence}\n{prev_digest}\n{content}")


def format_time(moment: datetime) -> str:
    """``moment`` (UTC) as the record writes it: ``2025-01-31T09:15:02.000001Z``.

    Always with microseconds and a ``Z``, so that the text sorts as the times do.
    """
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    """A time written by `format_time`, back as an aware UTC ``datetime``."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


# The whole second last written, and its text: records come many a second, and strftime is
# not cheap. One tuple, read and replaced whole, so that threads never mix two seconds.
_last_second: tuple[int, str] = (-1, "")


def time_text(at_ns: int) -> str:
    """``at_ns`` (nanoseconds since the epoch) as a record writes its time (`format_time`)."""
    global _last_second
    seconds, nanoseconds = divmod(at_ns, 1_000_000_000)
    cached = _last_second
    if cached[0] != seconds:
        cached = (seconds, f"{datetime.fromtimestamp(seconds, UTC):%Y-%m-%dT%H:%M:%S}")
        _last_second = cached
    return f"{cached[1]}.{nanoseconds // 1000:06d}Z"


def content_object(
    event: AuditEvent, at: str, arguments_digest: str | None, arguments_json: str | None
) -> dict[str, Any]:
    """The object whose canonical JSON is the content of the record of ``event``."""
    content: dict[str, Any] = {"at": at, "kind": event.kind}
    if event.requester is not None:
        content["requester"] = event.requester.to_json()
    for name in _TEXT_FIELDS:
        value = getattr(event, name)
        if value is not None:
            content[name] = value
    if arguments_digest is not None:
        content["arguments_digest"] = arguments_digest
    if arguments_json is not None:
        content["arguments"] = arguments_json
    if event.duration is not None:
        content["duration"] = event.duration
    if event.developer is not None:
        content["developer"] = _developer_object(event.developer)
    if event.admission is not None:
        content["admission"] = dict(event.admission)
    return content


def make_content(
    event: AuditEvent,
    at_ns: int,
    arguments_digest: str | None,
    arguments_json: str | None,
) -> str:
    """The content of the record of ``event`` made at ``at_ns`` (nanoseconds since the epoch)."""
    head, tail = content_parts(event, arguments_digest, arguments_json)
    return head + time_text(at_ns) + tail


def content_parts(
    event: AuditEvent, arguments_digest: str | None, arguments_json: str | None
) -> tuple[str, str]:
    """The content of the record of ``event`` but its time: ``head + time_text(at) + tail``.

    The log builds the parts when an event is recorded and joins them with the time when it
    stores the batch, so that the caller's objects are read once, at the call.

    Raises:
        AuditValueError: A field has no canonical JSON form (the admission's details).
    """
    try:
        return _fast_parts(event, arguments_digest, arguments_json)
    except TypeError:
        # A field of an unexpected type (an int for a name, say): json writes it as it is.
        # The time's place is found again by a marker: its quotes are unescaped only where
        # the structure put them, and the top level's "at" is the last key holding one.
        whole = _encode(content_object(event, _AT_MARK, arguments_digest, arguments_json))
        head, _, tail = whole.rpartition(_AT_FOUND)
        return head + '"at":"', '"' + tail


_AT_MARK: Final = "\0at\0"
_AT_FOUND: Final = '"at":' + encode_basestring(_AT_MARK)


def _fast_parts(
    event: AuditEvent, arguments_digest: str | None, arguments_json: str | None
) -> tuple[str, str]:
    """`content_object`'s canonical JSON, written key by key in sorted order, around ``at``.

    The same text `canonical_json` writes (a test holds them equal), without building the
    object and sorting it again for every record.
    """
    text = encode_basestring
    parts: list[str] = []
    add = parts.append
    # Keys in code-point order: admission, approval_id, arguments, arguments_digest, at,
    # call_id, decision, developer, duration, kind, outcome, reason, requester, risk, rule,
    # skill, source, tool.
    if event.admission is not None:
        add('"admission":' + canonical_json(event.admission))
    if event.approval_id is not None:
        add('"approval_id":' + text(event.approval_id))
    if arguments_json is not None:
        add('"arguments":' + text(arguments_json))
    if arguments_digest is not None:
        add('"arguments_digest":' + text(arguments_digest))
    head = "{" + "".join(part + "," for part in parts) + '"at":"'
    parts = []
    add = parts.append
    if event.call_id is not None:
        add('"call_id":' + text(event.call_id))
    if event.decision is not None:
        add('"decision":' + text(event.decision))
    if event.developer is not None:
        add('"developer":' + _encode(_developer_object(event.developer)))
    duration = event.duration
    if duration is not None:
        if type(duration) is not float and type(duration) is not int:
            raise TypeError("duration")
        add('"duration":' + repr(duration))
    add('"kind":' + text(event.kind))
    if event.outcome is not None:
        add('"outcome":' + text(event.outcome))
    if event.reason is not None:
        add('"reason":' + text(event.reason))
    if event.requester is not None:
        add('"requester":' + event.requester._json)
    if event.risk is not None:
        add('"risk":' + text(event.risk))
    if event.rule is not None:
        add('"rule":' + text(event.rule))
    if event.skill is not None:
        add('"skill":' + text(event.skill))
    if event.source is not None:
        add('"source":' + text(event.source))
    if event.tool is not None:
        add('"tool":' + text(event.tool))
    return head, '",' + ",".join(parts) + "}"


def _developer_object(developer: DeveloperDetails) -> dict[str, str]:
    return {
        "exception_type": developer.exception_type,
        "message": developer.message,
        "traceback": developer.traceback,
    }


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
        requester = fields.pop("requester", None)
        if requester is not None:
            requester["parents"] = tuple(requester.get("parents", ()))
        return AuditRecord(
            sequence=sequence,
            at=parse_time(fields.pop("at")),
            kind=fields.pop("kind"),
            requester=None if requester is None else Requester(**requester),
            duration=fields.pop("duration", None),
            arguments_digest=fields.pop("arguments_digest", None),
            arguments_json=fields.pop("arguments", None),
            developer=None if developer is None else DeveloperDetails(**developer),
            admission=fields.pop("admission", None),
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
