"""The paused turn: what a durable conversation keeps while calls wait for approvals.

When a turn pauses, its conversation holds the assistant's answer with every tool use, and
no results message yet: the pairing invariant wants **one** results message answering every
tool use of that answer, in order, and some have no result yet. What the turn has so far is
kept in the conversation's metadata, under `PAUSED_TURN`, committed with the conversation:

- ``turn``: the index of the assistant message whose tool uses the turn answers;
- ``calls``: each call (id, name, input), in the answer's order;
- ``results``: the result blocks of the calls that ran (or were refused) before the pause;
- ``approvals``: the pending approvals, in full (so a pause whose approvals did not reach the
  approvals' store before the process died files them again at resume).

The metadata is written before the approvals are filed, so an approval a process can see
always belongs to a pause the conversation kept. On resume the stored results and the new
ones make the one results message; the metadata is then cleared. A resume that finds the
results message already there (the process died between appending it and clearing the
metadata) only clears it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from nucleo_core.thinking.tool_call import ToolCall

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.models.messages import ToolResultBlock
    from nucleo_core.thinking._execution_report import ExecutionReport
    from nucleo_core.thinking.execution import ToolExecution

__all__ = ["PAUSED_TURN", "PausedTurn", "load_paused", "pause_turn"]

#: The conversation metadata key of the paused turn.
PAUSED_TURN = "nucleo.paused_turn"
_VERSION = 1


@dataclass(frozen=True, slots=True)
class PausedTurn:
    """A paused turn, as the conversation keeps it (see the module)."""

    turn: int
    calls: tuple[ToolCall, ...]
    answered: Mapping[str, ToolResultBlock]
    records: tuple[ApprovalRecord, ...]


def pause_turn(
    context: ConversationContext,
    execution: ToolExecution,
    report: ExecutionReport,
    *,
    thinker: str,
    requested_by: str,
    expiry: float,
) -> tuple[ApprovalRecord, ...]:
    """Keep the paused turn in ``context``; return its approvals, to be filed in the store."""
    from nucleo_core.conversations.message_codec import message_to_data
    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.guard.audit.canonical import arguments_digest
    from nucleo_core.models.messages import Message

    now = datetime.now(UTC)
    records = []
    for pending in execution.pending_calls():
        request = pending.request
        arguments = dict(request.arguments)
        records.append(
            ApprovalRecord(
                id=pending.approval_id,
                thinker=thinker,
                conversation_id=context.id,
                call_id=pending.call.id,
                tool=request.tool,
                source=request.source,
                risk=request.risk,
                risk_declared=request.risk_declared,
                arguments=arguments,
                arguments_digest=arguments_digest(arguments),
                decided_by_rule=request.decided_by,
                requested_by=requested_by,
                requested_at=now,
                expires_at=now + timedelta(seconds=expiry),
            )
        )
    waiting = {pending.call.id for pending in execution.pending_calls()}
    results = tuple(r for r in report.results if r.tool_use_id not in waiting)
    context.set_metadata(
        PAUSED_TURN,
        {
            "v": _VERSION,
            "turn": len(context.messages) - 1,
            "calls": [
                {"id": call.id, "name": call.name, "input": call.raw_input}
                for call in execution.calls
            ],
            "results": message_to_data(Message(role="user", content=results)),
            "approvals": [record.to_json() | {"status": "pending"} for record in records],
        },
    )
    return tuple(records)


def load_paused(context: ConversationContext) -> PausedTurn | None:
    """The paused turn ``context`` keeps, or ``None`` when it keeps none.

    Raises:
        ConversationStoreError: The kept record cannot be read.
    """
    from nucleo_core.conversations.errors import ConversationStoreError
    from nucleo_core.conversations.message_codec import message_from_data
    from nucleo_core.guard.approval_store import ApprovalRecord, ApprovalStoreError
    from nucleo_core.models.messages import ToolResultBlock

    kept: Any = context.metadata.get(PAUSED_TURN)
    if kept is None:
        return None
    try:
        if not isinstance(kept, Mapping) or kept.get("v") != _VERSION:
            raise ValueError("not a paused turn of this version")
        calls = tuple(_call(item) for item in kept["calls"])
        results = message_from_data(kept["results"]).content
        answered = {b.tool_use_id: b for b in results if isinstance(b, ToolResultBlock)}
        records = tuple(ApprovalRecord.from_json(item) for item in kept["approvals"])
        turn = kept["turn"]
        if not isinstance(turn, int) or not 0 <= turn < len(context.messages):
            raise ValueError("turn: not the index of a message")
    except (KeyError, TypeError, ValueError, ApprovalStoreError) as exc:
        raise ConversationStoreError(
            f"conversation {context.id} keeps a paused turn that cannot be read ({exc})"
        ) from exc
    return PausedTurn(turn, calls, answered, records)


def _call(item: Mapping[str, Any]) -> ToolCall:
    raw = item["input"]
    if not isinstance(raw, Mapping | str):
        raise ValueError("a call's input is neither an object nor text")
    return ToolCall(id=str(item["id"]), name=str(item["name"]), raw_input=raw)
