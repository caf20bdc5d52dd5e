"""A SingleObjectiveThinker: a seat, a tool, a catalog, a guardrail and a typed answer."""

import asyncio

from pydantic import BaseModel, Field

from nucleo_core import (
    AnswerSize,
    ModelCatalog,
    ThinkerDeclaration,
    ToolHub,
    ToolSelector,
    tool,
)
from nucleo_core.testing import ScriptedModel, override_client, tool_use_response
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


@tool(read_only=True, risk="low")
def forecast(city: str) -> str:
    """Forecast tomorrow's weather in a city."""
    return f"{city}: sunny, 24 °C"


@tool(read_only=True, risk="low")
def air_quality(city: str) -> str:
    """Say how clean the air is in a city today."""
    return f"{city}: good"


class Outing(BaseModel):
    """The answer the model must give."""

    city: str
    go: bool
    reason: str = Field(description="One sentence.")


class OutingAdvisor(SingleObjectiveThinker[str, Outing]):
    """Says whether to go out: the forecast always at hand, the air quality on request."""

    declaration = ThinkerDeclaration("standard", AnswerSize.SHORT)

    @classmethod
    def declare_default_tools(cls):
        """In the palette from the first turn."""
        return [forecast]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """What request_tools may grant, once admission agrees."""
        return ToolSelector.of([air_quality])

    def validate_answer(self, answer: Outing) -> str | None:
        """Accept (None) or refuse with a reason the model reads."""
        if not answer.reason.endswith("."):
            return "Write the reason as a sentence, ending with a full stop."
        return None


# What the "model" answers, turn by turn: a tool call and a request for a tool in one turn,
# the granted tool, an answer the guardrail refuses, then the corrected answer.
model = ScriptedModel(
    [
        tool_use_response(
            ("forecast", {"city": "Lisbon"}), ("request_tools", {"tools": ["air_quality"]})
        ),
        tool_use_response(("air_quality", {"city": "Lisbon"})),
        '{"city": "Lisbon", "go": true, "reason": "Sunny, and the air is clean"}',
        '{"city": "Lisbon", "go": true, "reason": "Sunny, and the air is clean."}',
    ]
)

catalog = ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"})
advisor = OutingAdvisor(OutingAdvisor.declaration, hub=ToolHub(), catalog=catalog)
advisor.listeners.append(lambda event: print(f"streamed (done={event.done}): {event.text}"))


async def main() -> None:
    with override_client(model):
        answer = await advisor.run("Should I go out in Lisbon tomorrow?")
    print("answer:", repr(answer))
    offered = [[spec.name for spec in request.tools] for request in model.requests]
    print("air_quality offered, turn by turn:", ["air_quality" in names for names in offered])
    print(advisor.transcript())


asyncio.run(main())
