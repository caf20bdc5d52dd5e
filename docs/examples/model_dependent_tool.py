"""Model-dependent tools: a tool that calls a model itself runs on its thinker's seat."""

import asyncio
from collections import deque
from typing import Annotated

from pydantic import BaseModel

from nucleo_core import (
    ModelCatalog,
    ModelDependent,
    ModelSeat,
    ModelSeatUnavailable,
    SeatGrade,
    SingleObjectiveThinker,
    ThinkerDeclaration,
    Tool,
    ToolHub,
    provider_for,
    run_tool,
    tool,
)
from nucleo_core.testing import ScriptedModel, tool_use_response


class Notes(BaseModel):
    """Notes to work on."""

    text: str


@tool(read_only=True, risk="low")
class Summarize(ModelDependent, Tool[Notes, str]):
    """Summarize notes in one sentence."""

    async def run(self, input: Notes) -> str:
        """Ask a model, on the seat of the thinker this tool runs for."""
        return await self.seat.complete(input.text, system="Summarize in one sentence.")


@tool(read_only=True, risk="low")
async def title(text: str, seat: Annotated[ModelSeat, SeatGrade("fast")]) -> str:
    """Give notes a short title."""
    return await seat.complete(text, system="Title this in at most five words.")


class NoteTaker(SingleObjectiveThinker[str, str]):
    """Files notes under a title, with a summary."""

    @classmethod
    def declare_default_tools(cls):
        """Both tools, from the first turn."""
        return [Summarize, title]


catalog = ModelCatalog(
    grades={"standard": "anthropic:claude-sonnet-4-5", "fast": "anthropic:claude-haiku-4-5"}
)


def scripted_model() -> ScriptedModel:
    """A "model" that answers the tools' requests by saying which model each one reached."""
    turns = deque(
        [
            tool_use_response(("summarize", {"text": "..."}), ("title", {"text": "..."})),
            "Filed under its title, with its summary.",
        ]
    )

    def answer(request):
        if request.system.startswith(("Summarize", "Title")):
            return f"answered by {request.model}"
        return turns.popleft()  # the thinker's own turns

    return ScriptedModel(answer)


def asked_by(request) -> str:
    """Who made a request: one of the tools (by its system text), or the thinker."""
    tool_request = request.system.startswith(("Summarize", "Title"))
    return request.system.split()[0] if tool_request else "thinker"


async def main() -> None:
    for pin in (None, "openai:gpt-4.1"):
        model = scripted_model()
        thinker = NoteTaker(
            ThinkerDeclaration("standard", "short"),
            hub=ToolHub(),
            catalog=catalog,
            client=model,
            pin=pin,
        )
        await thinker.run("File today's meeting notes.")
        print(f"pin={pin}:")
        for request in model.requests:
            print(f"  {asked_by(request):>9} -> {request.model}")

    # Created without a thinker (in a test, say), the tool has no seat, and says so when used.
    summarize = provider_for(Summarize)
    try:
        await run_tool(summarize.create(parent=None), Notes(text="..."))
    except ModelSeatUnavailable as error:
        print(str(error).split(". ")[0] + ".")


asyncio.run(main())
