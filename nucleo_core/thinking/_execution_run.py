"""`ToolExecution`: one turn's calls, submitted in order (phase 1) and awaited (phase 2).

See `nucleo_core.thinking.execution` for the whole story; this module schedules: which call
runs in the turn's own task and which in a task of its own, when the queued ones start, and
how a cancelled turn stops them all and still reports every call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, final

from nucleo_core.thinking._execution_call import _CallRun
from nucleo_core.thinking._execution_outcome import _duplicate, _not_run
from nucleo_core.thinking._execution_policy import ExecutionPolicy
from nucleo_core.thinking._execution_report import CallOutcome, ExecutionReport
from nucleo_core.thinking._execution_stepping import _aio, _Cap
from nucleo_core.thinking._execution_submit import _Submission
from nucleo_core.thinking._execution_turn import (
    _DEFAULT_POLICY,
    CallCheck,
    EventObserver,
    OutputRenderer,
    _Ready,
    _render_default,
)

if TYPE_CHECKING:
    import asyncio

    from nucleo_core.guard.approvals import Approver
    from nucleo_core.telemetry.observer import CallTrace, RunObserver
    from nucleo_core.thinking._execution_audit import CallAudit
    from nucleo_core.thinking._execution_durable import (
        DurableApprovals,
        PendingCall,
        PendingDelegation,
    )
    from nucleo_core.thinking.tool_call import ToolCall

__all__ = ["ToolExecution"]


@final
class ToolExecution(_Submission, _CallRun):
    """One turn's tool calls, run in two phases; its report is complete however the run ends.

    Build one per turn and `run` it once. Read `report` after `run` returned or raised: a call
    the run did not finish (the turn was cancelled) reads as cancelled there, so the report
    pairs with the calls even then.

    Args:
        calls: The turn's tool calls, in the order of the assistant's tool uses.
        check: The call door, run at each call's submission (``partial(call_door, thinker)``):
            it returns the provider to run and the parsed input (a `ClearedCall`), or raises
            `UnknownTool`, `ReadOnlyViolation`, `InvalidToolInput` or another
            `CorrectableError`, which becomes the call's error result.
        parent: What tools are created for (``provider.create(parent)``): the thinker.
        policy: Timeouts and the concurrency cap.
        render: Turns a call's output into its result text; `render_output` by default.
        on_event: Observes each call being submitted, started and finished.
        conversation: Given to `ConversationAware` tools (``bind_conversation``) when set.
        registry: Given to `RegistryAware` tools (``bind_registry``) when set.
        approver: Approves or rejects the calls the permission guard decided ``confirm``
            (`nucleo_core.guard.approvals`); with none, such a call is refused.
        audit: Writes every call's decision, approval, start and finish to the audit record.
        durable: Durable approvals: a ``confirm`` call nobody approves inline waits
            (`CallStatus.PENDING`, see `pending_calls`) instead of being refused, and a
            resumed turn's calls are settled by their stored approvals
            (`nucleo_core.thinking._execution_durable`).
        observer: Told of each call, its approval and its end (tracing); each call's tool
            runs in the context its trace gives (`CallTrace.context`).
    """

    def __init__(
        self,
        calls: Sequence[ToolCall],
        *,
        check: CallCheck,
        parent: object,
        policy: ExecutionPolicy = _DEFAULT_POLICY,
        render: OutputRenderer | None = None,
        on_event: EventObserver | None = None,
        conversation: object | None = None,
        registry: object | None = None,
        approver: Approver | None = None,
        audit: CallAudit | None = None,
        durable: DurableApprovals | None = None,
        observer: RunObserver | None = None,
    ) -> None:
        self._calls = tuple(calls)
        self._check = check
        self._parent = parent
        self._policy = policy
        self._render: OutputRenderer = render or _render_default
        self._on_event = on_event
        self._conversation = conversation
        self._registry = registry
        self._approver = approver
        self._audit = audit
        self._durable = durable
        self._observer = observer
        self._traces: dict[int, CallTrace] = {}
        self._pending: dict[int, PendingCall] = {}
        self._delegated: dict[int, PendingDelegation] = {}
        # What each call was cleared to run, and under which decision (for the record).
        self._cleared: dict[int, _Ready] = {}
        self._internal: set[int] = set()
        self._outcomes: list[CallOutcome | None] = [None] * len(self._calls)
        self._started: dict[int, float] = {}
        self._state: Literal["ready", "running", "ended"] = "ready"
        self._report: ExecutionReport | None = None

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The turn's calls, in order."""
        return self._calls

    @property
    def policy(self) -> ExecutionPolicy:
        """The policy the calls run under."""
        return self._policy

    def pending_calls(self) -> tuple[PendingCall, ...]:
        """The calls waiting for a durable approval, in the calls' order (after `run`)."""
        return tuple(self._pending[index] for index in sorted(self._pending))

    def pending_delegations(self) -> tuple[PendingDelegation, ...]:
        """The ``sub_thinker`` calls whose sub-thinker paused, in the calls' order (after `run`)."""
        return tuple(self._delegated[index] for index in sorted(self._delegated))

    async def run(self) -> ExecutionReport:
        """Run the calls: submit each in order (phase 1), then await them all (phase 2).

        Returns:
            The report: one outcome per call, one result per distinct tool-use id.

        Raises:
            asyncio.CancelledError: The run was cancelled; every call still running was
                cancelled and awaited first, and `report` is complete.
            RuntimeError: The execution was run before.
        """
        if self._state != "ready":
            raise RuntimeError("a ToolExecution runs once; build one per turn")
        self._state = "running"
        if len(self._calls) == 1 and self._durable is None and self._observer is None:
            return await self._run_lone(self._calls[0])
        # The concurrency cap, made with the first call that runs as a task of its own: a call
        # run in the turn's own task runs with nothing beside it, under any cap; a turn of no
        # more calls than the cap never reaches it.
        semaphore = _Cap(self._policy.max_concurrency, len(self._calls))
        tasks: dict[int, asyncio.Task[CallOutcome]] = {}
        # Calls cleared but not yet started. Nothing awaits between two submissions except a
        # call that runs alone, so starting them there (or at the end) changes no order: every
        # check still runs before any earlier call's tool gets the loop, as with tasks made at
        # once.
        queued: list[tuple[int, ToolCall, _Ready]] = []
        submitted: set[str] = set()
        try:
            for index, call in enumerate(self._calls):
                if self._on_event is not None:
                    self._emit("submitted", call)
                if call.id in submitted:
                    self._finish(index, _duplicate(call))
                    continue
                submitted.add(call.id)
                if self._durable is not None and self._settle(index, call):
                    continue
                if self._observer is not None:
                    self._traces[index] = self._observer.tool_call(call, self._parent)
                ready = self._prepare(call, index)
                if isinstance(ready, CallOutcome):
                    self._finish(index, ready)
                    continue
                if not ready.alone:
                    queued.append((index, call, ready))
                    continue
                self._start(queued, tasks, semaphore)
                if self._inline(index, tasks):
                    await self._run_inline(index, call, ready)
                    continue
                task = self._task(index, call, ready, semaphore)
                tasks[index] = task
                await _aio().wait((task,))
                self._collect(index, task)
            if len(queued) == 1 and self._inline(queued[0][0], tasks):
                await self._run_inline(*queued[0])
            elif queued:
                self._start(queued, tasks, semaphore)
            if tasks:
                running = [task for task in tasks.values() if not task.done()]
                if running:
                    await _aio().wait(running)
                for index, task in tasks.items():
                    self._collect(index, task)
        except BaseException:
            await self._stop(tasks)
            raise
        finally:
            self._state = "ended"
        return self.report()

    async def _run_lone(self, call: ToolCall) -> ExecutionReport:
        """`run` for a turn of one call that is neither traced nor durable.

        What the loop of `run` does with such a call, without its queue, tasks and cap:
        submitted, cleared by the door, then run in the turn's own task (nothing runs beside
        it), its outcome recorded however it ends.
        """
        try:
            if self._on_event is not None:
                self._emit("submitted", call)
            ready = self._prepare(call, 0)
            if isinstance(ready, CallOutcome):
                self._finish(0, ready)
            else:
                await self._run_inline(0, call, ready)
        except BaseException:
            await self._stop({})
            raise
        finally:
            self._state = "ended"
        (outcome,) = self._outcomes
        if outcome is None:  # cannot be: every way through above records the call
            return self.report()
        self._report = ExecutionReport((outcome,))
        return self._report

    def report(self) -> ExecutionReport:
        """The report: one outcome per call, in order.

        After `run` returned it is what `run` returned; after `run` was cancelled, the calls it
        did not finish read as cancelled; before `run`, every call does.

        Raises:
            RuntimeError: `run` is still running.
        """
        if self._state == "running":
            raise RuntimeError("the execution is still running; read its report once run() ends")
        if self._report is not None:
            return self._report
        outcomes = self._outcomes
        report = ExecutionReport(
            tuple(outcomes)  # type: ignore[arg-type]  # no None: checked on the next line
            if not any(outcome is None for outcome in outcomes)
            else tuple(
                outcome if outcome is not None else _not_run(call)
                for call, outcome in zip(self._calls, outcomes, strict=True)
            )
        )
        if self._state == "ended":  # the outcomes are final: built once, however often read
            self._report = report
        return report

    # -- phase 1 ------------------------------------------------------------------------------

    def _task(
        self, index: int, call: ToolCall, ready: _Ready, semaphore: _Cap
    ) -> asyncio.Task[CallOutcome]:
        trace = self._traces.get(index) if self._traces else None
        task: asyncio.Task[CallOutcome] = _aio().create_task(
            self._run_call(index, call, ready, semaphore.get()),
            name=f"nucleo-tool-{call.id}",
            context=trace.context() if trace is not None else None,
        )
        return task

    def _start(
        self,
        queued: list[tuple[int, ToolCall, _Ready]],
        tasks: dict[int, asyncio.Task[CallOutcome]],
        semaphore: _Cap,
    ) -> None:
        """Start every queued call as a task of its own (they run side by side)."""
        for index, call, ready in queued:
            tasks[index] = self._task(index, call, ready, semaphore)
        queued.clear()

    def _inline(self, index: int, tasks: dict[int, asyncio.Task[CallOutcome]]) -> bool:
        """Whether call ``index`` may run in the turn's own task rather than a task of its own.

        Only when nothing else runs beside it (a task would run it alone anyway, at the cost of
        three turns of the event loop) and it has no trace, whose context a task is made in.
        """
        if self._traces and index in self._traces:
            return False
        return not tasks or all(task.done() for task in tasks.values())

    async def _run_inline(self, index: int, call: ToolCall, ready: _Ready) -> None:
        """Run one call in the turn's task, recording what `_collect` would of its task.

        It takes no slot of the concurrency cap: nothing else of the turn runs beside it. A
        cancelled turn cancels the call where it awaits, as `_stop` would cancel its task; its
        outcome reads as a cancelled call (not one that never ran) and the cancellation goes
        on. An exception no call may raise is recorded as the call's failure; like a task's,
        only ``KeyboardInterrupt`` and ``SystemExit`` go on from there.
        """
        try:
            outcome = await self._run_call(index, call, ready, None)
        except BaseException as exc:
            if isinstance(exc, _aio().CancelledError):
                self._finish(index, self._cancelled_outcome(index, call))
                raise
            self._finish(index, self._failed_outcome(index, call, exc))
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
        else:
            self._finish(index, outcome)

    # -- phase 2 and the end ------------------------------------------------------------------

    async def _stop(self, tasks: dict[int, asyncio.Task[CallOutcome]]) -> None:
        """Cancel every call still running, wait for them, and record every outcome."""
        import asyncio

        for task in tasks.values():
            task.cancel()
        running = {task for task in tasks.values() if not task.done()}
        while running:
            # Cancelled again while stopping: the calls were told to stop already; wait on.
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait(running)
            running = {task for task in running if not task.done()}
        for index, task in tasks.items():
            self._collect(index, task)
        for index, call in enumerate(self._calls):
            if self._outcomes[index] is None:
                self._finish(index, _not_run(call))
