"""Durable approvals in one turn's execution: calls that wait, and calls a resume settles.

A turn runs with a `DurableApprovals` when its conversation is durable (it may *pause*) or
when it is a paused turn being resumed (its approvals were decided in the store):

- **pausable**: a ``confirm`` call with no approver, or whose approver defers, does not run
  and is not refused: it waits (`CallStatus.PENDING`), as a `PendingCall` the thinker turns
  into an `ApprovalRecord`;
- **answered**: a call that ran before the pause keeps the result it had; it does not run
  again;
- **decided**: a call whose approval was decided: ``approved`` passes the call door again
  and runs once claimed (and only when the approval is bound to its arguments); ``rejected``
  and ``expired`` are refused with the reason; ``consumed`` (claimed by an earlier resume that
  did not keep its result) is refused rather than run twice;
- **delegated**: a ``sub_thinker`` call whose sub-thinker paused (its own ``confirm`` calls
  found no approver) waits too: the delegation raises `DelegationPaused` with the
  sub-thinker's `DelegationState` (its conversation, made durable at its pause, and its
  pending approvals), and the parent's turn pauses with it. On resume the call passes the door
  again and its tool (a `ResumesDelegation`) continues that sub-thinker's run instead of
  starting a new one. A delegate may delegate in turn: each level keeps its own paused turn,
  and the root's lists every approval below it.
- **elicited**: an MCP call whose server asked for input (elicitation) that nobody could
  answer inline waits too, by the same road: the call raises `ElicitationPaused` once it
  ended (the server was told ``cancel``), and the turn keeps it as a delegation with no
  conversation and one approval of kind ``"elicitation"``. On resume that approval is read as
  the call's own: ``rejected`` refuses the call with the reason; ``approved`` makes the call
  again (claimed, so once), and the server's same request is answered with the decided
  content (`nucleo_core.mcp.elicitation.ElicitationScope`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord, ApprovalStore
    from nucleo_core.guard.approvals import ApprovalRequest
    from nucleo_core.models.messages import ToolResultBlock
    from nucleo_core.thinking.tool_call import ToolCall

__all__ = [
    "DelegationPaused",
    "DelegationState",
    "DurableApprovals",
    "ElicitationPaused",
    "ElicitationScope",
    "PendingCall",
    "PendingDelegation",
    "ResumesDelegation",
    "current_elicitation_scope",
    "elicitation_scope",
    "settled_refusal",
]


@dataclass(frozen=True, slots=True)
class DelegationState:
    """A sub-thinker's paused run, as the paused turn of the thinker that delegated keeps it.

    Attributes:
        conversation_id: The sub-thinker's conversation. Temporary while the sub-thinker runs,
            it is made durable (with everything it holds: messages, skills, artifacts, its own
            paused turn) when the sub-thinker pauses, in the same conversations' file, and
            deleted once the resumed sub-thinker has answered.
        read_only: Whether the sub-thinker was bound read-only (a resumed one is bound so too).
        approvals: Its pending approvals and those of its own delegates, in the calls' order.
        elicitation: For an MCP call paused by its server's elicitation (no sub-thinker, no
            conversation): what the server asked (see `ElicitationPaused`); else ``None``.
    """

    conversation_id: str
    read_only: bool
    approvals: tuple[ApprovalRecord, ...]
    elicitation: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The state as a JSON object (the approvals as pending, as they were filed)."""
        data: dict[str, Any] = {
            "conversation": self.conversation_id,
            "read_only": self.read_only,
            "approvals": [record.to_json() | {"status": "pending"} for record in self.approvals],
        }
        if self.elicitation is not None:
            data["elicitation"] = dict(self.elicitation)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DelegationState:
        """The state `to_json` wrote.

        Raises:
            ValueError: ``data`` is not such a state (as `ApprovalStoreError` for a record).
        """
        from nucleo_core.guard.approval_store import ApprovalRecord

        conversation, read_only = data["conversation"], data["read_only"]
        if not isinstance(conversation, str) or not isinstance(read_only, bool):
            raise ValueError("a delegation's conversation or read_only is of the wrong type")
        records = tuple(ApprovalRecord.from_json(item) for item in data["approvals"])
        elicitation = data.get("elicitation")
        if elicitation is not None and not isinstance(elicitation, Mapping):
            raise ValueError("a delegation's elicitation is not an object")
        return cls(conversation, read_only, records, elicitation)


