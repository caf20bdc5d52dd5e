"""Durable approvals: a run pauses, a decision is made elsewhere, another thinker resumes it."""

import asyncio
import tempfile
from pathlib import Path

from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import RunPaused
from nucleo_core.guard import PermissionPolicy
from nucleo_core.guard.approval_store import ApprovalAlreadyDecided, SQLiteApprovalStore
from nucleo_core.models import (
    ModelCatalog,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.testing import ScriptedModel


@tool(read_only=True, risk="low")
def search_invoices(vendor: str) -> str:
    """Search the unpaid invoices."""
    return f"2 invoices from {vendor}"


@tool(risk="high")
def wire_money(to: str, amount: int) -> str:
    """Wire money to an account."""
    return f"wired {amount} to {to}"


class Treasurer(SingleObjectiveThinker[str, str]):
    """Pays invoices."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """Searching is low risk (auto); wiring money is high risk (confirm)."""
        return [search_invoices, wire_money]


def answer(request):
    """The model: three calls in one answer, then a summary of what it read back."""
    results = [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
    if results:
        text = "\n".join(f"{r.tool_use_id}: {r.content}" for r in results)
        return ModelResponse(content=(TextBlock(text=text),), stop_reason=StopReason.END_TURN)
    uses = (
        ToolUseBlock(id="search", name="search_invoices", input={"vendor": "acme"}),
        ToolUseBlock(id="acme", name="wire_money", input={"to": "acme", "amount": 120}),
        ToolUseBlock(id="mallory", name="wire_money", input={"to": "mallory", "amount": 9}),
    )
    return ModelResponse(content=uses, stop_reason=StopReason.TOOL_USE)


def treasurer(folder: Path) -> Treasurer:
    """What each process builds: the same thinker over the same files."""
    return Treasurer(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(guard=PermissionPolicy()),
        client=ScriptedModel(answer),
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        # approvals.sqlite3 is kept beside the conversations' file.
        conversations=ConversationService(folder / "conversations.sqlite3"),
    )


with tempfile.TemporaryDirectory() as folder:
    # 1. The run pauses: no approver, and a durable conversation.
    first = treasurer(Path(folder))
    try:
        asyncio.run(first.run("Pay the invoices.", conversation_id="pay-run", durable=True))
    except RunPaused as paused:
        print(f"paused in {paused.conversation_id}:")
        for approval in paused.approvals:
            print(f"  {approval.tool} {dict(approval.arguments)} ({approval.status_at()})")
    first.conversations.shutdown()  # the process could exit here

    # 2. Anyone decides, in any process (`nucleo approvals approve|reject ID`).
    store = SQLiteApprovalStore(Path(folder) / "approvals.sqlite3")
    pending = store.list(status="pending")
    acme, mallory = sorted(pending, key=lambda a: a.arguments["to"])
    store.approve(acme.id, by="ops")
    store.reject(mallory.id, "unknown payee", by="ops")
    try:
        store.approve(mallory.id)
    except ApprovalAlreadyDecided as exc:
        print(f"{type(exc).__name__}: it was {exc.record.status} by {exc.record.decided_by}")

    # 3. Another thinker resumes (`nucleo resume pay-run`): one results message answers all.
    second = treasurer(Path(folder))
    print(asyncio.run(second.resume("pay-run")))
    second.conversations.shutdown()
    store.close()
