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

import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Coroutine, Generator, Mapping, Sequence
from dataclasses import replace
from types import CoroutineType, ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast, final

from nucleo_core.errors import CorrectableError, InvalidToolInput, PermissionDenied
from nucleo_core.guard.approvals import Approval
from nucleo_core.models.messages import ToolResultBlock
from nucleo_core.thinking._execution_awareness import ConversationAware, RegistryAware, runs_alone
from nucleo_core.thinking._execution_durable import (
    DelegationPaused,
    DurableApprovals,
    PendingCall,
    PendingDelegation,
    ResumesDelegation,
    settled_refusal,
)
from nucleo_core.thinking._execution_policy import ExecutionPolicy
from nucleo_core.thinking._execution_reconcile import NO_RESULT, reconcile_results
from nucleo_core.thinking._execution_render import render_output
from nucleo_core.thinking._execution_report import (
    FAILURE_STATUSES,
    CallOutcome,
    CallStatus,
    EventKind,
    ExecutionEvent,
    ExecutionReport,
    ToolFailure,
)
from nucleo_core.tools.reply import is_reply
from nucleo_core.tools.tool import run_tool

if TYPE_CHECKING:
    import asyncio

    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.guard.approvals import Approver
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.hub.call_door import ClearedCall
    from nucleo_core.telemetry.observer import CallTrace, RunObserver
    from nucleo_core.thinking._execution_audit import CallAudit
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.provider import ToolProvider
    from nucleo_core.tools.tool import Tool

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

logger = logging.getLogger("nucleo.thinking")
#: Where each failed call is recorded for the developer, with its traceback.
tools_logger = logging.getLogger("nucleo.tools")

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


#: Whether a tool class mixes in `ConversationAware` and `RegistryAware`: asked at every call,
#: answered once per class (an ABC's isinstance walks its registry each time).
_AWARENESS: dict[type[Any], tuple[bool, bool]] = {}


def _awareness(cls: type[Any]) -> tuple[bool, bool]:
    known = _AWARENESS.get(cls)
    if known is None:
        # A class registered on either ABC later would be missed; `ABC.register` of a tool
        # class is not how awareness is declared (the docs say: mix it in).
        known = _AWARENESS[cls] = (
            issubclass(cls, ConversationAware),
            issubclass(cls, RegistryAware),
        )
    return known


#: Outputs `render_output` writes as they are (a string) or as ``str()``, and that are no reply.
_PLAIN = frozenset({str, int, float, bool})
_monotonic = time.monotonic
_asyncio: ModuleType | None = None


def _aio() -> ModuleType:
    """The asyncio module, imported at the first run (it is costly at package import)."""
    global _asyncio
    if _asyncio is None:
        import asyncio

        _asyncio = asyncio
    return _asyncio


@final
class _Cap:
    """A turn's concurrency cap: its semaphore, made when a call first runs as a task.

    A turn of ``calls`` calls, each run once, has at most that many running at once: when
    they are no more than ``limit`` the cap is never reached, and no call waits on it (`get`
    answers ``None``).
    """

    __slots__ = ("_limit", "_needed", "_semaphore")

    def __init__(self, limit: int, calls: int) -> None:
        self._limit = limit
        self._needed = calls > limit
        self._semaphore: asyncio.Semaphore | None = None

    def get(self) -> asyncio.Semaphore | None:
        if not self._needed:
            return None
        semaphore = self._semaphore
        if semaphore is None:
            semaphore = self._semaphore = _aio().Semaphore(self._limit)
        return semaphore


def _running(tool: Tool[Any, Any], input: Any) -> Coroutine[Any, Any, Any]:
    """The coroutine that runs ``tool`` on ``input``.

    It is `run_tool`'s, without that function's frame when the tool is async and its ``run``
    returns a coroutine (the common case).
    """
    if tool.is_async:
        awaitable = tool.run(input)
        if type(awaitable) is CoroutineType:
            return awaitable
        return _awaited(awaitable)
    return run_tool(tool, input)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


