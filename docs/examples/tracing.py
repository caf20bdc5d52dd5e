"""Tracing a run with OpenTelemetry: one trace of spans, with the guard's decisions on them."""

import asyncio

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.guard import PermissionPolicy, PermissionRule
from nucleo_core.guard.approvals import Approval, ApprovalRequest
from nucleo_core.models import ModelCatalog, ModelRequest, ModelResponse
from nucleo_core.telemetry import instrument
from nucleo_core.testing import ScriptedModel, tool_use_response


@tool(read_only=True, risk="low")
def find_invoice(number: str) -> str:
    """Find an invoice by its number."""
    return f"invoice {number}: 120 EUR, unpaid"


@tool(risk="high")
def refund(number: str, amount: int) -> str:
    """Refund an invoice."""
    return f"refunded {amount} EUR on invoice {number}"


@tool(risk="medium")
def delete_invoice(number: str) -> str:
    """Delete an invoice."""
    return f"deleted invoice {number}"


class Clerk(SingleObjectiveThinker[str, str]):
    """Finds, refunds and deletes invoices."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """What every clerk holds."""
        return [find_invoice, refund, delete_invoice]


def approve(request: ApprovalRequest) -> Approval:
    """The inline approver: a person, a rule, a chat message; here a rule."""
    return Approval(request.arguments.get("amount", 0) < 200, "refunds under 200 EUR are fine")


def script(request: ModelRequest) -> ModelResponse | str:
    """The model: the clerk delegates a check, refunds, tries a delete; its sub-thinker looks."""
    turn = len(request.messages)
    if request.system.startswith("You are a sub-thinker"):
        if turn == 1:
            return tool_use_response(("find_invoice", {"number": "7"}))
        return '{"answer": "invoice 7 is unpaid: 120 EUR"}'
    if turn == 1:
        return tool_use_response(("sub_thinker", {"objective": "Is invoice 7 paid?"}))
    if turn == 3:
        return tool_use_response(
            ("refund", {"number": "7", "amount": 120}), ("delete_invoice", {"number": "7"})
        )
    return "Refunded 120 EUR on invoice 7; deleting it is not allowed."


# In production, export to your collector instead (opentelemetry-exporter-otlp's exporter).
exported = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exported))

keep = PermissionRule(decision="deny", tool="delete_*", reason="keep invoices")
policy = PermissionPolicy([keep])
hub = ToolHub(guard=policy, approver=approve)
instrument(hub, tracer_provider=provider)  # record_content=True adds prompts, arguments, results

clerk = Clerk(
    ThinkerDeclaration("standard", "short"),
    hub=hub,
    catalog=ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"}),
    conversations=ConversationService(":memory:"),
    client=ScriptedModel(script),
)
print(asyncio.run(clerk.run("Refund invoice 7, then delete it.")))

spans = exported.get_finished_spans()
print("one trace:", len({span.context.trace_id for span in spans}) == 1)
children: dict[int | None, list] = {}
for span in spans:
    children.setdefault(span.parent.span_id if span.parent else None, []).append(span)


def show(span, depth: int = 0) -> None:
    """Print a span, its events and its children, in the order they started."""
    said = span.attributes
    operation = said["gen_ai.operation.name"]
    if operation == "invoke_agent":
        detail = said["nucleo.run.outcome"]
    elif operation == "chat":
        detail = said["gen_ai.response.finish_reasons"][0]
    else:
        detail = f"{said['nucleo.permission.decision']}, {said['nucleo.call.outcome']}"
    print(f"{'  ' * depth}{span.name} ({detail})")
    for event in span.events:
        about = event.attributes.get("nucleo.approval.outcome")
        about = about or event.attributes.get("nucleo.refusal.reason")
        print(f"{'  ' * depth}  - {event.name}" + (f": {about}" if about else ""))
    for child in sorted(children.get(span.context.span_id, []), key=lambda s: s.start_time):
        show(child, depth + 1)


(root,) = children[None]
show(root)
