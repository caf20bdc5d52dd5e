"""search_tools: the model finds tools by what they do; admission decides which it gets."""

import asyncio
import json

from nucleo_core import (
    AnswerSize,
    ModelCatalog,
    ThinkerDeclaration,
    ToolHub,
    ToolSelector,
    Verdict,
    tool,
)
from nucleo_core.models import ToolResultBlock
from nucleo_core.testing import ScriptedModel, override_client, tool_use_response
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


@tool(risk="medium")
def send_email(to: str, body: str) -> str:
    """Send an email message to a recipient."""
    return f"sent to {to}"


@tool(risk="low")
def create_calendar_event(title: str, day: str) -> str:
    """Schedule a meeting on the calendar."""
    return f"{title} on {day}"


@tool(read_only=True, risk="low")
def read_weather_forecast(city: str) -> str:
    """Read the weather forecast for a city."""
    return f"{city}: sunny"


class Assistant(SingleObjectiveThinker[str, str]):
    """An assistant whose catalog is searched rather than listed."""

    declaration = ThinkerDeclaration("standard", AnswerSize.SHORT)
    tool_offer = "search"

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """The catalog search_tools ranks."""
        return ToolSelector.of([send_email, create_calendar_event, read_weather_forecast])


class NoEmail:
    """An admission guardrail: this team's assistants do not send email."""

    def __init__(self, thinker: object) -> None:
        self.thinker = thinker

    def check(self, provider):
        """Refuse, saying why (the model reads the reason)."""
        return Verdict.refuse("this assistant may not send email; draft the text instead")


hub = ToolHub()
hub.register_admission(None, "send_email", NoEmail, name="no email")

# The "model": a search, a call to what it was granted, a wrong name, then its answer.
model = ScriptedModel(
    [
        tool_use_response(("search_tools", {"query": "email or schedule a meeting", "limit": 2})),
        tool_use_response(("create_calendar_event", {"title": "Standup", "day": "Monday"})),
        tool_use_response(("request_tools", {"tools": ["read_wether_forecast"]})),
        "Standup is booked for Monday.",
    ]
)
catalog = ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"})
assistant = Assistant(Assistant.declaration, hub=hub, catalog=catalog)


def results(turn: int) -> list[str]:
    """What the tool results sent back with the request of ``turn`` said."""
    last = model.requests[turn].messages[-1]
    return [block.content for block in last.content if isinstance(block, ToolResultBlock)]


async def main() -> None:
    with override_client(model):
        print("answer:", await assistant.run("Book the Monday standup and email the team."))
    print("first turn offers:", [spec.name for spec in model.requests[0].tools])
    found = json.loads(results(1)[0])
    print("granted:", [entry["name"] for entry in found["granted"]])
    print("refused:", found["refused"])
    print("second turn offers:", [spec.name for spec in model.requests[1].tools])
    print("a wrong name:", results(3)[0])
    for event in hub.admission_record:
        print(f"record: {event.name} granted={event.granted}")


asyncio.run(main())
