"""The paused turn: what a durable conversation keeps while calls wait for approvals.

When a turn pauses, its conversation holds the assistant's answer with every tool use, and
no results message yet: the pairing invariant wants **one** results message answering every
tool use of that answer, in order, and some have no result yet. What the turn has so far is
kept in the conversation's metadata, under `PAUSED_TURN`, committed with the conversation:

- ``thinker``: the qualified class name of the thinker that paused (what resumes it);
- ``turn``: the index of the assistant message whose tool uses the turn answers;
- ``calls``: each call (id, name, input), in the answer's order;
- ``results``: the result blocks of the calls that ran (or were refused) before the pause;
- ``approvals``: the turn's own pending approvals, in full (so a pause whose approvals did not
  reach the approvals' store before the process died files them again at resume);
- ``delegations``: by tool-use id, each ``sub_thinker`` call whose sub-thinker paused: its
  `DelegationState` (the sub-thinker's conversation, durable from its pause on, which keeps
  the sub-thinker's own paused turn; and every approval pending below that call);
  An MCP call whose server's elicitation is pending is kept here too, as a delegation with no
  conversation whose one approval is of kind ``"elicitation"`` (`ElicitationPaused`);
- ``grants``: the tools ``request_tools`` had granted the thinker, by name: a resumed run
  asks for them again, through admission (a grant the rules no longer admit is refused, on
  the record, and its call is then refused at the door).

The metadata is written before the approvals are filed, so an approval a process can see
always belongs to a pause the conversation kept; a sub-thinker files nothing itself: the root
thinker files its own approvals and every delegate's once its own paused turn is kept. On
resume the stored results and the new ones make the one results message; the metadata is
then cleared. A resume that finds the results message already there (the process died
between appending it and clearing the metadata) only clears it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from nucleo_core.thinking._execution_durable import DelegationState
from nucleo_core.thinking.tool_call import ToolCall

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.models.messages import ToolResultBlock
    from nucleo_core.thinking._execution_report import ExecutionReport
    from nucleo_core.thinking.execution import ToolExecution
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["PAUSED_TURN", "PausedTurn", "load_paused", "pause_turn"]

#: The conversation metadata key of the paused turn.
PAUSED_TURN = "nucleo.paused_turn"
_VERSION = 1


@dataclass(frozen=True, slots=True)
class PausedTurn:
    """A paused turn, as the conversation keeps it (see the module).

    Attributes:
        turn: The index of the assistant message the turn answers.
        calls: Its calls, in order.
        answered: By tool-use id, the results of the calls that ran before the pause.
        records: The turn's own pending approvals, in the calls' order.
        delegations: By tool-use id, the paused sub-thinkers of its ``sub_thinker`` calls.
        grants: The tools granted to the thinker by ``request_tools``, by name.
        thinker: The qualified class name of the thinker that paused (``""`` if not kept).
    """

    turn: int
    calls: tuple[ToolCall, ...]
    answered: Mapping[str, ToolResultBlock]
    records: tuple[ApprovalRecord, ...]
    delegations: Mapping[str, DelegationState] = field(default_factory=dict)
    grants: tuple[str, ...] = ()
    thinker: str = ""

    @property
    def every_approval(self) -> tuple[ApprovalRecord, ...]:
        """Every approval the turn waits for, its delegates' included, in the calls' order."""
        own = {record.call_id: record for record in self.records}
        found: list[ApprovalRecord] = []
        for call in self.calls:
            record = own.get(call.id)
            if record is not None:
                found.append(record)
            delegation = self.delegations.get(call.id)
            if delegation is not None:
                found.extend(delegation.approvals)
        return tuple(found)


def pause_turn(
    context: ConversationContext,
    execution: ToolExecution,
    report: ExecutionReport,
    *,
    thinker: str,
    requested_by: str,
    expiry: float,
    conversation_id: str | None = None,
    grants: Sequence[str] = (),
    provider_of: Callable[[str], ToolProvider | None] | None = None,
) -> tuple[ApprovalRecord, ...]:
    """Keep the paused turn in ``context``; return every approval it waits for, in call order.

    Its own approvals are new records (to be filed in the store); a delegation's are those its
    sub-thinker's pause returned. ``conversation_id`` is the conversation that resumes the
    run, on every record of the turn's own (``context``'s by default: a sub-thinker's records
    name its root's); ``grants`` the names of the tools granted so far; ``provider_of`` finds
    a tool's provider by name (its source and risk go on an elicitation's approval).
    """
    from nucleo_core.conversations.message_codec import message_to_data
    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.guard.audit.canonical import arguments_digest
    from nucleo_core.models.messages import Message

    now = datetime.now(UTC)
    records: list[ApprovalRecord] = []
    every: list[ApprovalRecord] = []
    delegations: dict[str, DelegationState] = {}
    delegated = {pending.index: pending for pending in execution.pending_delegations()}
    for index, pending_delegation in list(delegated.items()):
        asked = pending_delegation.state.elicitation
        if asked is None:
            continue
        call = pending_delegation.call
        provider = provider_of(call.name) if provider_of is not None else None
        arguments = dict(call.raw_input) if isinstance(call.raw_input, Mapping) else {}
        record = ApprovalRecord(
            id=uuid.uuid4().hex,
            thinker=thinker,
            conversation_id=conversation_id or context.id,
            call_id=call.id,
            tool=call.name,
            source=provider.source if provider is not None else f"mcp:{asked.get('server')}",
            risk=provider.risk.value if provider is not None and provider.risk_declared else "high",
            risk_declared=provider is not None and provider.risk_declared,
            arguments=arguments,
            arguments_digest=arguments_digest(arguments),
            decided_by_rule="mcp:elicitation",
            requested_by=requested_by,
            requested_at=now,
            expires_at=now + timedelta(seconds=expiry),
            kind="elicitation",
            elicitation=dict(asked),
        )
        state = DelegationState("", pending_delegation.state.read_only, (record,), asked)
        delegated[index] = replace(pending_delegation, state=state)
    for pending in execution.pending_calls():
        for index in sorted(i for i in delegated if i < pending.index):
            state = delegated.pop(index).state
            delegations[execution.calls[index].id] = state
            every.extend(state.approvals)
        records.append(
            pending.approval_record(
                thinker=thinker,
                conversation_id=conversation_id or context.id,
                requested_by=requested_by,
                expiry=expiry,
                now=now,
            )
        )
        every.append(records[-1])
    for index in sorted(delegated):
        state = delegated[index].state
        delegations[execution.calls[index].id] = state
        every.extend(state.approvals)
    waiting = {pending.call.id for pending in execution.pending_calls()}
    waiting.update(delegations)
    results = tuple(r for r in report.results if r.tool_use_id not in waiting)
    context.set_metadata(
        PAUSED_TURN,
        {
            "v": _VERSION,
            "thinker": thinker,
            "turn": len(context.messages) - 1,
            "calls": [
                {"id": call.id, "name": call.name, "input": call.raw_input}
                for call in execution.calls
            ],
            "results": message_to_data(Message(role="user", content=results)),
            "approvals": [record.to_json() | {"status": "pending"} for record in records],
            "delegations": {cid: state.to_json() for cid, state in delegations.items()},
            "grants": list(dict.fromkeys(grants)),
        },
    )
    return tuple(every)


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
        # Kept since sub-thinkers and grants pause too; a paused turn without them has none.
        delegations = {
            str(cid): DelegationState.from_json(state)
            for cid, state in dict(kept.get("delegations") or {}).items()
        }
        grants = kept.get("grants") or []
        if not isinstance(grants, list) or not all(isinstance(g, str) for g in grants):
            raise ValueError("grants: not a list of tool names")
        thinker = kept.get("thinker") or ""
        if not isinstance(thinker, str):
            raise ValueError("thinker: not a class name")
    except (KeyError, TypeError, ValueError, ApprovalStoreError) as exc:
        raise ConversationStoreError(
            f"conversation {context.id} keeps a paused turn that cannot be read ({exc})"
        ) from exc
    return PausedTurn(turn, calls, answered, records, delegations, tuple(grants), thinker)


def _call(item: Mapping[str, Any]) -> ToolCall:
    raw = item["input"]
    if not isinstance(raw, Mapping | str):
        raise ValueError("a call's input is neither an object nor text")
    return ToolCall(id=str(item["id"]), name=str(item["name"]), raw_input=raw)
