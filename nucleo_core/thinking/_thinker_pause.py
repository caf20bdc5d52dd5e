"""How a thinker's durable run pauses on pending approvals, and how it resumes.

Mixed into `Thinker` (see `Thinker.run` and `Thinker.resume` for the contract): a turn whose
``confirm`` calls nobody approves inline keeps its paused turn in the conversation
(`nucleo_core.thinking._execution_pause`), files its approvals, and raises `RunPaused`; a
resume settles that turn from the decided approvals and answers every tool use at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from nucleo_core.errors import NotPaused, RunPaused
from nucleo_core.hub.call_door import call_door
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.models.messages import Message, ToolResultBlock
from nucleo_core.thinking._execution_durable import ElicitationScope, elicitation_scope
from nucleo_core.thinking._run_observer import run_observer
from nucleo_core.thinking.execution import (
    DurableApprovals,
    ExecutionPolicy,
    ExecutionReport,
    ToolExecution,
    ToolExecutor,
    reconcile_results,
)

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext, ConversationService
    from nucleo_core.guard.approval_store import ApprovalRecord, ApprovalStore
    from nucleo_core.guard.approvals import Approver
    from nucleo_core.thinking._execution_audit import CallAudit
    from nucleo_core.thinking.execution import ToolFailure
    from nucleo_core.thinking.tool_call import ToolCall

__all__: list[str] = []


class _Pausing(ThinkerBase):
    """A thinker's durable pauses and resumes (see the module); mixed into `Thinker`."""

    conversations: ConversationService
    execution: ExecutionPolicy
    approvals: ApprovalStore | None
    approval_expiry: float
    _executor: ToolExecutor
    _pausable: bool

    if TYPE_CHECKING:  # what the pause needs of the thinker it is mixed into

        def note_palette(self, conversation_id: str) -> None: ...

        def record_tool_failures(self, failures: Iterable[ToolFailure]) -> None: ...

    def approval_store(self) -> ApprovalStore:
        """Where this thinker's durable runs keep their pending approvals.

        `approvals` when set; else a `SQLiteApprovalStore` at `default_approvals_path` of the
        conversations' file (``approvals.sqlite3`` beside it, or ``$NUCLEO_APPROVALS``), or,
        for conversations kept in memory, a `MemoryApprovalStore` of this thinker's, or, for
        conversations in PostgreSQL, the same database (`approvals_beside`).
        """
        if self.approvals is None:
            from nucleo_core.guard.approval_store import approvals_beside

            # A PostgreSQL conversations' store keeps its approvals in the same database.
            self.approvals = approvals_beside(self.conversations.path)
        return self.approvals

    def _may_pause(self, context: ConversationContext) -> bool:
        """Whether a run over ``context`` may pause: when something can resume it (durable)."""
        return context.durable

    def _resuming_conversation(self, context: ConversationContext) -> str:
        """The conversation whose resume continues this run: ``context``'s (a root's)."""
        return context.id

    def _keep_pause(
        self, context: ConversationContext, approvals: tuple[ApprovalRecord, ...]
    ) -> None:
        """Make the pause visible once ``context`` keeps it: file every approval it waits for.

        A delegate files nothing (its root does, once the root's own turn is kept).
        """
        del context
        self.approval_store().add(approvals)

    def _pause(
        self, context: ConversationContext, execution: ToolExecution, report: ExecutionReport
    ) -> RunPaused:
        """Keep the paused turn, file its approvals, and say so (see `run`)."""
        from nucleo_core.hub._audit import requester_of
        from nucleo_core.thinking._execution_pause import pause_turn

        requester = requester_of(self)
        chain = [*requester.parents, f"{requester.thinker_class}#{requester.thinker_id}"]
        approvals = pause_turn(
            context,
            execution,
            report,
            thinker=requester.thinker_class,
            requested_by=" > ".join(chain),
            expiry=self.approval_expiry,
            conversation_id=self._resuming_conversation(context),
            grants=[provider.name for provider in self._granted],
            provider_of=self.registry.available,
        )
        self._audit_elicitations(execution, approvals)
        # Filed once the conversation keeps the turn: a visible approval always has its pause.
        self._keep_pause(context, approvals)
        return RunPaused(context.id, approvals)

    def _audit_elicitations(
        self, execution: ToolExecution, approvals: tuple[ApprovalRecord, ...]
    ) -> None:
        """Put each pending elicitation of the turn on the record, as an approval request."""
        elicited = {r.call_id: r for r in approvals if r.kind == "elicitation"}
        if not elicited:
            return
        audit = self._call_audit()
        if audit is None:
            return
        for call in execution.calls:
            record = elicited.get(call.id)
            provider = self.registry.available(call.name) if record is not None else None
            if record is not None and provider is not None:
                audit.approval_requested(call, provider, record.id, durable=True)

    async def _resume_turn(self, context: ConversationContext) -> None:
        """Settle the paused turn of ``context``: run what was approved, answer every use.

        The grants kept with the turn are asked for again first, through admission, so a
        tool granted before the pause runs after it only while the rules still admit it. A
        ``sub_thinker`` call whose sub-thinker paused continues that sub-thinker's run; if it
        pauses again, so does this turn (its results so far kept with it).
        """
        from nucleo_core.thinking._execution_pause import PAUSED_TURN, load_paused

        paused = load_paused(context)
        if paused is None:
            raise NotPaused(
                context.id, "it has no paused turn (it never paused, or it was resumed)"
            )
        if len(context.messages) > paused.turn + 1:
            # The results message went in before the pause record was cleared: finish that.
            context.set_metadata(PAUSED_TURN, None)
            return
        store = self.approval_store()
        every = paused.every_approval
        store.add(every)  # files again any approval the paused process did not
        current = {kept.id: store.get(kept.id) or kept for kept in every}
        waiting = [record for record in current.values() if record.status_at() == "pending"]
        if waiting:
            raise RunPaused(context.id, waiting)
        decided = {record.call_id: current[record.id] for record in paused.records}
        # A call paused by its server's elicitation: its approval is read as the call's own
        # (rejected refuses it; approved makes it again, once), and answers the server.
        delegations = dict(paused.delegations)
        answers: list[ApprovalRecord] = []
        for call_id, state in paused.delegations.items():
            if state.elicitation is not None:
                del delegations[call_id]
                for kept in state.approvals:
                    decided[call_id] = current[kept.id]
                    answers.append(current[kept.id])
        self.reconcile_tool_registry()
        if paused.grants:  # the same door as any request: rules, guardrails, hooks, the record
            await ThinkerBase.request_tools_async(self, paused.grants)
        self.note_palette(context.id)
        execution = self._turn_execution(
            paused.calls,
            context,
            approver=None,
            durable=DurableApprovals(
                pausable=self._pausable,
                answered=paused.answered,
                decided=decided,
                store=store,
                delegations=delegations,
            ),
        )
        ran = False
        scope = ElicitationScope(pausable=self._pausable, decided=tuple(answers))
        try:
            with elicitation_scope(scope):
                await execution.run()
            ran = True
        finally:  # however the resumed calls end, the paused answer is answered whole
            self.note_palette(context.id)
            report = execution.report()
            self.record_tool_failures(report.failures)
            if not (ran and report.pending):
                assistant = context.messages[paused.turn]
                results: tuple[ToolResultBlock, ...] = (
                    reconcile_results(assistant, report.results)
                    if assistant.tool_uses
                    else report.results
                )
                message = Message(role="user", content=results)
                context.append(context.artifacts.custody_results(message))
                context.set_metadata(PAUSED_TURN, None)
        if report.pending:  # a sub-thinker paused again: so does this turn, its results kept
            raise self._pause(context, execution, report)

    def _turn_execution(
        self,
        calls: Sequence[ToolCall],
        context: ConversationContext,
        *,
        approver: Approver | None,
        durable: DurableApprovals | None,
    ) -> ToolExecution:
        """A turn's calls ready to run: each checked by the call door, for this thinker."""
        return self._executor.prepare(
            calls,
            check=partial(call_door, self),
            parent=self,
            policy=self.execution,
            conversation=context,
            registry=self.registry,
            approver=approver,
            audit=self._call_audit(),
            durable=durable,
            observer=run_observer(self._hub),
        )

    def _call_audit(self) -> CallAudit | None:
        """This turn's writer of the call records, to the hub's audit log (it always has one)."""
        from nucleo_core.hub._audit import requester_of
        from nucleo_core.thinking._execution_audit import CallAudit

        return CallAudit(self._hub.audit, requester_of(self))
