"""`CallAudit`: one turn's calls on the audit record (`nucleo_core.guard.audit`).

Each call gets, in order: its ``permission`` decision (a ``confirm``; an ``auto`` or
``notify`` rides on the ``call_start``), its approval request and decision (for a
``confirm``), its ``call_start`` just before the tool runs, and its ``call_finish`` with the
outcome and the duration. A call refused before it ran gets only its
``call_finish`` (``refused``). A ``call_start`` under ``notify`` or ``confirm`` is committed
before the tool runs, so a crash cannot hide that the call began; other records are batched.

The start and finish of a call (the records every call makes) are written without an
`AuditEvent`: from parts kept per tool (`CallAudit._fast_tail`) and, for an ``auto`` call,
when their batch is stored (`AuditLog._record_deferred`), in one loop rather than between
calls; its finish joins its start in the queue (`AuditLog._follow`) when nothing was
recorded between them, so that the two take one entry. A test holds them equal to what an
event of the same fields writes.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.guard.audit.canonical import canonical_json as _canonical_json
from nucleo_core.plugins.decision import Decision
from nucleo_core.thinking._call_records import CallRecords, Finish, start_tail, tool_tails
from nucleo_core.thinking._execution_report import CallOutcome, CallStatus

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.guard.approvals import Approval
    from nucleo_core.guard.audit.events import AuditEvent, Requester
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["CallAudit"]

logger = logging.getLogger("nucleo.guard")

#: The decisions whose ``call_start`` is committed before the tool runs.
_DURABLE_START = frozenset({"notify", "confirm"})
# The longest duration (seconds) whose text `seconds_text` writes; a longer one is an event's.
_LONGEST = 1e6


class CallAudit:
    """Writes one turn's calls to ``log``, as asked by ``requester``.

    Args:
        log: The audit log.
        requester: Who asked (the thinker, its conversation, its parents).
    """

    __slots__ = ("_digests", "_keep_arguments", "_last", "_log", "_requester", "_said_by")

    def __init__(self, log: AuditLog, requester: Requester) -> None:
        self._log = log
        self._requester = requester
        # Each call's arguments are digested once, for all of its records.
        self._digests: dict[str, tuple[object, str]] = {}
        self._keep_arguments = log._record_arguments
        self._said_by = ',"requester":' + requester._json
        # The last call started with its records deferred: its finish may join them.
        self._last: CallRecords | None = None

    def permission(
        self, call: ToolCall, provider: ToolProvider, decided: PermissionDecision
    ) -> None:
        """The guard's decision about ``call``.

        An ``auto`` or ``notify`` decision is carried by the call's ``call_start`` (its
        decision and rule), so it is not written twice; a ``confirm`` is written here, before
        its approval is asked.
        """
        decision = decided.decision
        if decision is Decision.AUTO or decision is Decision.NOTIFY:
            return
        self._record(
            self._event(
                "permission",
                call,
                provider,
                decision=decided.decision.value,
                rule=decided.decided_by,
                reason=decided.reason if decided.denied else None,
            )
        )

    def denied(self, call: ToolCall, provider: ToolProvider | None, rule: str, reason: str) -> None:
        """The guard denied ``call`` (its ``call_finish`` follows, as ``refused``)."""
        self._record(
            self._event("permission", call, provider, decision="deny", rule=rule, reason=reason)
        )

    def approval_requested(
        self,
        call: ToolCall,
        provider: ToolProvider,
        approval_id: str | None = None,
        *,
        durable: bool = False,
    ) -> str:
        """An approval was asked for ``call``; its id ties the request to the decision.

        ``durable``: the approval may outlive the process (the run may pause), so the request
        is committed before the approval is filed; a failing log is reported, not raised.
        """
        approval_id = approval_id or uuid.uuid4().hex
        event = self._event("approval_request", call, provider, approval_id=approval_id)
        if durable:
            try:
                self._log.record(event, durable=True)
            except Exception:
                logger.exception("the audit log could not take an approval_request record")
        else:
            self._record(event)
        return approval_id

    def approval_resolved(
        self,
        call: ToolCall,
        record: ApprovalRecord,
        *,
        outcome: str | None = None,
        reason: str | None = None,
    ) -> None:
        """A durable approval's decision, as a resumed run reads it from the store.

        ``outcome`` defaults to the record's (``approved``, ``rejected``, ``expired``); the
        decider is named in ``rule`` (``approval:<who>``).
        """
        status = record.status_at()
        said = outcome or ("approved" if status in ("approved", "consumed") else status)
        if said not in ("approved", "rejected", "expired"):
            return  # still pending: nothing was decided
        self._record(
            self._record_event(
                "approval_decision",
                call,
                record,
                approval_id=record.id,
                outcome=said,
                rule=f"approval:{record.decided_by}" if record.decided_by else "approval",
                reason=reason or record.reason or None,
            )
        )

    def settled(self, outcome: CallOutcome, record: ApprovalRecord) -> None:
        """A resumed call its approval refused (rejected, expired, consumed before)."""
        self._record(
            self._record_event(
                "call_finish",
                outcome.call,
                record,
                decision="confirm",
                outcome="refused",
                reason=outcome.result.content,
                duration=0.0,
            )
        )

    def approval_decided(
        self, call: ToolCall, provider: ToolProvider, approval_id: str, approval: Approval
    ) -> None:
        """The approver's answer about ``call``."""
        self._record(
            self._event(
                "approval_decision",
                call,
                provider,
                approval_id=approval_id,
                outcome="approved" if approval.approved else "rejected",
                reason=approval.reason or None,
            )
        )

    def started(
        self, call: ToolCall, provider: ToolProvider, decided: PermissionDecision | None
    ) -> None:
        """``call`` is about to run.

        Raises:
            AuditStoreError: A start that must be committed first could not be: the call must
                not run.
        """
        decision: str | None = None
        rule: str | None = None
        if decided is not None:
            rule = decided.decided_by
            if decided.decision is Decision.AUTO and not self._keep_arguments:
                # The common case: written with its batch (see `CallRecords`).
                start = (decided.decision, rule)
                records = self._last = CallRecords(self, call, provider, start)
                try:
                    self._log._enqueue(records, False)
                except Exception:
                    logger.exception("the audit log could not take a call_start record")
                return
            decision = decided.decision.value
        if decision in _DURABLE_START:
            head = self._fast_head(call)
            if head is not None:
                tail = start_tail(self, call, provider, decision, rule)
                self._log._record_content(head, tail, durable=True)
            else:
                event = self._event("call_start", call, provider, decision=decision, rule=rule)
                self._log.record(event, durable=True)
        elif self._keep_arguments:
            self._record(self._event("call_start", call, provider, decision=decision, rule=rule))
        else:  # no guard decided: written with its batch too
            self._defer(CallRecords(self, call, provider, (decision, rule)), "call_start")

    def finished(
        self,
        outcome: CallOutcome,
        provider: ToolProvider | None,
        decided: PermissionDecision | None,
        *,
        internal: bool = False,
    ) -> None:
        """How ``outcome.call`` ended; ``internal``: it failed before its tool ran."""
        error = outcome.error
        call = outcome.call
        decision = decided.decision if decided is not None else None
        if outcome.status is CallStatus.OK:
            said = "tool_error" if outcome.result.is_error else "ok"
            reason = None
        else:
            said = _outcome(outcome, internal=internal)
            reason = outcome.result.content
        duration: Any = outcome.duration
        if type(duration) is float and 0.0 <= duration < _LONGEST:
            # Recorded to the nanosecond: its text is then written from the whole number
            # (`seconds_text`), which costs less than a float's shortest repr.
            nanoseconds = int(duration * 1e9 + 0.5)
            duration = nanoseconds / 1e9
            if (
                error is None
                and provider is not None
                and not self._keep_arguments
                and (reason is None or type(reason) is str)
            ):
                then = (time.time_ns(), decision, said, reason, nanoseconds)
                self._finish_later(call, provider, then)
                return
        from nucleo_core.guard.audit.events import DeveloperDetails

        self._record(
            self._event(
                "call_finish",
                call,
                provider,
                decision=decision.value if decision is not None else None,
                outcome=said,
                reason=reason,
                duration=duration,
                developer=DeveloperDetails.from_exception(error) if error is not None else None,
            )
        )

    def _finish_later(self, call: ToolCall, provider: ToolProvider, then: Finish) -> None:
        """Queue ``call``'s finish, written with its batch (see `CallRecords`).

        It joins the call's start when nothing was queued after that (`AuditLog._follow`).
        """
        last = self._last
        if last is not None and last.call is call:
            self._last = None
            if self._log._follow(last, then):
                return
        records = CallRecords(self, call, provider, None)
        records.then = then
        self._defer(records, "call_finish")

    # -- building and writing -------------------------------------------------------------------

    def _record_event(
        self, kind: Any, call: ToolCall, record: ApprovalRecord, **fields: Any
    ) -> AuditEvent:
        """An event about ``call`` named from its approval (the call may not resolve now)."""
        from nucleo_core.guard.audit.events import AuditEvent

        return AuditEvent(
            kind=kind,
            requester=self._requester,
            tool=record.tool,
            source=record.source,
            risk=record.risk if record.risk_declared else None,
            call_id=call.id,
            arguments=dict(record.arguments),
            **fields,
        )

    def _fast_head(self, call: ToolCall) -> str | None:
        """A call record's content up to its time, or ``None`` where an event must write it.

        The arguments' digest, or nothing for arguments that are not an object (the text a
        model sent, which the record leaves out as an event does); an event writes the rest:
        arguments kept in full, or with no canonical form (the log reports that).
        """
        arguments = call.raw_input
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            return '{"at":"'
        digest = self._digest(call)
        if digest is None or self._keep_arguments:
            return None
        return f'{{"arguments_digest":"{digest}","at":"'

    def _digest(self, call: ToolCall) -> str | None:
        """The digest of ``call``'s arguments, once per call; ``None`` with no canonical form."""
        arguments = call.raw_input
        kept = self._digests.get(call.id)
        # Kept with the arguments it digests: two calls sharing an id never share a digest.
        if kept is not None and kept[0] is arguments:
            return kept[1]
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            return None
        try:
            digest: str = _sha256(_canonical_json(arguments).encode()).hexdigest()
        except Exception:  # no canonical form: the log says so when it records
            return None
        self._digests[call.id] = (arguments, digest)
        return digest

    def _fast_tail(self, provider: ToolProvider, rule: str | None) -> str:
        """A call record's content from ``requester`` on.

        The keys after ``kind`` in canonical order: ``requester`` (written once per run, with
        the `Requester`), then ``risk``, ``rule``, ``source`` and ``tool``, the same for every
        call of a tool under a rule, written once and kept across runs; a test holds the
        records so written equal to `content_parts`'.
        """
        return self._said_by + tool_tails(provider, rule)[0]

    def _event(
        self, kind: Any, call: ToolCall, provider: ToolProvider | None, **fields: Any
    ) -> AuditEvent:
        from nucleo_core.guard.audit.events import AuditEvent

        arguments = call.raw_input if isinstance(call.raw_input, Mapping) else None
        digest = self._digest(call) if arguments is not None else None
        return AuditEvent(
            kind=kind,
            requester=self._requester,
            tool=provider.name if provider is not None else None,
            source=provider.source if provider is not None else None,
            risk=provider.risk.value if provider is not None and provider.risk_declared else None,
            call_id=call.id,
            # The full arguments only where the log keeps them: the digest stands for them.
            arguments=arguments if digest is None or self._keep_arguments else None,
            arguments_digest=digest,
            **fields,
        )

    def _defer(self, records: CallRecords, kind: str) -> None:
        """Queue ``records``, written with their batch; a failing log is reported."""
        if records.start is not None:
            self._last = records
        try:
            self._log._record_deferred(records)
        except Exception:
            logger.exception("the audit log could not take a %s record", kind)

    def _record(self, event: AuditEvent) -> None:
        """Record ``event``; a failing log is reported, never a reason to fail the turn."""
        try:
            self._log.record(event)
        except Exception:
            logger.exception("the audit log could not take a %s record", event.kind)


def _first_sha256(data: bytes) -> Any:
    """`hashlib.sha256`, imported on the first digest, not with the module."""
    global _sha256
    import hashlib

    _sha256 = hashlib.sha256
    return hashlib.sha256(data)


_sha256: Callable[[bytes], Any] = _first_sha256


def _outcome(outcome: CallOutcome, *, internal: bool) -> str:
    status = outcome.status
    if status is CallStatus.OK:
        return "tool_error" if outcome.result.is_error else "ok"
    if status in (CallStatus.REFUSED, CallStatus.INVALID):
        return "refused"
    if status is CallStatus.TIMEOUT:
        return "timeout"
    if status is CallStatus.CANCELLED:
        return "cancelled"
    # A tool that raised is a tool error; what failed before it ran (a check, its creation)
    # is an internal error.
    return "internal_error" if internal else "tool_error"
