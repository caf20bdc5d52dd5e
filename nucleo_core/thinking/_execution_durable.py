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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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
    "PendingCall",
    "PendingDelegation",
    "ResumesDelegation",
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
    """

    conversation_id: str
    read_only: bool
    approvals: tuple[ApprovalRecord, ...]

    def to_json(self) -> dict[str, Any]:
        """The state as a JSON object (the approvals as pending, as they were filed)."""
        return {
            "conversation": self.conversation_id,
            "read_only": self.read_only,
            "approvals": [record.to_json() | {"status": "pending"} for record in self.approvals],
        }

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
        return cls(conversation, read_only, records)


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