@final
class _Resumed:
    """Awaits the rest of a coroutine whose first step ran and yielded ``pending``.

    What ``await`` does for a coroutine, from its second step on: what it yielded goes to the
    task (which waits on it), what the task sends or throws back goes in.
    """

    __slots__ = ("_coroutine", "_pending")

    def __init__(self, coroutine: Coroutine[Any, Any, Any], pending: Any) -> None:
        self._coroutine = coroutine
        self._pending = pending

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, value = self._coroutine, self._pending
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as exc:  # a cancellation, thrown in by the task
                try:
                    value = coroutine.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    value = coroutine.send(sent)
                except StopIteration as stop:
                    return stop.value


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@final
class ToolExecution:
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

    def _settle(self, index: int, call: ToolCall) -> bool:
        """Answer a resumed call its stored state settles without running; ``True`` if so.

        A call that ran before the pause keeps its result (its records were written then); a
        rejected, expired or already consumed approval refuses its call before the door, so
        a changed policy can never run what a person rejected.
        """
        durable = self._durable
        if durable is None:
            return False
        kept = durable.answered.get(call.id)
        if kept is not None:
            status = CallStatus.FAILED if kept.is_error else CallStatus.OK
            self._outcomes[index] = CallOutcome(call=call, status=status, result=kept)
            self._emit("finished", call, self._outcomes[index])
            return True
        record = durable.decided.get(call.id)
        if record is None:
            return False
        refusal = settled_refusal(record)
        if refusal is None:
            return False
        if self._audit is not None:
            self._audit.approval_resolved(call, record)
        denied = PermissionDenied(record.tool, refusal, decided_by="approval")
        outcome = _error(call, CallStatus.REFUSED, refusal, denied)
        if self._audit is not None:
            self._audit.settled(outcome, record)
        if self._observer is not None:  # refused before the door: its trace starts and ends here
            trace = self._observer.tool_call(call, self._parent)
            trace.approval_resolved(record)
            trace.finished(outcome, None, None)
        self._outcomes[index] = outcome
        self._emit("finished", call, outcome)
        return True

    def _prepare(self, call: ToolCall, index: int) -> _Ready | CallOutcome:
        """Check one call at its submission and create its tool, or say why it cannot run."""
        try:
            cleared = self._check(call)
        except InvalidToolInput as exc:
            return _error(call, CallStatus.INVALID, str(exc), exc)
        except PermissionDenied as exc:
            if self._audit is not None:
                self._audit.denied(call, call.provider, exc.decided_by, str(exc))
            return _error(call, CallStatus.REFUSED, str(exc), exc)
        except CorrectableError as exc:
            return _error(call, CallStatus.REFUSED, str(exc), exc)
        except Exception as exc:
            self._internal.add(index)
            return _error(
                call, CallStatus.FAILED, _internal("The call could not be checked", exc), exc
            )
        provider, value = cleared.provider, cleared.input
        if self._audit is not None and cleared.permission is not None:
            self._audit.permission(call, provider, cleared.permission)
        try:
            tool = provider.create(self._parent)
            conversation_aware, registry_aware = _awareness(type(tool))
            if conversation_aware and self._conversation is not None:
                cast("ConversationAware", tool).bind_conversation(self._conversation)
            if registry_aware and self._registry is not None:
                cast("RegistryAware", tool).bind_registry(self._registry)
            resumed = self._durable.delegations.get(call.id) if self._durable else None
            if resumed is not None:  # a paused sub-thinker's run: continued, never restarted
                if not isinstance(tool, ResumesDelegation):
                    raise TypeError(f"{type(tool).__name__} cannot continue a sub-thinker's run")
                tool.resume_from(resumed)
        except Exception as exc:
            self._internal.add(index)
            message = _failure(f"Tool '{provider.name}' could not be started", exc)
            return _error(call, CallStatus.FAILED, message, exc)
        # As `runs_alone` answers, from the class's awareness looked up once.
        alone = conversation_aware or registry_aware or provider.sequential
        ready = _Ready(provider, tool, value, alone, cleared.permission)
        self._cleared[index] = ready
        return ready

    async def _run_call(
        self, index: int, call: ToolCall, ready: _Ready, semaphore: asyncio.Semaphore | None
    ) -> CallOutcome:
        """Run one call under the concurrency cap and its timeout; never raises but cancel.

        ``semaphore`` is ``None`` for a call run in the turn's own task (nothing runs beside it)
        and for the calls of a turn that cannot reach the cap (`_Cap`).
        """
        name = ready.provider.name
        record = self._durable.decided.get(call.id) if self._durable is not None else None
        if record is not None:  # a resumed call whose approval was given
            if self._traces and (trace := self._traces.get(index)) is not None:
                trace.approval_resolved(record)
            refused = self._approved(call, ready, record)
            if refused is not None:
                return refused
        elif ready.permission is not None and ready.permission.decision == "confirm":
            refused = await self._approval(index, call, ready)
            if refused is not None:
                return refused
        if semaphore is not None:
            await semaphore.acquire()
        try:
            if self._audit is not None:
                try:
                    self._audit.started(call, ready.provider, ready.permission)
                except Exception as exc:  # a start that must be on the record first is not
                    self._internal.add(index)
                    message = _internal(f"Tool '{name}' could not be put on the record", exc)
                    return _error(call, CallStatus.FAILED, message, exc)
            if self._on_event is not None:
                self._emit("started", call)
            deadline: asyncio.Timeout | None = None
            seconds: float | None = None
            started = self._started[index] = _monotonic()
            try:
                # The first step runs before the deadline is armed: a tool that finishes in it
                # (it never awaits anything pending) returns before its deadline could have
                # fired, exactly as under `asyncio.timeout`, whose cancellation only reaches a
                # call that suspends. One that suspends waits out the rest under the deadline
                # its call started with.
                running = _running(ready.tool, ready.input)
                try:
                    step = running.send(None)
                except StopIteration as stop:
                    output = stop.value
                else:
                    seconds = self._policy.timeout_for(name)
                    when = None
                    if seconds is not None:  # counted from the start, on the loop's clock
                        loop_now = _aio().get_running_loop().time()
                        when = loop_now - (_monotonic() - started) + seconds
                    deadline = _aio().timeout_at(when)
                    async with deadline:
                        output = await _Resumed(running, step)
            except TimeoutError as exc:
                duration = _monotonic() - started
                if deadline is not None and deadline.expired():
                    message = (
                        f"Tool '{name}' did not finish within {seconds:g} s; its result was "
                        "abandoned."
                    )
                    return _error(call, CallStatus.TIMEOUT, message, exc, duration)
                message = _failure(f"Tool '{name}' failed", exc)  # the tool's own timeout
                return _error(call, CallStatus.FAILED, message, exc, duration)
            except _aio().CancelledError as exc:
                task = _aio().current_task()
                if task is not None and task.cancelling():
                    raise  # the turn is being cancelled: `_collect` records it
                # The tool cancelled itself (it awaited something that was cancelled).
                return _error(
                    call, CallStatus.CANCELLED, _cancelled(name), exc, _monotonic() - started
                )
            except DelegationPaused as paused:
                return self._delegation_waits(index, call, paused, _monotonic() - started)
            except Exception as exc:
                message = _failure(f"Tool '{name}' failed", exc)
                return _error(call, CallStatus.FAILED, message, exc, _monotonic() - started)
            duration = _monotonic() - started
        finally:
            if semaphore is not None:
                semaphore.release()
        try:
            if type(output) in _PLAIN:  # no reply; `render_output` gives its text or str()
                if self._render is _render_default:
                    text = output if type(output) is str else str(output)
                else:
                    text = self._render(call, output)
                failed = False
            else:
                text = self._render(call, output)
                # An output that is a result in its own right (an MCP result) says if it failed.
                failed = is_reply(output) and output.tool_reply()[1]
        except Exception as exc:
            message = _failure(f"The output of tool '{name}' could not be rendered", exc)
            return _error(call, CallStatus.FAILED, message, exc, duration)
        return CallOutcome(
            call=call,
            status=CallStatus.OK,
            result=ToolResultBlock(tool_use_id=call.id, content=text, is_error=failed),
            output=output,
            duration=duration,
        )

    def _delegation_waits(
        self, index: int, call: ToolCall, paused: DelegationPaused, duration: float
    ) -> CallOutcome:
        """A ``sub_thinker`` call whose sub-thinker paused: it waits with the turn."""
        if self._durable is None or not self._durable.pausable:  # only a pausable turn's
            self._internal.add(index)
            message = _internal(f"Tool '{call.name}' failed", paused)
            return _error(call, CallStatus.FAILED, message, paused, duration)
        self._delegated[index] = PendingDelegation(index, call, paused.state)
        return CallOutcome(call=call, status=CallStatus.PENDING, result=_not_run(call).result)

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

    # -- phase 2 and the end ------------------------------------------------------------------

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
    ) -> ToolExecution:
        """One turn's `ToolExecution`, not yet running (the arguments are `ToolExecution`'s).

        Use it, rather than `execute`, to answer the turn even when it is cancelled: run it
        and read its `ToolExecution.report` in a ``finally``.
        """
        return ToolExecution(
            calls,
            check=check,
            parent=parent,
            policy=policy,
            render=render or self.render,
            on_event=on_event or self.on_event,
            conversation=conversation,
            registry=registry,
            approver=approver,
            audit=audit,
            durable=durable,
            observer=observer,
        )

    async def execute(
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
    ) -> ExecutionReport:
        """Run one turn's calls and return the report (the arguments are `ToolExecution`'s).

        Raises:
            asyncio.CancelledError: The turn was cancelled; its calls were stopped first. The
                report is not returned then: use `prepare` where the turn must be answered
                even so.
        """
        execution = self.prepare(
            calls,
            check=check,
            parent=parent,
            policy=policy,
            render=render,
            on_event=on_event,
            conversation=conversation,
            registry=registry,
            approver=approver,
            audit=audit,
        )
        return await execution.run()


