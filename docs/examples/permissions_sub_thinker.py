"""A sub-thinker's approvals pause the root run; resuming the root goes on inside it."""

import asyncio
import json
import tempfile
from pathlib import Path

from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import RunPaused
from nucleo_core.guard import PermissionPolicy
from nucleo_core.guard.approval_store import SQLiteApprovalStore
from nucleo_core.models import (
    ModelCatalog,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.testing import ScriptedModel


@tool(risk="high")
def wire_money(to: str, amount: int) -> str:
    """Wire money to an account."""
    return f"wired {amount} to {to}"


class Treasurer(SingleObjectiveThinker[str, str]):
    """Pays invoices, and may delegate (its palette has sub_thinker)."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """Wiring money is high risk (confirm); a sub-thinker inherits it."""
        return [wire_money]


def answer(request):
    """The model: the root delegates; the sub-thinker wires twice, then reports."""
    results = [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
    said = "; ".join(r.content for r in results)
    if "sub-thinker" in request.system:  # the sub-thinker's model
        if results:
            reply = {"answer": said, "reasoning": "as approved", "artifact_refs": []}
            return ModelResponse(
                content=(TextBlock(text=json.dumps(reply)),), stop_reason=StopReason.END_TURN
            )
        uses = (
            ToolUseBlock(id="acme", name="wire_money", input={"to": "acme", "amount": 120}),
            ToolUseBlock(id="mallory", name="wire_money", input={"to": "mallory", "amount": 9}),
        )
        return ModelResponse(content=uses, stop_reason=StopReason.TOOL_USE)
    if results:
        answer = json.loads(results[0].content)["answer"]
        return ModelResponse(
            content=(TextBlock(text=f"The sub-thinker says: {answer}"),),
            stop_reason=StopReason.END_TURN,
        )
    delegate = ToolUseBlock(id="d", name="sub_thinker", input={"objective": "Pay acme, mallory."})
    return ModelResponse(content=(delegate,), stop_reason=StopReason.TOOL_USE)


def treasurer(folder: Path) -> Treasurer:
    """What each process builds: the same thinker over the same files."""
    return Treasurer(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(guard=PermissionPolicy()),
        client=ScriptedModel(answer),
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        conversations=ConversationService(folder / "conversations.sqlite3"),
    )


def who(requested_by: str) -> str:
    """The chain of classes that asked, root first (the instance ids left out)."""
    return " > ".join(part.split("#")[0].rsplit(".", 1)[-1] for part in requested_by.split(" > "))


with tempfile.TemporaryDirectory() as folder:
    first = treasurer(Path(folder))
    try:
        asyncio.run(first.run("Pay the invoices.", conversation_id="pay-run", durable=True))
    except RunPaused as paused:
        print(f"paused in {paused.conversation_id}:")
        for approval in paused.approvals:
            asker = who(approval.requested_by)
            print(f"  {approval.tool} {dict(approval.arguments)}, asked by {asker}")
    first.conversations.shutdown()

    store = SQLiteApprovalStore(Path(folder) / "approvals.sqlite3")
    acme, mallory = sorted(store.list(status="pending"), key=lambda a: a.arguments["to"])
    store.approve(acme.id, by="ops")
    store.reject(mallory.id, "unknown payee", by="ops")

    second = treasurer(Path(folder))
    print(asyncio.run(second.resume("pay-run")))
    # The sub-thinker's conversation was kept for the pause only.
    print("conversations kept:", second.conversations.list_ids())
    second.conversations.shutdown()
    store.close()