class DelegationPaused(Exception):
    """A ``sub_thinker`` call's sub-thinker paused: the call waits with the parent's turn.

    Framework-internal: raised by the delegation tool in a turn that may pause, and caught by
    the execution, which makes the call `CallStatus.PENDING`; never reaches a model.

    Attributes:
        state: What the parent's paused turn keeps to resume the sub-thinker.
    """

    def __init__(self, state: DelegationState) -> None:
        self.state = state
        super().__init__(f"the sub-thinker paused in conversation {state.conversation_id}")


class ElicitationPaused(DelegationPaused):
    """An MCP call's server asked for input nobody could answer now: the call waits.

    Raised by the MCP client once the call ended (the server was told ``cancel``), in a turn
    that may pause; the execution keeps it as a paused delegation (see the module).

    Attributes:
        asked: What the server asked: ``server``, ``tool``, ``message``, ``mode``, and
            ``schema`` (or ``url``).
    """

    def __init__(self, asked: Mapping[str, Any]) -> None:
        self.asked = dict(asked)
        super().__init__(DelegationState("", False, (), self.asked))
        self.args = (f"MCP server '{self.asked.get('server', '?')}' asked for input",)


@runtime_checkable
class ResumesDelegation(Protocol):
    """A tool that can continue a paused sub-thinker's run instead of starting a new one."""

    def resume_from(self, state: DelegationState) -> None:
        """Continue the run ``state`` keeps when the tool runs, instead of starting one."""
        ...


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call of the turn waiting for a durable approval.

    Attributes:
        index: Its place among the turn's calls.
        call: The call.
        request: What an approver is shown (tool, source, risk, arguments...).
        approval_id: The approval's id (on the audit record's ``approval_request`` too).
    """

    index: int
    call: ToolCall
    request: ApprovalRequest
    approval_id: str

    def approval_record(
        self,
        *,
        thinker: str,
        conversation_id: str,
        requested_by: str,
        expiry: float,
        now: datetime | None = None,
    ) -> ApprovalRecord:
        """The pending approval the call waits for, as the approvals' store files it.

        What a paused turn, the MCP gateway and the HTTP API's executions each file for a
        call left waiting: the request's tool, source, risk and arguments (with their digest,
        which the approval is bound to), under this call's approval id.

        Args:
            thinker: The qualified class name of the thinker (or caller) the call is for.
            conversation_id: The conversation (or key) a decision of the approval resumes.
            requested_by: Who asked for the call.
            expiry: Seconds from ``now`` until the approval expires undecided.
            now: When the approval was requested; the current time when ``None`` (a paused
                turn gives all its records one time).
        """
        from nucleo_core.guard.approval_store import ApprovalRecord
        from nucleo_core.guard.audit.canonical import arguments_digest

        request = self.request
        arguments = dict(request.arguments)
        requested_at = datetime.now(UTC) if now is None else now
        return ApprovalRecord(
            id=self.approval_id,
            thinker=thinker,
            conversation_id=conversation_id,
            call_id=self.call.id,
            tool=request.tool,
            source=request.source,
            risk=request.risk,
            risk_declared=request.risk_declared,
            arguments=arguments,
            arguments_digest=arguments_digest(arguments),
            decided_by_rule=request.decided_by,
            requested_by=requested_by,
            requested_at=requested_at,
            expires_at=requested_at + timedelta(seconds=expiry),
        )


@dataclass(frozen=True, slots=True)
class PendingDelegation:
    """A ``sub_thinker`` call of the turn waiting for its sub-thinker's approvals.

    Attributes:
        index: Its place among the turn's calls.
        call: The call.
        state: The paused sub-thinker.
    """

    index: int
    call: ToolCall
    state: DelegationState


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableApprovals:
    """How one turn's ``confirm`` calls meet durable approvals (see the module).

    Attributes:
        pausable: A ``confirm`` call nobody approves inline waits instead of being refused.
        answered: By tool-use id, the results the calls that ran before the pause got.
        decided: By tool-use id, the approvals of a resumed turn as read from the store.
        store: Where an approved call is claimed before it runs (required with ``decided``).
        delegations: By tool-use id, the paused sub-thinkers a resumed turn's ``sub_thinker``
            calls continue.
    """

    pausable: bool = False
    answered: Mapping[str, ToolResultBlock] = field(default_factory=dict)
    decided: Mapping[str, ApprovalRecord] = field(default_factory=dict)
    store: ApprovalStore | None = None
    delegations: Mapping[str, DelegationState] = field(default_factory=dict)


def settled_refusal(record: ApprovalRecord) -> str | None:
    """The model's text for a call whose approval settles it without running, or ``None``.

    ``None`` for an approved approval: its call goes through the door and runs.
    """
    tool = record.tool
    status = record.status_at()
    if record.kind == "elicitation" and status in ("rejected", "expired"):
        server = record.elicitation.get("server", "?")
        why = f": {record.reason}" if status == "rejected" and record.reason else ""
        how = "was refused" if status == "rejected" else "expired before anyone answered it"
        return (
            f"Calling '{tool}' stopped: MCP server '{server}' asked for input during the "
            f"call, and the request {how}{why}. Choose another tool, or go on without it."
        )
    if status == "rejected":
        said = f": {record.reason}" if record.reason else ""
        return f"Calling '{tool}' was not approved{said}. Choose another tool, or go on without it."
    if status == "expired":
        return (
            f"Calling '{tool}' was not approved: its approval expired before anyone decided "
            "it. Choose another tool, or go on without it."
        )
    if status == "consumed":
        return (
            f"Calling '{tool}' was approved and started once already, but its result was not "
            "kept; it was not run again. Check whether it took effect before calling it again."
        )
    if status == "pending":  # a resume never runs a turn with a pending approval; defensive
        return f"Calling '{tool}' is still waiting for an approval; it did not run."
    return None


@dataclass(slots=True)
class ElicitationScope:
    """One turn's MCP elicitations in a durable run: what the turn's MCP calls read.

    With no inline answerer, an MCP server's elicitation during a call of a turn that may
    pause is *pending*: the server is told ``cancel`` and the call raises `ElicitationPaused`
    once it ends (`nucleo_core.mcp.elicitation.CallElicitations`). A resumed turn's decided
    elicitation approvals answer the same request (server, tool, message, schema) when the
    re-made call asks it again, each once.

    Attributes:
        pausable: The turn may pause.
        decided: The decided elicitation approvals of a resumed turn.
    """

    pausable: bool = False
    decided: tuple[ApprovalRecord, ...] = ()
    _used: set[str] = field(default_factory=set)

    def decision_for(self, asked: Mapping[str, Any]) -> ApprovalRecord | None:
        """The decided approval of the request ``asked`` describes, once; else ``None``."""
        for record in self.decided:
            if record.id not in self._used and dict(record.elicitation) == dict(asked):
                self._used.add(record.id)
                return record
        return None


_SCOPE: ContextVar[ElicitationScope | None] = ContextVar("nucleo_elicitation_scope", default=None)


def current_elicitation_scope() -> ElicitationScope | None:
    """The scope of the turn whose call is running, or ``None`` outside a durable turn."""
    return _SCOPE.get()


@contextmanager
def elicitation_scope(scope: ElicitationScope | None) -> Iterator[None]:
    """Run the block (one turn's calls) under ``scope``; ``None`` leaves the outer one."""
    if scope is None:
        yield
        return
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)
