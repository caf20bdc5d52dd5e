"""`ApprovalRecord`: one durable approval of a paused run's call, and the errors of deciding it.

Each approval is decided **exactly once**: deciding one that is no longer pending raises
`ApprovalAlreadyDecided` (or `ApprovalExpired`) saying what it is and how it got there. The
statuses::

    pending ──approve──▶ approved ──claim (the resumed run)──▶ consumed
       │ └───reject───▶ rejected
       └──(expires_at passes)──▶ expired      (read as expired; never written)

Expiry bounds the *decision*: a pending approval past its ``expires_at`` reads as
``expired`` and can no longer be decided; an approval decided in time stays decided.

`nucleo_core.errors.RunPaused` carries the records of a paused run, so this module stands
below the rest of the guard: it imports only the roots of the error hierarchy
(`nucleo_core._error_roots`) and, to check a call against its approval, the canonical JSON of
`nucleo_core.guard.audit.canonical`. The stores that keep the records are
`nucleo_core.guard.approval_store`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Final, Literal, get_args

from nucleo_core._error_roots import MisuseError

__all__ = [
    "APPROVAL_STATUSES",
    "ApprovalAlreadyDecided",
    "ApprovalError",
    "ApprovalExpired",
    "ApprovalKind",
    "ApprovalNotFound",
    "ApprovalRecord",
    "ApprovalStatus",
    "ApprovalStoreError",
    "stored_as",
]

ApprovalStatus = Literal["pending", "approved", "rejected", "consumed", "expired"]
#: What waits: the call itself, or an MCP server's elicitation during the call.
ApprovalKind = Literal["call", "elicitation"]
#: Every status an approval can read as.
APPROVAL_STATUSES: Final[tuple[ApprovalStatus, ...]] = get_args(ApprovalStatus)


class ApprovalError(MisuseError):
    """Base of the errors of deciding or reading a durable approval."""


class ApprovalNotFound(ApprovalError):
    """No approval of that id is kept in this store."""

    def __init__(self, approval_id: str) -> None:
        self.approval_id = approval_id
        super().__init__(
            f"no approval {approval_id!r} in this store; `nucleo approvals` lists the pending "
            "ones (check $NUCLEO_APPROVALS or --path if you expected it here)"
        )


class ApprovalAlreadyDecided(ApprovalError):
    """The approval was decided before: each approval is decided exactly once.

    Attributes:
        record: The approval as it is now (its status, who decided it and when).
    """

    def __init__(self, record: ApprovalRecord) -> None:
        self.record = record
        when = record.decided_at.isoformat(timespec="seconds") if record.decided_at else "?"
        who = f" by {record.decided_by}" if record.decided_by else ""
        how = {
            "approved": "it was approved",
            "rejected": "it was rejected",
            "consumed": "it was approved and its call has run (resumed)",
        }.get(record.status, f"it is {record.status}")
        super().__init__(
            f"approval {record.id} of {record.tool!r} was already decided: {how}{who} at "
            f"{when}; an approval is decided once (a new call of the tool asks a new one)"
        )


class ApprovalExpired(ApprovalError):
    """The approval's time to be decided passed: it reads as expired and cannot be decided."""

    def __init__(self, record: ApprovalRecord) -> None:
        self.record = record
        super().__init__(
            f"approval {record.id} of {record.tool!r} expired at "
            f"{record.expires_at.isoformat(timespec='seconds')} without a decision; resuming "
            "the run rejects its call as expired"
        )


