"""Two-phase parallel tool execution, keeping the tool_use/tool_result pairing invariant.

A turn's tool calls run in two phases. Phase 1 takes the calls in order and submits each: it is
checked by the call door (available now, the read-only binding, the input parsed against what
will run; `nucleo_core.hub.call_door`) and,
when it passes, its tool is created and started as a task; a call that must run alone (a
`ConversationAware` or `RegistryAware` tool, or a meta-tool that changes the palette) finishes
before the next call is submitted, so the next call's check sees the palette it left. Phase 2
awaits every call still running. A concurrency cap and per-tool timeouts bound the turn
(`ExecutionPolicy`).

Results always pair: a turn with N tool uses (N distinct ids) produces N result blocks, in the
calls' order, however the tools fail, time out or are cancelled. A refused call, a tool that
raises, one that times out: each becomes an error result the model reads, never an exception.
The model reads a `CorrectableError`'s message (written for it); of any other exception it reads
only the exception's type, because the message may quote its own input or a secret; the
exception itself is kept in the report for the developer (`ExecutionReport.failures`), and
logged with its traceback to the ``nucleo.tools`` logger: at ``ERROR`` for an internal error, at
``WARNING`` for a timeout or a `CorrectableError` the tool raised for the model.

Cancellation follows asyncio's etiquette: `ToolExecution.run` stops every call still running,
waits for them, and re-raises `asyncio.CancelledError`. The report stays available, complete,
through `ToolExecution.report`, so a thinker answers the turn in a ``finally``::

    execution = executor.prepare(calls, check=partial(call_door, thinker), parent=thinker)
    try:
        await execution.run()
    finally:
        conversation.append(execution.report().results_message())

`reconcile_results` covers what execution cannot: a conversation resumed after a crash, where a
results turn is missing some answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Required, TypedDict, Unpack, final

from nucleo_core.thinking._execution_durable import DurableApprovals, PendingCall
from nucleo_core.thinking._execution_policy import ExecutionPolicy
from nucleo_core.thinking._execution_reconcile import NO_RESULT, reconcile_results
from nucleo_core.thinking._execution_render import render_output
from nucleo_core.thinking._execution_report import (
    CallOutcome,
    CallStatus,
    EventKind,
    ExecutionEvent,
    ExecutionReport,
    ToolFailure,
)
from nucleo_core.thinking._execution_run import ToolExecution
from nucleo_core.thinking._execution_turn import (
    CallCheck,
    EventObserver,
    OutputRenderer,
)
from nucleo_core.tools.awareness import ConversationAware, RegistryAware, runs_alone

if TYPE_CHECKING:
    from nucleo_core.guard.approvals import Approver
    from nucleo_core.telemetry.observer import RunObserver
    from nucleo_core.thinking._execution_audit import CallAudit
    from nucleo_core.thinking.tool_call import ToolCall

__all__ = [
    "NO_RESULT",
    "CallCheck",
    "CallOutcome",
    "CallStatus",
    "ConversationAware",
    "DurableApprovals",
    "EventKind",
    "EventObserver",
    "ExecutionEvent",
    "ExecutionPolicy",
    "ExecutionReport",
    "OutputRenderer",
    "PendingCall",
    "RegistryAware",
    "ToolExecution",
    "ToolExecutor",
    "ToolFailure",
    "reconcile_results",
    "render_output",
    "runs_alone",
]


class _TurnOptions(TypedDict, total=False):
    """The keyword arguments of `ToolExecution` that `ToolExecutor.execute` passes on."""

    check: Required[CallCheck]
    parent: Required[object]
    policy: ExecutionPolicy
    render: OutputRenderer | None
    on_event: EventObserver | None
    conversation: object | None
    registry: object | None
    approver: Approver | None
    audit: CallAudit | None


class _PreparedTurnOptions(_TurnOptions, total=False):
    """The keyword arguments of `ToolExecution` that `ToolExecutor.prepare` passes on: all."""

    durable: DurableApprovals | None
    observer: RunObserver | None


@final
class ToolExecutor:
    """Runs turns of tool calls in two phases; one per thinker, stateless between turns.

    Args:
        render: The default of every turn's ``render`` (`render_output` when ``None``).
        on_event: The default of every turn's ``on_event``.
    """

    def __init__(
        self, *, render: OutputRenderer | None = None, on_event: EventObserver | None = None
    ) -> None:
        self.render = render
        self.on_event = on_event

    def prepare(
        self, calls: Sequence[ToolCall], **options: Unpack[_PreparedTurnOptions]
    ) -> ToolExecution:
        """One turn's `ToolExecution`, not yet running (the arguments are `ToolExecution`'s).

        Use it, rather than `execute`, to answer the turn even when it is cancelled: run it
        and read its `ToolExecution.report` in a ``finally``.
        """
        options["render"] = options.get("render") or self.render
        options["on_event"] = options.get("on_event") or self.on_event
        return ToolExecution(calls, **options)

    async def execute(
        self, calls: Sequence[ToolCall], **options: Unpack[_TurnOptions]
    ) -> ExecutionReport:
        """Run one turn's calls and return the report.

        The arguments are `ToolExecution`'s, but for ``durable`` and ``observer`` (`prepare`
        takes those).

        Raises:
            asyncio.CancelledError: The turn was cancelled; its calls were stopped first. The
                report is not returned then: use `prepare` where the turn must be answered
                even so.
        """
        return await self.prepare(calls, **options).run()
