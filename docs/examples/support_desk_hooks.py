"""A plugin from code: catalog, reconciliation and admission hooks, seen through a thinker."""

from nucleo_core import Skill, SkillSelector, ThinkerBase, ToolHub, Verdict, hookimpl, tool


@tool(read_only=True, risk="low")
def search_tickets(query: str) -> list[str]:
    """Search the support tickets."""
    return [f"ticket about {query}"]


@tool(risk="high")
def close_ticket(ticket: int) -> str:
    """Close a support ticket."""
    return f"ticket {ticket} closed"


class SupportThinker(ThinkerBase):
    """Answers support questions; knows whether it is working out of hours."""

    def __init__(self, *, hub: ToolHub, out_of_hours: bool = False) -> None:
        super().__init__(hub=hub)
        self.out_of_hours = out_of_hours

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        """The skills its model may pull in."""
        return SkillSelector("triage")


class SupportDesk:
    """The plugin: an object whose methods are marked as nucleo hook implementations."""

    @hookimpl
    def nucleo_compatible_tools(self, thinker_class):
        """Offer the ticket tools to support thinkers, and nothing to the others."""
        if issubclass(thinker_class, SupportThinker):
            return [search_tickets, close_ticket]
        return None

    @hookimpl
    def nucleo_reconcile_catalog(self, thinker, catalog):
        """Withhold closing tickets out of hours."""
        if getattr(thinker, "out_of_hours", False):
            return ["close_ticket"]
        return None

    @hookimpl
    def nucleo_admit_tool(self, thinker, provider):
        """Refuse every high-risk tool; no opinion about the others."""
        if provider.risk == "high":
            return Verdict.refuse(f"{provider.name} is high risk: ask a supervisor to run it")
        return None

    @hookimpl
    def nucleo_admit_skill(self, skill):
        """Grant every skill; an implementation may take fewer arguments than its hook."""
        return Verdict.grant(f"{skill.name} is a support skill")


hub = ToolHub()
# Register plugins before the first thinker is built: a catalog is resolved once, then kept.
print(hub.plugins.register_plugin(SupportDesk(), name="support-desk").contributed)
hub.skills.register(
    Skill(
        name="triage",
        description="Sort a new ticket by urgency.",
        instructions="Search for similar tickets first; never close one.",
    )
)

day = SupportThinker(hub=hub)
print("catalog:", [provider.name for provider in day.tool_catalog()])
print(day.request_tools(["search_tickets", "close_ticket"]))
print(day.request_skill("triage"))

night = SupportThinker(hub=hub, out_of_hours=True)
print("catalog out of hours:", [provider.name for provider in night.tool_catalog()])

for event in hub.admission_record:
    print(event.kind, event.name, "granted" if event.granted else f"refused: {event.reason}")
