"""What one turn's execution holds, and how it records each call's outcome.

`_Turn` declares the state a `ToolExecution` keeps (its settings, what each call was cleared to
run, the outcomes so far) and records outcomes: on the audit record, on the call's trace, in
the log for a failure, and to the event observer. The phases are written in the modules that
build on it (`_execution_submit`, `_execution_call`, `_execution_approval`, `_execution_run`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, final

from nucleo_core.thinking._execution_outcome import (
    _cancelled,
    _error,
    _error_block,
    _failure,
    _log_failure,
)
from nucleo_core.thinking._execution_policy import ExecutionPolicy
from nucleo_core.thinking._execution_render import render_output
from nucleo_core.thinking._execution_report import (
    FAILURE_STATUSES,
    CallOutcome,
    CallStatus,
    EventKind,
    ExecutionEvent,
    ExecutionReport,
)

if TYPE_CHECKING:
    import asyncio

    from nucleo_core.guard.approvals import Approver
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.hub.call_door import ClearedCall
    from nucleo_core.telemetry.observer import CallTrace, RunObserver
    from nucleo_core.thinking._execution_audit import CallAudit
    from nucleo_core.thinking._execution_durable import (
        DurableApprovals,
        PendingCall,
        PendingDelegation,
    )
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.provider import ToolProvider
    from nucleo_core.tools.tool import Tool

__all__ = ["CallCheck", "EventObserver", "OutputRenderer"]

logger = logging.getLogger("nucleo.thinking")

#: The per-call check, the call door (`nucleo_core.hub.call_door.call_door` for a thinker):
#: the provider a call may run and its parsed input, or a `CorrectableError` saying why not.
CallCheck: TypeAlias = "Callable[[ToolCall], ClearedCall]"
#: Turns a call's output into the text of its result block.
OutputRenderer: TypeAlias = "Callable[[ToolCall, Any], str]"
#: Receives every `ExecutionEvent`; one that raises is logged and ignored.
EventObserver: TypeAlias = Callable[[ExecutionEvent], None]

_DEFAULT_POLICY = ExecutionPolicy()


def _render_default(call: ToolCall, output: Any) -> str:
    return render_output(output)


@final
class _Ready:
    """A call that passed its checks at submission: the tool to run and its input.

    A plain slotted class, built once per call (a frozen dataclass would set each field
    through ``object.__setattr__``); nothing changes it after it is built.
    """

    __slots__ = ("alone", "input", "permission", "provider", "tool")

    def __init__(
        self,
        provider: ToolProvider,
        tool: Tool[Any, Any],
        input: Any,
        alone: bool,
        permission: PermissionDecision | None = None,
    ) -> None:
        self.provider = provider
        self.tool = tool
        self.input = input
        self.alone = alone
        self.permission = permission


class _Turn:
    """The state of one turn's execution, and the recording of its calls' outcomes."""

    _calls: tuple[ToolCall, ...]
    _check: CallCheck
    _parent: object
    _policy: ExecutionPolicy
    _render: OutputRenderer
    _on_event: EventObserver | None
    _conversation: object | None
    _registry: object | None
    _approver: Approver | None
    _audit: CallAudit | None
    _durable: DurableApprovals | None
    _observer: RunObserver | None
    _traces: dict[int, CallTrace]
    _pending: dict[int, PendingCall]
    _delegated: dict[int, PendingDelegation]
    #: What each call was cleared to run, and under which decision (for the record).
    _cleared: dict[int, _Ready]
    _internal: set[int]
    _outcomes: list[CallOutcome | None]
    _started: dict[int, float]
    _state: Literal["ready", "running", "ended"]
    _report: ExecutionReport | None

    def _collect(self, index: int, task: asyncio.Task[CallOutcome]) -> None:
        """Record a finished task's outcome, once."""
        if self._outcomes[index] is not None:
            return
        call = self._calls[index]
        if task.cancelled():
            outcome = self._cancelled_outcome(index, call)
        elif (exc := task.exception()) is not None:  # only a BaseException gets this far
            outcome = self._failed_outcome(index, call, exc)
        else:
            outcome = task.result()
        self._finish(index, outcome)

    def _duration(self, index: int) -> float:
        started = self._started.get(index)
        return 0.0 if started is None else time.monotonic() - started

    def _cancelled_outcome(self, index: int, call: ToolCall) -> CallOutcome:
        return CallOutcome(
            call=call,
            status=CallStatus.CANCELLED,
            result=_error_block(call, _cancelled(call.name)),
            duration=self._duration(index),
        )

    def _failed_outcome(self, index: int, call: ToolCall, exc: BaseException) -> CallOutcome:
        message = _failure(f"Tool '{call.name}' failed", exc)
        return _error(call, CallStatus.FAILED, message, exc, self._duration(index))

    def _finish(self, index: int, outcome: CallOutcome) -> None:
        self._outcomes[index] = outcome
        # A waiting call has not finished: its call_finish is written when it is resumed.
        if self._audit is not None and outcome.status is not CallStatus.PENDING:
            ready = self._cleared.get(index)
            self._audit.finished(
                outcome,
                ready.provider if ready is not None else outcome.call.provider,
                ready.permission if ready is not None else None,
                internal=index in self._internal,
            )
        if self._traces and (trace := self._traces.pop(index, None)) is not None:
            cleared = self._cleared.get(index)
            provider = cleared.provider if cleared is not None else outcome.call.provider
            trace.finished(outcome, provider, cleared.permission if cleared else None)
        if outcome.status in FAILURE_STATUSES:
            _log_failure(outcome)
        if self._on_event is not None:
            self._emit("finished", outcome.call, outcome)

    def _emit(self, kind: EventKind, call: ToolCall, outcome: CallOutcome | None = None) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(ExecutionEvent(kind=kind, call=call, outcome=outcome))
        except Exception:
            logger.exception("an execution event observer raised; the event was dropped")
