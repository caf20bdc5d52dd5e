"""One process of a durable run that pauses for approvals (driven by test_approval_durability).

Usage: ``_approval_process.py FOLDER MODE``. Every process builds the same thinker over the
same files in FOLDER (the conversations, the approvals beside them, the audit record) and the
same scripted model, a function of the request, so the script survives across processes:
asked without a tool result, the model calls ``search`` and ``wire_money`` twice in one answer;
asked after the results, it answers "Done.". Every request it receives is appended to
``FOLDER/requests.jsonl``, and each ``wire_money`` that runs appends a line to
``FOLDER/wired.txt``.

- ``pause``: runs the thinker in the durable conversation ``conv``; when it pauses, prints the
  pending approvals' ids as JSON and waits to be killed (the test polls the store, then
  ``SIGKILL``s it).
- ``pause-expiring``: the same, with approvals that expire at once.
- ``resume``: resumes ``conv``; prints the answer, or the error, as JSON.
- ``pause-delegating`` and ``resume-delegating``: the same with the delegating script: the
  thinker's answer calls ``search`` and ``sub_thinker`` ("Pay the two suppliers."), whose
  sub-thinker's answer calls ``wire_money`` twice (the same two payments); the sub-thinker
  answers with its results once it has them, and the thinker answers "Done.".
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import NucleoError, RunPaused
from nucleo_core.guard import PermissionPolicy
from nucleo_core.guard.approval_store import SQLiteApprovalStore
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
from nucleo_core.testing import ScriptedModel

FOLDER = Path(sys.argv[1])
MODE = sys.argv[2]


@tool(read_only=True, risk="low")
def search(query: str) -> str:
    """Search the ledger."""
    return f"2 invoices match {query!r}"


@tool(risk="high")
def wire_money(to: str, amount: int) -> str:
    """Wire money to an account."""
    with (FOLDER / "wired.txt").open("a", encoding="utf-8") as wired:
        wired.write(f"{to} {amount}\n")
    return f"wired {amount} to {to}"


class Treasurer(SingleObjectiveThinker[str, str]):
    """Pays invoices: searching is low risk, wiring money is high risk."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """Both tools, in every palette."""
        return [search, wire_money]


#: The objective the delegating script hands its sub-thinker.
DELEGATED = "Pay the two suppliers."
PAYMENTS = (
    ToolUseBlock(id="use_acme", name="wire_money", input={"to": "acme", "amount": 120}),
    ToolUseBlock(id="use_mallory", name="wire_money", input={"to": "mallory", "amount": 9}),
)


def answer(request: ModelRequest) -> ModelResponse:
    """The script: tool calls first, "Done." once the results are in."""
    with (FOLDER / "requests.jsonl").open("a", encoding="utf-8") as log:
        log.write(json.dumps([message_json(m) for m in request.messages]) + "\n")
    last = request.messages[-1]
    results = [block for block in last.content if isinstance(block, ToolResultBlock)]
    if request.messages[0].text == DELEGATED:  # the sub-thinker
        if not results:
            return ModelResponse(content=PAYMENTS, stop_reason=StopReason.TOOL_USE)
        said = " | ".join(f"{r.tool_use_id}: {r.content}" for r in results)
        reply = {"answer": said, "reasoning": "paid what was approved", "artifact_refs": []}
        return ModelResponse(
            content=(TextBlock(text=json.dumps(reply)),), stop_reason=StopReason.END_TURN
        )
    if results:
        return ModelResponse(content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN)
    search = ToolUseBlock(id="use_search", name="search", input={"query": "acme"})
    if "delegating" in MODE:
        delegate = ToolUseBlock(id="use_sub", name="sub_thinker", input={"objective": DELEGATED})
        uses: tuple[ToolUseBlock, ...] = (search, delegate)
    else:
        uses = (search, *PAYMENTS)
    return ModelResponse(content=uses, stop_reason=StopReason.TOOL_USE)


def message_json(message: object) -> dict[str, object]:
    """A message as the test reads it: its role, its tool uses and its results."""
    content = getattr(message, "content", ())
    return {
        "role": getattr(message, "role", ""),
        "text": "".join(b.text for b in content if isinstance(b, TextBlock)),
        "uses": [b.id for b in content if isinstance(b, ToolUseBlock)],
        "results": [
            {"id": b.tool_use_id, "content": b.content, "is_error": b.is_error}
            for b in content
            if isinstance(b, ToolResultBlock)
        ],
    }


def main() -> None:
    """Run the mode."""
    audit = AuditLog.open(FOLDER / "audit.sqlite3")
    conversations = ConversationService(FOLDER / "conversations.sqlite3")
    thinker = Treasurer(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(guard=PermissionPolicy(), audit=audit),
        client=ScriptedModel(answer),
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        conversations=conversations,
    )
    thinker.approvals = SQLiteApprovalStore(FOLDER / "approvals.sqlite3")
    if MODE.startswith("pause"):
        if MODE == "pause-expiring":
            thinker.approval_expiry = 0.0
        try:
            asyncio.run(thinker.run("Pay the acme invoices.", conversation_id="conv", durable=True))
        except RunPaused as paused:
            audit.flush()
            print(json.dumps([a.id for a in paused.approvals]), flush=True)
            threading.Event().wait()  # paused: wait here to be killed
        raise SystemExit("the run did not pause")
    try:
        result: dict[str, object] = {"answer": asyncio.run(thinker.resume("conv"))}
    except NucleoError as exc:
        result = {"error": type(exc).__name__, "message": str(exc)}
    finally:
        conversations.shutdown()
        audit.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
