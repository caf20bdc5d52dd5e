"""Read-only and risk are declared by the tool's author, never inferred from a name."""

from nucleo_core import Risk, provider_for, tool


@tool(read_only=True, risk="low")
def list_invoices(customer: str) -> list[str]:
    """List a customer's invoices."""
    return []


@tool(risk=Risk.MEDIUM)
def send_reminder(invoice_id: str) -> str:
    """Email a payment reminder for an invoice."""
    return "sent"


@tool  # no risk declared: it counts as high, and nothing claims it is read-only
def dispatch_agent(task: str) -> str:
    """Delegate a task to a helper agent."""
    return "started"


for function in (list_invoices, send_reminder, dispatch_agent):
    provider = provider_for(function)
    print(provider.name, provider.read_only, provider.risk, provider.risk_declared)

undeclared = provider_for(dispatch_agent)
assert undeclared.risk is Risk.HIGH
assert not undeclared.risk_declared
assert not undeclared.read_only
