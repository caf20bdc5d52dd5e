"""Admission rules registered in code: which thinkers, which tools, and a guardrail per check."""

from nucleo_core import ThinkerBase, ToolHub, ToolSelector, Verdict, tool


@tool(read_only=True, risk="low")
def search_web(query: str) -> list[str]:
    """Search the web."""
    return [f"a page about {query}"]


@tool(read_only=True, risk="medium")
def paid_translate(text: str, language: str) -> str:
    """Translate text with a paid service."""
    return text


@tool(risk="high")
def delete_page(url: str) -> str:
    """Delete a page of the team's wiki."""
    return f"{url} deleted"


class Researcher(ThinkerBase):
    """Researches a question, within a budget."""

    def __init__(self, *, hub: ToolHub, budget_cents: int) -> None:
        super().__init__(hub=hub)
        self.budget_cents = budget_cents

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """The catalog its model may ask for."""
        return ToolSelector.of([search_web, paid_translate, delete_page])


class BudgetGuardrail:
    """Refuses paid tools to a thinker whose budget is spent; built for one check."""

    def __init__(self, thinker: Researcher) -> None:
        self.budget_cents = thinker.budget_cents

    def check(self, provider):
        """Grant while there is money left."""
        if self.budget_cents <= 0:
            return Verdict.refuse(f"{provider.name} costs money and your budget is spent")
        return Verdict.grant(f"{self.budget_cents} cents left")


class NoHighRisk:
    """Refuses every tool it is asked about."""

    def __init__(self, thinker: object) -> None:
        self.thinker = thinker

    def check(self, provider):
        """Refuse, saying why."""
        return Verdict.refuse(f"{provider.name} is high risk; no thinker may add it by itself")


hub = ToolHub()
# For Researcher (and its subclasses), tools whose name matches a glob. The factory, here the
# class itself, is called with the requesting thinker: every check gets a fresh guardrail.
hub.register_admission(Researcher, "paid_*", BudgetGuardrail, name="budget")
# For every thinker (None), the tools a predicate over the provider picks.
hub.register_admission(
    None, lambda provider: provider.risk == "high", NoHighRisk, name="no high risk"
)

funded = Researcher(hub=hub, budget_cents=40)
print(funded.request_tools(["search_web", "paid_translate", "delete_page"]))
broke = Researcher(hub=hub, budget_cents=0)
print(broke.request_tools(["paid_translate"]))

# Every decision is on the hub's record, with what each guardrail said.
for event in hub.admission_record:
    print(f"{event.thinker_class} asked for {event.name}: granted={event.granted}")
    for outcome in event.outcomes:
        print(f"    {outcome.guardrail}: {outcome.verdict}")
