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
  did not keep its result) is refused rather than run twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord, ApprovalStore
    from nucleo_core.guard.approvals import ApprovalRequest
    from nucleo_core.models.messages import ToolResultBlock
    from nucleo_core.thinking.tool_call import ToolCall

__all__ = ["DurableApprovals", "PendingCall", "settled_refusal"]


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


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableApprovals:
    """How one turn's ``confirm`` calls meet durable approvals (see the module).

    Attributes:
        pausable: A ``confirm`` call nobody approves inline waits instead of being refused.
        answered: By tool-use id, the results the calls that ran before the pause got.
        decided: By tool-use id, the approvals of a resumed turn as read from the store.
        store: Where an approved call is claimed before it runs (required with ``decided``).
    """

    pausable: bool = False
    answered: Mapping[str, ToolResultBlock] = field(default_factory=dict)
    decided: Mapping[str, ApprovalRecord] = field(default_factory=dict)
    store: ApprovalStore | None = None


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
