"""The guard at every call: a hub with a policy, and an approver for confirm-level calls."""

import asyncio

from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.guard import PermissionPolicy
from nucleo_core.guard.approvals import Approval, ApprovalRequest
from nucleo_core.models import ModelCatalog, ModelResponse, StopReason, TextBlock, ToolUseBlock
from nucleo_core.testing import ScriptedModel


@tool(read_only=True, risk="low")
def search_tickets(query: str) -> str:
    """Search the support tickets."""
    return f"ticket 7 matches {query!r}"


@tool(risk="high")
def delete_ticket(ticket: int) -> str:
    """Delete a ticket."""
    return f"ticket {ticket} deleted"


class Desk(SingleObjectiveThinker[str, str]):
    """A support desk: search (low risk) and delete (high risk)."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """Both tools, in every palette."""
        return [search_tickets, delete_ticket]


def approve_small_tickets(request: ApprovalRequest) -> Approval:
    """An inline approver: shown the tool, its risk and the arguments, it decides."""
    print(f"approve? {request.tool} ({request.risk}) {dict(request.arguments)}")
    if request.arguments.get("ticket", 0) < 100:
        return Approval(True)
    return Approval(False, "tickets from 100 on are kept for the audit")


def uses(*calls: tuple[str, dict[str, object]]) -> ModelResponse:
    blocks = tuple(
        ToolUseBlock(id=f"t{n}", name=name, input=args) for n, (name, args) in enumerate(calls)
    )
    return ModelResponse(content=blocks, stop_reason=StopReason.TOOL_USE)


model = ScriptedModel(
    [
        uses(("search_tickets", {"query": "refund"}), ("delete_ticket", {"ticket": 7})),
        uses(("delete_ticket", {"ticket": 512})),
        ModelResponse(content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN),
    ]
)
hub = ToolHub(guard=PermissionPolicy())  # low -> auto, medium -> notify, high -> confirm
desk = Desk(
    ThinkerDeclaration("standard", "short"),
    hub=hub,
    client=model,
    catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
    conversations=ConversationService(":memory:"),
)
desk.approver = approve_small_tickets
print(asyncio.run(desk.run("Clean up the refund tickets.")))
for request in model.requests[1:]:
    for block in request.messages[-1].content:
        print(f"{'refused' if block.is_error else 'ran':8} {block.content}")