def _log_failure(outcome: CallOutcome) -> None:
    """Record a failed call for the developer: what the model was told was recorded."""
    failure = ToolFailure.of(outcome)
    if failure is None:
        return
    error = failure.error
    # A tool's own correctable error and a timeout are expected ways to fail; anything else is
    # a bug for the developer to look at.
    expected = failure.status is CallStatus.TIMEOUT or isinstance(error, CorrectableError)
    tools_logger.log(
        logging.WARNING if expected else logging.ERROR,
        "tool %r (call %r) %s: %s",
        failure.tool,
        failure.call_id,
        "timed out" if failure.status is CallStatus.TIMEOUT else "failed",
        type(error).__name__,
        exc_info=(type(error), error, error.__traceback__),
        extra={"nucleo_tool": failure.tool, "nucleo_call_id": failure.call_id},
    )


# -- the result texts -------------------------------------------------------------------------


def _error_block(call: ToolCall, message: str) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call.id, content=message, is_error=True)


def _error(
    call: ToolCall,
    status: CallStatus,
    message: str,
    error: BaseException | None,
    duration: float = 0.0,
) -> CallOutcome:
    return CallOutcome(
        call=call,
        status=status,
        result=_error_block(call, message),
        error=error,
        duration=duration,
    )


def _failure(what: str, exc: BaseException) -> str:
    """The model's text for a failure: a correctable error's own message, else only its type."""
    if isinstance(exc, CorrectableError):
        return str(exc)
    return _internal(what, exc)


def _internal(what: str, exc: BaseException) -> str:
    # The exception's message is withheld: it may quote the model's input or a secret.
    return (
        f"{what}: an internal error ({type(exc).__name__}); the details were recorded for the "
        "developer."
    )


def _cancelled(name: str) -> str:
    return f"Tool '{name}' was cancelled before it finished."


def _not_run(call: ToolCall) -> CallOutcome:
    # The name is not repeated: the call may never have been checked, so it is model text.
    message = "The call was cancelled before it ran."
    return CallOutcome(call=call, status=CallStatus.CANCELLED, result=_error_block(call, message))


def _duplicate(call: ToolCall) -> CallOutcome:
    message = "This call repeats the id of an earlier call of the same turn; it was not run."
    return CallOutcome(call=call, status=CallStatus.REFUSED, result=_error_block(call, message))
