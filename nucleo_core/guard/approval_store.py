"""Durable approvals: the `ApprovalStore` that keeps a paused run's pending approvals.

A run whose ``confirm``-level call finds no inline approver (or an approver that defers)
pauses when its conversation is durable (`nucleo_core.errors.RunPaused`): each pending call
becomes an `ApprovalRecord` in a store that any process can read and decide. Each approval is
decided **exactly once**: `ApprovalStore.approve` and `ApprovalStore.reject` are conditional
updates (``pending`` and not expired → decided), and deciding one that is no longer pending
raises `ApprovalAlreadyDecided` (or `ApprovalExpired`) saying what it is and how it got there.
A resumed run **claims** an approved call before it runs it (``approved`` → ``consumed``, also
conditional), so the call runs once even when the run is resumed twice.

The statuses::

    pending ──approve──▶ approved ──claim (the resumed run)──▶ consumed
       │ └───reject───▶ rejected
       └──(expires_at passes)──▶ expired      (read as expired; never written)

Expiry bounds the *decision*: a pending approval past its ``expires_at`` reads as
``expired`` and can no longer be decided; an approval decided in time stays decided.

`SQLiteApprovalStore` is the default: ``approvals.sqlite3`` next to the durable conversations'
file (`default_approvals_path`), or ``$NUCLEO_APPROVALS``. `MemoryApprovalStore` serves tests
and in-memory conversation services. ``sqlite3`` is imported only when a SQLite store opens.
`PostgresApprovalStore` (``nucleo_core.guard.postgres_approval_store``) keeps them in
PostgreSQL for many workers; `approvals_beside` picks the one that goes with a conversations'
store.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, get_args, runtime_checkable

from nucleo_core.errors import MisuseError

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "APPROVALS_ENVIRONMENT_VARIABLE",
    "APPROVAL_STATUSES",
    "DEFAULT_APPROVAL_EXPIRY",
    "ApprovalAlreadyDecided",
    "ApprovalError",
    "ApprovalExpired",
    "ApprovalKind",
    "ApprovalNotFound",
    "ApprovalRecord",
    "ApprovalStatus",
    "ApprovalStore",
    "ApprovalStoreError",
    "MemoryApprovalStore",
    "SQLiteApprovalStore",
    "approvals_beside",
    "default_approvals_path",
    "stored_as",
]

#: Names the approvals' SQLite file, over the default next to the conversations' file.
APPROVALS_ENVIRONMENT_VARIABLE: Final = "NUCLEO_APPROVALS"
#: The approvals' file name, in the folder of the conversations' file.
APPROVALS_FILE_NAME: Final = "approvals.sqlite3"
#: How long a pending approval may wait for its decision, in seconds: 24 hours.
DEFAULT_APPROVAL_EXPIRY: Final = 24 * 60 * 60.0

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


@runtime_checkable
class ApprovalStore(Protocol):
    """Where pending approvals are kept and decided; safe across threads and processes.

    Every method reads and writes the shared store itself (nothing is cached), so a decision
    made by one process is what every other reads next.
    """

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records``, all or none; a record whose id is kept already is left as it is."""
        ...

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        ...

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals, oldest request first.

        Only those of ``status`` (as read now) and of ``conversation_id``, when given.
        """
        ...

    def approve(
        self,
        approval_id: str,
        *,
        by: str = "",
        note: str = "",
        content: Mapping[str, Any] | None = None,
    ) -> ApprovalRecord:
        """Approve a pending approval, once.

        ``content`` is the answer to an ``elicitation`` approval (checked against its
        requested schema); a call's approval takes none.

        Raises:
            ApprovalNotFound: No such approval.
            ApprovalAlreadyDecided: It was decided before.
            ApprovalExpired: It expired undecided.
            ApprovalError: ``content`` does not fit (each problem named, never the value).
        """
        ...

    def reject(self, approval_id: str, reason: str, *, by: str = "") -> ApprovalRecord:
        """Reject a pending approval, once; ``reason`` is what the model reads.

        Raises:
            ApprovalNotFound: No such approval.
            ApprovalAlreadyDecided: It was decided before.
            ApprovalExpired: It expired undecided.
        """
        ...

    def claim(self, approval_id: str) -> bool:
        """Mark an approved approval consumed, before its call runs.

        ``True`` for the one claimer that moved it from ``approved``, ``False`` for everyone
        else (it was consumed already, or is not approved).
        """
        ...

    def close(self) -> None:
        """Release what the store holds open (closing twice is harmless)."""
        ...


def stored_as(status: ApprovalStatus) -> tuple[ApprovalStatus, ...]:
    """The stored statuses a record may have to read as ``status`` now (`status_at`).

    A pending record past its expiry reads as expired; every other status reads as stored.
    A store filters on these, then on `ApprovalRecord.status_at`.
    """
    if status == "expired":
        return ("pending", "expired")
    return (status,)


def default_approvals_path(conversations_path: str | os.PathLike[str]) -> Path:
    """Where approvals are kept for a conversations' file.

    ``$NUCLEO_APPROVALS`` when set, else ``approvals.sqlite3`` in the folder of
    ``conversations_path``.
    """
    configured = os.environ.get(APPROVALS_ENVIRONMENT_VARIABLE)
    if configured:
        return Path(configured).expanduser()
    return Path(conversations_path).expanduser().with_name(APPROVALS_FILE_NAME)


def approvals_beside(conversations_path: str) -> ApprovalStore:
    """The approvals' store that goes with a conversations' store.

    For a ``postgresql://`` URL, the same database (`PostgresApprovalStore`); for
    ``":memory:"``, a new `MemoryApprovalStore`; else a `SQLiteApprovalStore` at
    `default_approvals_path`.
    """
    if conversations_path.startswith(("postgresql://", "postgres://")):
        # Imported here: only a PostgreSQL URL imports psycopg.
        from nucleo_core.guard.postgres_approval_store import PostgresApprovalStore

        return PostgresApprovalStore(conversations_path)
    if conversations_path == ":memory:":
        return MemoryApprovalStore()
    return SQLiteApprovalStore(default_approvals_path(conversations_path))


def _now() -> datetime:
    return datetime.now(UTC)


def _check_reason(reason: object) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ApprovalError(
            "a rejection needs a reason (a non-empty string): it is what the model reads"
        )
    return reason.strip()


def _decided(
    record: ApprovalRecord,
    status: ApprovalStatus,
    by: str,
    reason: str,
    content: Mapping[str, Any] | None = None,
) -> ApprovalRecord:
    kept = _checked_content(record, content) if status == "approved" else None
    return replace(
        record, status=status, decided_at=_now(), decided_by=by, reason=reason, content=kept
    )


def _checked_content(
    record: ApprovalRecord, content: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """The answer an approval keeps: none for a call, a fitting one for a form elicitation."""
    if record.kind != "elicitation":
        if content is not None:
            raise ApprovalError(
                f"approval {record.id} is of a call of {record.tool!r}, not of an elicitation: "
                "it takes no content"
            )
        return None
    if record.elicitation.get("mode", "form") == "url":
        if content:
            raise ApprovalError(
                f"approval {record.id} asks to open a URL: approving it takes no content"
            )
        return MappingProxyType({})
    from nucleo_core.mcp.elicitation import answer_problems

    schema = record.elicitation.get("schema") or {}
    problems = answer_problems(schema, {} if content is None else content)
    if problems:
        raise ApprovalError(
            f"the content does not fit what MCP server "
            f"'{record.elicitation.get('server', '?')}' asked for ({'; '.join(problems)}); "
            "nothing was decided: approve it again with content that fits (--content JSON)"
        )
    return MappingProxyType(dict(content or {}))


def _refusal(record: ApprovalRecord | None, approval_id: str) -> ApprovalError:
    """Why ``record`` could not be decided: it is missing, expired, or decided already."""
    if record is None:
        return ApprovalNotFound(approval_id)
    if record.status_at() == "expired":
        return ApprovalExpired(record)
    return ApprovalAlreadyDecided(record)


class MemoryApprovalStore:
    """Approvals kept in this process's memory (tests, in-memory conversation services)."""

    def __init__(self) -> None:
        self._records: dict[str, ApprovalRecord] = {}
        self._lock = threading.Lock()

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records`` (see `ApprovalStore.add`)."""
        with self._lock:
            for record in records:
                self._records.setdefault(record.id, record)

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        with self._lock:
            return self._records.get(approval_id)

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals (see `ApprovalStore.list`)."""
        with self._lock:
            found = sorted(self._records.values(), key=lambda r: r.requested_at)
        return [
            record
            for record in found
            if (status is None or record.status_at() == status)
            and (conversation_id is None or record.conversation_id == conversation_id)
        ]

    def approve(
        self,
        approval_id: str,
        *,
        by: str = "",
        note: str = "",
        content: Mapping[str, Any] | None = None,
    ) -> ApprovalRecord:
        """Approve, once (see `ApprovalStore.approve`)."""
        return self._decide(approval_id, "approved", by, note, content)

    def reject(self, approval_id: str, reason: str, *, by: str = "") -> ApprovalRecord:
        """Reject, once (see `ApprovalStore.reject`)."""
        return self._decide(approval_id, "rejected", by, _check_reason(reason))

    def claim(self, approval_id: str) -> bool:
        """Approved → consumed, once (see `ApprovalStore.claim`)."""
        with self._lock:
            record = self._records.get(approval_id)
            if record is None or record.status != "approved":
                return False
            self._records[approval_id] = replace(record, status="consumed")
            return True

    def close(self) -> None:
        """Nothing to release."""

    def _decide(
        self,
        approval_id: str,
        status: ApprovalStatus,
        by: str,
        reason: str,
        content: Mapping[str, Any] | None = None,
    ) -> ApprovalRecord:
        with self._lock:
            record = self._records.get(approval_id)
            if record is None or record.status_at() != "pending":
                raise _refusal(record, approval_id)
            decided = self._records[approval_id] = _decided(record, status, by, reason, content)
            return decided


