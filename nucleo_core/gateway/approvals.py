"""A gateway call that needs an approval: asked through elicitation, or left pending.

A call the guard decides ``confirm`` is approved in one of two ways:

- **elicitation**, when the client declares it: the client's user is shown the tool, its risk
  (and whether it was declared), its source, why it needs an approval and the arguments, and
  answers. Accepting with ``approve`` checked runs the call; anything else refuses it with the
  reason. An elicitation nobody answers within the gateway's time limit leaves the approval
  pending, as below.
- **a durable approval** otherwise: the call does not run; it is filed in the approval store
  (`nucleo_core.guard.approval_store`), and the error result names its id. Once someone
  approves it (``nucleo approvals approve ID``), the same call retried by the same client (same
  tool, the very same arguments) runs once: the approval is claimed before it runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.guard.approvals import Approval, ApprovalRequest

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord, ApprovalStatus, ApprovalStore
    from nucleo_core.thinking.execution import PendingCall

__all__ = [
    "APPROVE_FIELD",
    "approval_form",
    "approval_schema",
    "elicited_approval",
    "file_pending",
    "matching_record",
    "matching_records",
    "pending_message",
]

#: The form's one field: checked, the call runs.
APPROVE_FIELD = "approve"


def approval_schema() -> dict[str, Any]:
    """The elicitation form's schema: one boolean, unchecked by default."""
    return {
        "type": "object",
        "properties": {
            APPROVE_FIELD: {
                "type": "boolean",
                "title": "Run this call",
                "description": "Check to let the call run; leave unchecked or decline to refuse.",
                "default": False,
            }
        },
        "required": [APPROVE_FIELD],
    }


def approval_form(request: ApprovalRequest, client: str) -> str:
    """The message the client's user reads: what would run, and why it needs an approval."""
    risk = request.risk if request.risk_declared else f"{request.risk} (undeclared)"
    try:
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        arguments = "(arguments that cannot be shown as JSON)"
    lines = [
        f"{client} asks to run a tool that needs your approval (nucleo gateway).",
        f"Tool: {request.tool}",
        f"Risk: {risk}",
        f"Source: {request.source}",
        f"Why: {request.reason or request.decided_by}",
        "Arguments:",
        arguments,
    ]
    return "\n".join(lines)


def elicited_approval(action: str, content: Mapping[str, Any] | None, client: str) -> Approval:
    """What an elicitation's answer decides: only an accepted, checked form approves."""
    if action == "accept" and content is not None and content.get(APPROVE_FIELD) is True:
        return Approval(True, f"approved by the user of {client}")
    if action == "cancel":
        return Approval(False, f"the user of {client} dismissed the approval")
    return Approval(False, f"the user of {client} declined it")


def matching_record(
    store: ApprovalStore,
    *,
    key: str,
    tool: str,
    arguments: Mapping[str, Any],
    status: ApprovalStatus,
) -> ApprovalRecord | None:
    """The oldest approval of this client (``key``) with ``status`` for exactly this call."""
    for record in store.list(status=status, conversation_id=key):
        if record.tool == tool and record.bound_to(dict(arguments)):
            return record
    return None


def matching_records(
    store: ApprovalStore, *, key: str, tool: str, arguments: Mapping[str, Any]
) -> dict[ApprovalStatus, ApprovalRecord]:
    """The oldest approval of this client (``key``) for exactly this call, of each status.

    One read of the store, where asking `matching_record` for two statuses reads it twice.
    """
    found: dict[ApprovalStatus, ApprovalRecord] = {}
    wanted = dict(arguments)
    for record in store.list(conversation_id=key):
        if record.tool != tool:
            continue
        status = record.status_at()
        if status not in found and record.bound_to(wanted):
            found[status] = record
    return found


def file_pending(
    store: ApprovalStore,
    pending: PendingCall,
    *,
    key: str,
    thinker: str,
    requested_by: str,
    expiry: float,
) -> ApprovalRecord:
    """File the approval a call waits for, and return its record.

    Raises:
        ValueError: The call waits for something other than its own approval (a delegation).
    """
    if pending.request is None:
        raise ValueError("a delegated run cannot wait for its approvals through the gateway")
    record = pending.approval_record(
        thinker=thinker, conversation_id=key, requested_by=requested_by, expiry=expiry
    )
    store.add([record])
    return record


def pending_message(tool: str, approval_id: str) -> str:
    """The error result of a call left waiting for an approval (no argument is repeated)."""
    return (
        f"Calling '{tool}' needs an approval, which is pending as {approval_id}. A person "
        f"approves it with `nucleo approvals approve {approval_id}` (or rejects it); then call "
        f"'{tool}' again with the same arguments and it runs once."
    )
