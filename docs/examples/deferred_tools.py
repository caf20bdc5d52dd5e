"""Provider-native deferral: the catalog sent deferred, each tool admitted at its first call."""

import asyncio
import logging

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
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


@tool(risk="medium")
def send_email(to: str, body: str) -> str:
    """Send an email message to a recipient."""
    return f"sent to {to}"


@tool(risk="low")
def create_calendar_event(title: str, day: str) -> str:
    """Schedule a meeting on the calendar."""
    return f"{title} booked on {day}"


class Assistant(SingleObjectiveThinker[str, str]):
    """An assistant whose catalog the model provider searches."""

    declaration = ThinkerDeclaration("standard", AnswerSize.SHORT)
    tool_offer = "provider"

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """The catalog, sent deferred."""
        return ToolSelector.of([send_email, create_calendar_event])


class NoEmail:
    """An admission guardrail: this team's assistants do not send email."""

    def __init__(self, thinker: object) -> None:
        self.thinker = thinker

    def check(self, provider):
        """Refuse, saying why (the model reads the reason)."""
        return Verdict.refuse("this assistant may not send email")


class DeferringModel(ScriptedModel):
    """A scripted client that sends deferred tools, as `AnthropicClient` does."""

    defers_tools = True


class PrintLog(logging.Handler):
    """Shows the nucleo.tools log line by line (a refused first call is logged there)."""

    def emit(self, record: logging.LogRecord) -> None:
        """Print the log line without its traceback."""
        print(f"log ({record.levelname}): {record.getMessage()}")


logging.getLogger("nucleo.tools").addHandler(PrintLog())
logging.getLogger("nucleo.tools").propagate = False

hub = ToolHub()
hub.register_admission(None, "send_email", NoEmail, name="no email")
# The "model" calls two deferred tools it found with the provider's search, then answers.
model = DeferringModel(
    [
        tool_use_response(
            ("create_calendar_event", {"title": "Standup", "day": "Monday"}),
            ("send_email", {"to": "team@example.com", "body": "Standup on Monday"}),
        ),
        "Standup is booked for Monday; I could not email the team.",
    ]
)
catalog = ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"})
assistant = Assistant(Assistant.declaration, hub=hub, catalog=catalog, client=model)


async def main() -> None:
    print("answer:", await assistant.run("Book the Monday standup and email the team."))
    for turn, request in enumerate(model.requests):
        deferred = {spec.name for spec in request.tools if getattr(spec, "deferred", False)}
        tools = [
            spec.name + (" (deferred)" if spec.name in deferred else "") for spec in request.tools
        ]
        print(f"turn {turn} sends:", tools)
    last = model.requests[1].messages[-1]
    for block in last.content:
        if isinstance(block, ToolResultBlock):
            print(f"result (error={block.is_error}):", block.content)
    for event in hub.admission_record:
        print(f"record: {event.name} granted={event.granted}")


asyncio.run(main())