_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    status TEXT NOT NULL,
    requested_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS approvals_by_conversation ON approvals (conversation_id);
CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals (status);
"""


class SQLiteApprovalStore:
    """Approvals in one SQLite file, shared by every process that opens it.

    Write-ahead logging with ``synchronous=FULL``: an approval added or decided is on disk
    before the call returns. Decisions and claims are single conditional ``UPDATE``
    statements (``WHERE status = 'pending' AND expires_at > now``), so of two processes
    deciding one approval at once, exactly one succeeds. The file and its folder are made on
    first use.

    Args:
        path: The SQLite file (see `default_approvals_path`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is not None:
            return self._connection
        import sqlite3

        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > _SCHEMA_VERSION:
                connection.close()
                raise ApprovalStoreError(
                    f"{self.path} was written by a later nucleo (approvals schema {version}); "
                    "upgrade nucleo to read it"
                )
            connection.executescript(_SCHEMA)
            connection.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
        except sqlite3.Error as exc:
            raise ApprovalStoreError(
                f"the approvals' store {self.path} cannot be opened: {exc}"
            ) from exc
        self._connection = connection
        return connection

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records``, all or none (see `ApprovalStore.add`)."""
        rows = [
            (
                r.id,
                r.conversation_id,
                r.status,
                r.requested_at.timestamp(),
                r.expires_at.timestamp(),
                json.dumps(r.to_json() | {"status": r.status}, sort_keys=True),
            )
            for r in records
        ]
        with self._lock:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR IGNORE INTO approvals VALUES (?, ?, ?, ?, ?, ?)", rows)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        with self._lock:
            row = (
                self._db()
                .execute("SELECT status, record FROM approvals WHERE id = ?", (approval_id,))
                .fetchone()
            )
        return None if row is None else _from_row(row)

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals (see `ApprovalStore.list`)."""
        where: list[str] = []
        params: tuple[str, ...] = ()
        if conversation_id is not None:
            where.append("conversation_id = ?")
            params = (conversation_id,)
        if status is not None:  # only the rows that can read as it: no parse of the others
            stored = stored_as(status)
            where.append(f"status IN ({', '.join('?' * len(stored))})")
            params += stored
        query = "SELECT status, record FROM approvals"
        if where:
            query += " WHERE " + " AND ".join(where)
        with self._lock:
            rows = self._db().execute(query + " ORDER BY requested_at, id", params).fetchall()
        found = [_from_row(row) for row in rows]
        return [r for r in found if status is None or r.status_at() == status]

    def approve(
        self,
        approval_id: str,
        *,
        by: str = "",
        note: str = "",
        content: Mapping[str, Any] | None = None,
    ) -> ApprovalRecord:
        """Approve, once (see `ApprovalStore.approve`)."""
        return self._decide(approval_id, "approved", by, note, content)

    def reject(self, approval_id: str, reason: str, *, by: str = "") -> ApprovalRecord:
        """Reject, once (see `ApprovalStore.reject`)."""
        return self._decide(approval_id, "rejected", by, _check_reason(reason))

    def claim(self, approval_id: str) -> bool:
        """Approved → consumed, once (see `ApprovalStore.claim`)."""
        with self._lock:
            db = self._db()
            row = db.execute("SELECT status, record FROM approvals WHERE id = ?", (approval_id,))
            found = row.fetchone()
            if found is None:
                return False
            consumed = replace(_from_row(found), status="consumed")
            cursor = db.execute(
                "UPDATE approvals SET status = 'consumed', record = ? "
                "WHERE id = ? AND status = 'approved'",
                (_encoded(consumed), approval_id),
            )
            return cursor.rowcount == 1

    def close(self) -> None:
        """Close the connection (a later use opens it again)."""
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _decide(
        self,
        approval_id: str,
        status: ApprovalStatus,
        by: str,
        reason: str,
        content: Mapping[str, Any] | None = None,
    ) -> ApprovalRecord:
        with self._lock:
            db = self._db()
            row = db.execute(
                "SELECT status, record FROM approvals WHERE id = ?", (approval_id,)
            ).fetchone()
            record = None if row is None else _from_row(row)
            if record is None or record.status_at() != "pending":
                raise _refusal(record, approval_id)
            decided = _decided(record, status, by, reason, content)
            # The condition is the guarantee: whoever read "pending" above, one UPDATE wins.
            cursor = db.execute(
                "UPDATE approvals SET status = ?, record = ? "
                "WHERE id = ? AND status = 'pending' AND expires_at > ?",
                (status, _encoded(decided), approval_id, time.time()),
            )
            if cursor.rowcount != 1:
                again = db.execute(
                    "SELECT status, record FROM approvals WHERE id = ?", (approval_id,)
                ).fetchone()
                raise _refusal(None if again is None else _from_row(again), approval_id)
            return decided


def _encoded(record: ApprovalRecord) -> str:
    return json.dumps(record.to_json() | {"status": record.status}, sort_keys=True)


def _from_row(row: tuple[str, str]) -> ApprovalRecord:
    status, text = row
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ApprovalStoreError(f"an approval record is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ApprovalStoreError("an approval record is not a JSON object")
    # The status column is the one the conditional updates move: it wins over the copy.
    return ApprovalRecord.from_json(data | {"status": status})
