"""A tool that declares its own guardrail: it is asked wherever the tool is requested."""

from nucleo_core import ThinkerBase, ToolHub, ToolSelector, Verdict, tool


class NeedsApprover:
    """Grants only to a thinker that names the person approving its payments."""

    def __init__(self, thinker: object) -> None:
        self.approver = getattr(thinker, "approver", None)

    def check(self, provider):
        """Refuse unless someone approves."""
        if self.approver is None:
            return Verdict.refuse(f"{provider.name} needs a human approver, and you have none")
        return Verdict.grant(f"approved by {self.approver}")


@tool(risk="high", guardrails=[NeedsApprover])
def pay_invoice(invoice: str, amount_cents: int) -> str:
    """Pay a supplier's invoice."""
    return f"paid {amount_cents / 100:.2f} for {invoice}"


class Bookkeeper(ThinkerBase):
    """Keeps the books; may be given an approver."""

    def __init__(self, *, hub: ToolHub, approver: str | None = None) -> None:
        super().__init__(hub=hub)
        self.approver = approver

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """The catalog its model may ask for."""
        return ToolSelector.of([pay_invoice])


hub = ToolHub()  # no rule registered: the tool brings its own guardrail
print(Bookkeeper(hub=hub).request_tools(["pay_invoice"]))
print(Bookkeeper(hub=hub, approver="Dana").request_tools(["pay_invoice"]))
for event in hub.admission_record:
    said = [(outcome.guardrail, outcome.verdict.reason) for outcome in event.outcomes]
    print(event.granted, said)
