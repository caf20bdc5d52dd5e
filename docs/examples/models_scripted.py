"""One exchange with a model, answered by a ScriptedModel: no key, no network."""

import asyncio

from pydantic import BaseModel, Field

from nucleo_core import ToolRegistry, run_tool, tool
from nucleo_core.models import (
    AnswerSize,
    Message,
    ModelCatalog,
    ThinkerDeclaration,
    ToolResultBlock,
)
from nucleo_core.testing import ScriptedModel, override_client, tool_use_response
from nucleo_core.thinking import LLMCall


class TripAdvice(BaseModel):
    """The structured answer the model must give."""

    city: str
    go: bool
    reason: str = Field(description="One sentence.")


@tool(read_only=True, risk="low")
def forecast(city: str, days: int = 3) -> str:
    """Forecast the weather for a city.

    Args:
        city: The city's name, e.g. "Lisbon".
        days: How many days ahead.
    """
    return f"Sunny in {city} for the next {days} days, 24 C."


catalog = ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"})
advisor = ThinkerDeclaration(grade="standard", answer_size=AnswerSize.SHORT)
palette = ToolRegistry([forecast])

# What the "model" answers, in order: two tool calls (one to a tool it was never given), then
# an answer without "reason", then the corrected answer.
model = ScriptedModel(
    [
        tool_use_response(("forecast", {"city": "Lisbon", "days": 2}), ("book_flight", {})),
        '{"city": "Lisbon", "go": true}',
        '{"city": "Lisbon", "go": true, "reason": "Two sunny days are forecast."}',
    ]
)


def exchange(conversation: list[Message]) -> LLMCall[TripAdvice]:
    return LLMCall(
        declaration=advisor,
        messages=conversation,
        catalog=catalog,
        system="You advise on weekend trips.",
        tools=palette,
        output_type=TripAdvice,
    )


async def main() -> None:
    conversation = [Message.user("Should I go to Lisbon this weekend?")]
    with override_client(model):
        # 1. The model calls tools. Every call comes back as a ToolCall, an unusable one
        #    carrying its error rather than raising it.
        first = await exchange(conversation).run()
        print("seat:", first.seat.id if first.seat else None, "| final answer:", first.final_answer)
        results = []
        for call in first.tool_calls:
            if call.ok and call.provider is not None:
                output = await run_tool(call.provider.create(), call.input)
                results.append(ToolResultBlock(tool_use_id=call.id, content=str(output)))
                print(f"  {call.name}: ran -> {output}")
            else:
                results.append(
                    ToolResultBlock(tool_use_id=call.id, content=str(call.error), is_error=True)
                )
                print(f"  {call.name}: not run -> {call.error}")
        conversation += [*first.turns, Message(role="user", content=tuple(results))]

        # 2. The model answers without "reason": the answer is refused and corrected within the
        #    same exchange; the caller only ever sees an answer that fits TripAdvice.
        second = await exchange(conversation).run()
        print("answer:", repr(second.answer))
        print("corrections:", second.corrections, "| turns added:", len(second.turns))

    correction = model.requests[-1].messages[-1].text
    print("the correction the model read:", correction[: correction.index(". Answer again")])
    print("requests:", [(r.model, r.max_tokens, [t.name for t in r.tools]) for r in model.requests])


asyncio.run(main())
