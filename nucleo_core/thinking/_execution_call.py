"""Running one cleared call: its approval, the cap, its timeout, and its result's text.

A call that passed the door runs once approved (`_execution_approval`), under the turn's
concurrency cap and its tool's timeout; however it ends it becomes a `CallOutcome`, never an
exception, except a cancellation of the turn itself, which goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nucleo_core.models.messages import ToolResultBlock
from nucleo_core.thinking._execution_approval import _Approvals
from nucleo_core.thinking._execution_durable import DelegationPaused, PendingDelegation
from nucleo_core.thinking._execution_outcome import (
    _cancelled,
    _error,
    _failure,
    _internal,
    _not_run,
)
from nucleo_core.thinking._execution_report import CallOutcome, CallStatus
from nucleo_core.thinking._execution_stepping import _aio, _monotonic, _Resumed, _running
from nucleo_core.thinking._execution_turn import _Ready, _render_default
from nucleo_core.tools.reply import is_reply

if TYPE_CHECKING:
    import asyncio

    from nucleo_core.thinking.tool_call import ToolCall

__all__: list[str] = []

#: Outputs `render_output` writes as they are (a string) or as ``str()``, and that are no reply.
_PLAIN = frozenset({str, int, float, bool})


class _CallRun(_Approvals):
    """Running one call of the turn once it was cleared (see the module)."""

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
