"""The approval a ``confirm`` call needs before it runs: asked inline, or stored and claimed.

A call the permission guard decided ``confirm`` runs only once approved: by the turn's
approver (`nucleo_core.guard.approvals`), or, in a resumed durable turn, by the approval a
person decided in the store, claimed so that the call runs once. With no approver, or one that
defers, it waits (`CallStatus.PENDING`) in a turn that may pause, and is refused otherwise.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nucleo_core.errors import PermissionDenied
from nucleo_core.guard.approvals import Approval
from nucleo_core.thinking._execution_durable import PendingCall, settled_refusal
from nucleo_core.thinking._execution_outcome import _error, _not_run
from nucleo_core.thinking._execution_report import CallOutcome, CallStatus
from nucleo_core.thinking._execution_turn import _Ready, _Turn

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.thinking.tool_call import ToolCall

__all__: list[str] = []


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _Approvals(_Turn):
    """The approval step of running a ``confirm`` call (see the module)."""

    def _approved(
        self, call: ToolCall, ready: _Ready, record: ApprovalRecord
    ) -> CallOutcome | None:
        """A resumed call's stored approval: ``None`` when it was claimed and may run now.

        The approval authorises only the arguments it was shown (their digest); it is claimed
        (approved → consumed) before the call runs, so the call runs once however many times
        the run is resumed.
        """
        name = ready.provider.name
        audit = self._audit
        if not record.bound_to(call.raw_input if isinstance(call.raw_input, Mapping) else {}):
            reason = (
                f"Calling '{name}' was not approved: the approval given was for other "
                "arguments. Choose another tool, or go on without it."
            )
            if audit is not None:
                audit.approval_resolved(call, record, outcome="rejected", reason=reason)
            denied = PermissionDenied(name, reason, decided_by="approval")
            return _error(call, CallStatus.REFUSED, reason, denied)
        store = self._durable.store if self._durable is not None else None
        if store is None or not store.claim(record.id):
            refusal = settled_refusal(replace(record, status="consumed"))
            assert refusal is not None
            denied = PermissionDenied(name, refusal, decided_by="approval")
            return _error(call, CallStatus.REFUSED, refusal, denied)
        if audit is not None:
            audit.approval_resolved(call, record)
        return None

    async def _approval(self, index: int, call: ToolCall, ready: _Ready) -> CallOutcome | None:
        """Ask the approver about a ``confirm``-level call: ``None`` when it may run.

        With no approver, or one that defers, the call waits for a durable approval when the
        turn may pause (a `CallStatus.PENDING` outcome), and is refused otherwise.
        """
        from nucleo_core.guard.approvals import ApprovalRequest, ask_approver

        provider, permission = ready.provider, ready.permission
        assert permission is not None
        name = provider.name
        approver = self._approver
        pausable = self._durable is not None and self._durable.pausable
        if approver is None and not pausable:
            reason = (
                f"Calling '{name}' needs an approval and no approver is set here; choose "
                "another tool, or do the task without it."
            )
            return _error(call, CallStatus.REFUSED, reason, PermissionDenied(name, reason))
        request = ApprovalRequest(
            tool=name,
            source=provider.source,
            risk=provider.risk.value if provider.risk_declared else "high",
            risk_declared=provider.risk_declared,
            arguments=call.raw_input if isinstance(call.raw_input, Mapping) else {},
            thinker=_qualified(type(self._parent)),
            conversation_id=getattr(self._conversation, "id", None),
            decided_by=permission.decided_by,
            reason=permission.reason,
            call_id=call.id,
        )
        audit = self._audit
        approval_id = uuid.uuid4().hex
        if audit is not None:
            audit.approval_requested(call, provider, approval_id, durable=pausable)
        trace = self._traces.get(index) if self._traces else None
        if trace is not None:
            trace.approval_requested(approval_id, durable=pausable)
        approval = await ask_approver(approver, request) if approver is not None else None
        if trace is not None:
            trace.approval_decided(approval_id, approval)
        if approval is None or approval.deferred:
            if pausable:
                self._pending[index] = PendingCall(index, call, request, approval_id)
                return CallOutcome(
                    call=call, status=CallStatus.PENDING, result=_not_run(call).result
                )
            reason = (
                f"Calling '{name}' needs an approval that could not be given here (it was "
                "deferred); choose another tool, or do the task without it."
            )
            if audit is not None:
                audit.approval_decided(call, provider, approval_id, Approval(False, reason))
            return _error(call, CallStatus.REFUSED, reason, PermissionDenied(name, reason))
        if audit is not None:
            audit.approval_decided(call, provider, approval_id, approval)
        if approval.approved:
            return None
        said = f": {approval.reason}" if approval.reason else ""
        reason = (
            f"Calling '{name}' was not approved{said}. Choose another tool, or go on without it."
        )
        denied = PermissionDenied(name, reason, decided_by="approval")
        return _error(call, CallStatus.REFUSED, reason, denied)
