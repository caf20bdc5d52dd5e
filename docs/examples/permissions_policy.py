"""The permission policy in code: the risk defaults, and rules that override them."""

from nucleo_core import FunctionToolProvider, ThinkerBase, ToolHub, tool
from nucleo_core.guard import PermissionPolicy, PermissionRule


@tool(read_only=True, risk="low")
def search_tickets(query: str) -> list[str]:
    """Search the support tickets."""
    return [query]


@tool(risk="medium")
def reply_to_ticket(ticket: int, text: str) -> str:
    """Reply to a ticket."""
    return text


@tool(risk="high")
def delete_ticket(ticket: int) -> str:
    """Delete a ticket."""
    return str(ticket)


@tool  # no declared risk: it counts as high
def escalate(ticket: int) -> str:
    """Hand a ticket to a person."""
    return str(ticket)


class SupportThinker(ThinkerBase):
    """Answers support questions."""


class TriageThinker(SupportThinker):
    """Sorts new tickets: a SupportThinker, so rules naming SupportThinker cover it."""


tools = [
    FunctionToolProvider(f) for f in (search_tickets, reply_to_ticket, delete_ticket, escalate)
]
policy = PermissionPolicy(
    [
        PermissionRule(tool="delete_*", decision="deny", reason="tickets are deleted by a person"),
        PermissionRule(thinker=SupportThinker, tool="escalate", decision="auto", name="escalate"),
    ]
)
hub = ToolHub()
for thinker in (None, TriageThinker(hub=hub)):
    print(f"-- {type(thinker).__name__}")
    for provider in tools:
        decided = policy.decide(thinker, provider)
        print(f"{provider.name:16} {decided.decision.value:8} {decided.decided_by}")
print(policy.decide(None, tools[2]).reason)
