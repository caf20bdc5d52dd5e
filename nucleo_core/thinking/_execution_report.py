"""What a turn's tool execution produced: one outcome per call, one result per tool-use id."""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, TypeAlias

from nucleo_core._frozen import quick_init
from nucleo_core.models.messages import Message, ToolResultBlock
from nucleo_core.thinking.tool_call import ToolCall

__all__ = [
    "FAILURE_STATUSES",
    "CallOutcome",
    "CallStatus",
    "EventKind",
    "ExecutionEvent",
    "ExecutionReport",
    "ToolFailure",
]


class CallStatus(StrEnum):
    """How one call ended.

    ``OK``: the tool ran and its output was rendered. ``REFUSED``: the call was not run: its
    tool is not available, the read-only binding refused it, or it repeats an earlier id.
    ``INVALID``: its input does not fit the tool's schema. ``FAILED``: the tool (or its
    creation, binding or rendering) raised. ``TIMEOUT``: it did not finish in time.
    ``CANCELLED``: it was cancelled, or never ran because the turn was. ``PENDING``: it waits
    for a durable approval, its own or (a ``sub_thinker`` call) its sub-thinker's (the run
    pauses; see `nucleo_core.errors.RunPaused`): it has no result yet, and its result block is
    only a placeholder, never sent while the run pauses.
    """

    OK = "ok"
    REFUSED = "refused"
    INVALID = "invalid"
    FAILED = "failed"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    PENDING = "pending"


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CallOutcome:
    """How one call of a turn ended, for the model (``result``) and the developer (the rest).

    Attributes:
        call: The call.
        status: How it ended.
        result: The result block the model reads; an error result unless ``status`` is ``OK``.
        output: The tool's output as returned (``None`` unless ``OK``).
        error: The exception behind a failure, with its message and traceback, for the
            developer and the audit record; the model reads only ``result``.
        duration: Seconds the tool ran (``0.0`` when it never started).
    """

    call: ToolCall
    status: CallStatus
    result: ToolResultBlock
    output: Any = None
    error: BaseException | None = None
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the tool ran and produced a result."""
        return self.status is CallStatus.OK


#: The statuses of a call that failed while it ran, rather than being refused before it ran:
#: the tool (its creation, input reading or rendering) raised, or it did not finish in time.
FAILURE_STATUSES = frozenset({CallStatus.FAILED, CallStatus.TIMEOUT})


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFailure:
    """One tool call that failed, with what the developer needs to find out why.

    The model was told only that the call failed (a correctable error's own message, or the
    exception's type and "the details were recorded for the developer"); the details are here,
    and in the ``nucleo.tools`` log.

    Attributes:
        tool: The tool's name.
        call_id: The tool-use id of the call.
        status: `CallStatus.FAILED` (it raised) or `CallStatus.TIMEOUT` (it did not finish).
        error: The exception, with its message and ``__traceback__``.
    """

    tool: str
    call_id: str
    status: CallStatus
    error: BaseException

    @property
    def traceback(self) -> str:
        """The exception's traceback, formatted as Python prints it."""
        return "".join(traceback.format_exception(self.error))

    @classmethod
    def of(cls, outcome: CallOutcome) -> ToolFailure | None:
        """The failure ``outcome`` records, or ``None`` when the call did not fail."""
        if outcome.status not in FAILURE_STATUSES or outcome.error is None:
            return None
        return cls(
            tool=outcome.call.name,
            call_id=outcome.call.id,
            status=outcome.status,
            error=outcome.error,
        )


EventKind: TypeAlias = Literal["submitted", "started", "finished"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionEvent:
    """A step of one call: submitted (phase 1, in call order), started running, finished.

    A call refused at submission has no ``started`` event. ``outcome`` is set on ``finished``
    events only.
    """

    kind: EventKind
    call: ToolCall
    outcome: CallOutcome | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class ExecutionReport:
    """A turn's tool execution: one outcome per call, in the calls' order.

    ``results`` holds exactly one result per distinct tool-use id, in the calls' order;
    a call repeating an earlier call's id is not run, and only its outcome records it.
    """

    outcomes: tuple[CallOutcome, ...]

    @property
    def results(self) -> tuple[ToolResultBlock, ...]:
        """The result blocks to send back, one per distinct tool-use id, in the calls' order."""
        outcomes = self.outcomes
        if len(outcomes) == 1:  # one call: its result, nothing to deduplicate
            return (outcomes[0].result,)
        return _first_per_id(outcome.result for outcome in outcomes)

    def results_message(self) -> Message:
        """The user turn that answers the assistant's tool uses: every result block, in order."""
        return Message(role="user", content=self.results)

    @property
    def ok(self) -> bool:
        """Whether every call ran and produced a result."""
        return all(outcome.ok for outcome in self.outcomes)

    @property
    def pending(self) -> tuple[CallOutcome, ...]:
        """The calls waiting for a durable approval, in the calls' order."""
        return tuple(o for o in self.outcomes if o.status is CallStatus.PENDING)

    @property
    def failures(self) -> tuple[ToolFailure, ...]:
        """The calls that failed while they ran (raised, or timed out), in the calls' order."""
        found = (ToolFailure.of(outcome) for outcome in self.outcomes)
        return tuple(failure for failure in found if failure is not None)


def _first_per_id(results: Iterable[ToolResultBlock]) -> tuple[ToolResultBlock, ...]:
    seen: set[str] = set()
    kept: list[ToolResultBlock] = []
    for result in results:
        if result.tool_use_id not in seen:
            seen.add(result.tool_use_id)
            kept.append(result)
    return tuple(kept)
