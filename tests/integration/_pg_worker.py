"""A worker, or the approvals' decider, of the load-and-fault test (test_pg_workers.py).

Usage: ``_pg_worker.py URL worker`` or ``_pg_worker.py URL decider COUNT``.

- ``worker``: serves the conversations ``c000``..``c199`` of the PostgreSQL store ``URL``, in a
  random order, again and again until every one has its final answer. For each conversation
  it can hold (`ConversationBusy`: another worker has it, skip): a conversation with its
  answer is done; one whose approvals are all decided is resumed; one whose approvals wait is
  skipped; one a killed worker left half-run (started, neither paused nor answered) is started
  over; a new one is run. Every fifth conversation's objective makes the model call the high
  risk ``wire_money``, which pauses the run for an approval; the others call ``search``.
  ``wire_money`` inserts a row into ``wired`` when it runs; a finished resume inserts a row
  into ``resumed``.
- ``decider``: approves (or, for every other one, rejects) each pending approval as
  ``decider``, then tries to decide it again and counts the refusals that name the decider,
  until COUNT approvals were decided; prints ``{"decided": N, "told_by_whom": M}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time

import psycopg

from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationBusy
from nucleo_core.errors import RunPaused
from nucleo_core.guard import PermissionPolicy
from nucleo_core.guard.approval_store import ApprovalAlreadyDecided
from nucleo_core.guard.audit import AuditLog
from nucleo_core.models import (
    ModelCatalog,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.stores import open_approvals, open_audit, open_conversations
from nucleo_core.testing import ScriptedModel

URL = sys.argv[1]
CONVERSATIONS = [f"c{n:03d}" for n in range(200)]
DONE = "Done."


def paying(cid: str) -> bool:
    """Whether the conversation's run calls wire_money (and so pauses)."""
    return int(cid[1:]) % 5 == 0


def sql(statement: str, *args: object) -> list[tuple[object, ...]]:
    """Run one statement on the test's own tables (autocommit)."""
    with psycopg.connect(URL, autocommit=True) as connection:
        cursor = connection.execute(statement, args)  # type: ignore[arg-type]
        return cursor.fetchall() if cursor.description else []


def answered_in_store() -> int:
    """How many conversations have their final answer, by the conversation store itself."""
    rows = sql(
        "SELECT count(DISTINCT conversation_id) FROM nucleo_messages WHERE record LIKE %s",
        f'%"{DONE}"%',
    )
    return int(rows[0][0])  # type: ignore[call-overload]


@tool(read_only=True, risk="low")
def search(query: str) -> str:
    """Search the ledger."""
    return f"2 invoices match {query!r}"


@tool(risk="high")
def wire_money(to: str, amount: int) -> str:
    """Wire money to an account."""
    sql("INSERT INTO wired (cid, pid) VALUES (%s, %s)", to, os.getpid())
    return f"wired {amount} to {to}"


class Treasurer(SingleObjectiveThinker[str, str]):
    """Pays invoices: searching is low risk, wiring money is high risk."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """Both tools, in every palette."""
        return [search, wire_money]


def answer(request: ModelRequest) -> ModelResponse:
    """The script: one tool call, then "Done." once its result is in."""
    last = request.messages[-1]
    if any(isinstance(block, ToolResultBlock) for block in last.content):
        return ModelResponse(content=(TextBlock(text=DONE),), stop_reason=StopReason.END_TURN)
    objective = request.messages[0].text
    cid = objective.split()[-1]
    use = (
        ToolUseBlock(id=f"pay_{cid}", name="wire_money", input={"to": cid, "amount": 10})
        if paying(cid)
        else ToolUseBlock(id=f"look_{cid}", name="search", input={"query": cid})
    )
    return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)


def worker() -> None:
    """Serve every conversation until each has its answer."""
    audit = AuditLog(open_audit(URL))
    conversations = open_conversations(URL)
    approvals = open_approvals(URL)
    thinker = Treasurer(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(guard=PermissionPolicy(), audit=audit),
        client=ScriptedModel(answer),
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        conversations=conversations,
    )
    thinker.approvals = approvals
    print("ready", flush=True)
    answered: set[str] = set()  # seen answered: never opened again by this worker
    while len(answered) < len(CONVERSATIONS):
        order = [cid for cid in CONVERSATIONS if cid not in answered]
        random.shuffle(order)
        for cid in order:
            if serve(cid, conversations, approvals, thinker):
                answered.add(cid)
        if answered_in_store() == len(CONVERSATIONS):
            break  # the others answered the rest
    audit.close()
    conversations.shutdown()


def serve(cid: str, conversations: object, approvals: object, thinker: Treasurer) -> bool:
    """Advance one conversation if this worker can hold it; whether it is answered."""
    from nucleo_core.conversations import ConversationService
    from nucleo_core.guard.approval_store import ApprovalStore

    assert isinstance(conversations, ConversationService)
    assert isinstance(approvals, ApprovalStore)
    try:
        context = conversations.open(cid, durable=True)  # the hold: one writer at a time
    except ConversationBusy:
        return False
    try:
        messages = context.messages
        if messages and messages[-1].role == "assistant" and messages[-1].text == DONE:
            return True
        filed = approvals.list(conversation_id=cid)
        if filed:
            if any(record.status_at() == "pending" for record in filed):
                return False
            asyncio.run(thinker.resume(cid))
            sql("INSERT INTO resumed (cid, pid) VALUES (%s, %s)", cid, os.getpid())
            return True
        if messages:  # a killed worker's half-run: nothing was filed, start it over
            conversations.delete(cid)
        try:
            asyncio.run(
                thinker.run(f"Pay the invoices of {cid}", conversation_id=cid, durable=True)
            )
        except RunPaused:
            return False
        return True
    finally:
        conversations.close(context)


def decider(count: int) -> None:
    """Decide each pending approval once, then try again to be told it was decided."""
    approvals = open_approvals(URL)
    decided = told = 0
    while decided < count:
        waiting = approvals.list(status="pending")
        for number, record in enumerate(waiting):
            if number % 2:
                approvals.reject(record.id, "not this one", by="decider")
            else:
                approvals.approve(record.id, by="decider")
            decided += 1
            try:
                approvals.approve(record.id, by="someone-else")
            except ApprovalAlreadyDecided as refused:
                told += "by decider" in str(refused)
        if not waiting:
            time.sleep(0.05)  # polling the shared store for new pauses
    print(json.dumps({"decided": decided, "told_by_whom": told}), flush=True)


if __name__ == "__main__":
    if sys.argv[2] == "worker":
        worker()
    else:
        decider(int(sys.argv[3]))