class ApprovalStoreError(ApprovalError):
    """The approvals' store cannot be opened, or holds a record it cannot read."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRecord:
    """One pending (or decided) approval of a paused run's call.

    Attributes:
        id: The approval's id (also on the audit record, as ``approval_id``).
        thinker: The qualified class name of the thinker whose call waits (a sub-thinker's
            own class for a sub-thinker's call).
        conversation_id: The paused conversation ``nucleo resume`` continues: the root run's,
            for a sub-thinker's call too.
        call_id: The tool-use id of the waiting call.
        tool: The tool's name.
        source: The tool's source id.
        risk: The tool's declared risk (``"high"`` when it declares none).
        risk_declared: Whether the tool declared its risk.
        arguments: The call's arguments in full (needed to run the call; they are the
            conversation's content anyway).
        arguments_digest: The digest of ``arguments``' canonical JSON: the approval
            authorises a call with exactly these arguments, no other.
        decided_by_rule: What made the call need an approval (``default:risk=high``...).
        requested_by: Who asked: the thinkers that launched it, root first, then the thinker
            instance itself, as ``module.Class#id`` joined by `` > ``.
        requested_at: When the approval was asked (UTC).
        expires_at: When it expires if still undecided (UTC).
        status: As stored; read `status_at` for the status now (expiry included).
        decided_at: When it was decided (or claimed), else ``None``.
        decided_by: Who decided it, as the decider said (a user name, ``cli``...).
        reason: The rejection's reason (what the model reads), or an approval's note.
        kind: ``"call"`` (the call itself waits) or ``"elicitation"`` (the call ran and its
            MCP server asked for input nobody could give inline: see `elicitation`).
        elicitation: For an ``elicitation`` approval, what the server asked: ``server``,
            ``message`` (the server's text, never sent to a model), ``mode`` and ``schema``
            (the requested schema); empty otherwise.
        content: For an approved ``elicitation``, the answer's content (checked against the
            requested schema when it was decided); ``None`` otherwise.
    """

    id: str
    thinker: str
    conversation_id: str
    call_id: str
    tool: str
    source: str
    risk: str
    risk_declared: bool = False
    arguments: Mapping[str, Any] = field(default_factory=dict)
    arguments_digest: str = ""
    decided_by_rule: str = ""
    requested_by: str = ""
    requested_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    expires_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    status: ApprovalStatus = "pending"
    decided_at: datetime | None = None
    decided_by: str = ""
    reason: str = ""
    kind: ApprovalKind = "call"
    elicitation: Mapping[str, Any] = field(default_factory=dict)
    content: Mapping[str, Any] | None = None

    def status_at(self, now: datetime | None = None) -> ApprovalStatus:
        """The status at ``now`` (the current time): a pending one past its expiry is expired."""
        if self.status == "pending" and (now or datetime.now(UTC)) >= self.expires_at:
            return "expired"
        return self.status

    def bound_to(self, arguments: object) -> bool:
        """Whether this approval authorises a call with ``arguments``: their digest is its own.

        Its own arguments are checked against its digest too, so a record edited in the store
        authorises nothing.
        """
        from nucleo_core.guard.audit.canonical import arguments_digest

        try:
            return (
                arguments_digest(arguments)
                == self.arguments_digest
                == arguments_digest(dict(self.arguments))
            )
        except Exception:  # arguments with no canonical form match nothing
            return False

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (``status`` is the status now)."""
        return {
            "id": self.id,
            "status": self.status_at(),
            "thinker": self.thinker,
            "conversation_id": self.conversation_id,
            "call_id": self.call_id,
            "tool": self.tool,
            "source": self.source,
            "risk": self.risk,
            "risk_declared": self.risk_declared,
            "arguments": dict(self.arguments),
            "arguments_digest": self.arguments_digest,
            "decided_by_rule": self.decided_by_rule,
            "requested_by": self.requested_by,
            "requested_at": self.requested_at.isoformat(),
            "expires_at": self.expires_at.isoformat(),
            "decided_at": self.decided_at.isoformat() if self.decided_at else None,
            "decided_by": self.decided_by or None,
            "reason": self.reason or None,
        } | self._elicitation_json()

    def _elicitation_json(self) -> dict[str, Any]:
        if self.kind == "call":  # a call's record is written as it always was
            return {}
        return {
            "kind": self.kind,
            "elicitation": dict(self.elicitation),
            "content": None if self.content is None else dict(self.content),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ApprovalRecord:
        """The record `to_json` wrote.

        Raises:
            ApprovalStoreError: ``data`` is not such a record.
        """
        try:
            status = data["status"]
            if status not in APPROVAL_STATUSES:
                raise ValueError(f"status {status!r}")
            decided_at = data.get("decided_at")
            arguments = data["arguments"]
            if not isinstance(arguments, Mapping):
                raise ValueError("arguments is not an object")
            kind: ApprovalKind = data.get("kind") or "call"
            if kind not in get_args(ApprovalKind):
                raise ValueError(f"kind {kind!r}")
            elicitation = data.get("elicitation") or {}
            content = data.get("content")
            if not isinstance(elicitation, Mapping) or not (
                content is None or isinstance(content, Mapping)
            ):
                raise ValueError("elicitation or content is not an object")
            return cls(
                id=str(data["id"]),
                thinker=str(data["thinker"]),
                conversation_id=str(data["conversation_id"]),
                call_id=str(data["call_id"]),
                tool=str(data["tool"]),
                source=str(data["source"]),
                risk=str(data["risk"]),
                risk_declared=bool(data.get("risk_declared", False)),
                arguments=MappingProxyType(dict(arguments)),
                arguments_digest=str(data["arguments_digest"]),
                decided_by_rule=str(data.get("decided_by_rule") or ""),
                requested_by=str(data.get("requested_by") or ""),
                requested_at=datetime.fromisoformat(str(data["requested_at"])),
                expires_at=datetime.fromisoformat(str(data["expires_at"])),
                # An expired status is never stored: it is what a pending one reads as.
                status="pending" if status == "expired" else status,
                decided_at=datetime.fromisoformat(str(decided_at)) if decided_at else None,
                decided_by=str(data.get("decided_by") or ""),
                reason=str(data.get("reason") or ""),
                kind=kind,
                elicitation=MappingProxyType(dict(elicitation)),
                content=None if content is None else MappingProxyType(dict(content)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ApprovalStoreError(f"an approval record cannot be read: {exc}") from exc


def stored_as(status: ApprovalStatus) -> tuple[ApprovalStatus, ...]:
    """The stored statuses a record may have to read as ``status`` now (`status_at`).

    A pending record past its expiry reads as expired; every other status reads as stored.
    A store filters on these, then on `ApprovalRecord.status_at`.
    """
    if status == "expired":
        return ("pending", "expired")
    return (status,)
