"""A model without native tool calling answers in the JSON envelope; nucleo parses it the same."""

import asyncio

from nucleo_core import ToolRegistry, run_tool, tool
from nucleo_core.models import AnswerSize, Message, ModelCatalog, ThinkerDeclaration
from nucleo_core.testing import ScriptedModel, override_client
from nucleo_core.thinking import LLMCall

LOCAL = "openai-compatible:http://127.0.0.1:11434/v1#llama3.2"


@tool(read_only=True, risk="low")
def forecast(city: str) -> str:
    """Forecast the weather for a city."""
    return f"Rain in {city}."


catalog = ModelCatalog.from_mapping(
    {"grades": {"fast": LOCAL}, "entries": {LOCAL: {"native_tools": False}}}
)
model = ScriptedModel(
    [
        '{"final_answer": false, "tool_calls": [{"name": "forecast", "input": {"city": "Porto"}}],'
        ' "reasoning": "I need the forecast first."}',
        '```json\n{"final_answer": true, "answer": "Take an umbrella.", "reasoning": ""}\n```',
    ]
)


def exchange(conversation: list[Message]) -> LLMCall[str]:
    return LLMCall(
        declaration=ThinkerDeclaration(grade="fast", answer_size=AnswerSize.SHORT),
        messages=conversation,
        catalog=catalog,
        system="You answer weather questions briefly.",
        tools=ToolRegistry([forecast]),
    )


async def main() -> None:
    conversation = [Message.user("Do I need an umbrella in Porto?")]
    with override_client(model):
        first = await exchange(conversation).run()
        (call,) = first.tool_calls
        print("tool call:", call.name, dict(call.raw_input), "| ok:", call.ok)
        print("minted id:", call.minted_id, "| reasoning:", first.reasoning)
        # The call came from text (its id was minted here), so its result goes back as text.
        result = await run_tool(call.provider.create(), call.input) if call.provider else None
        conversation += [*first.turns, Message.user(f"{call.name} returned: {result}")]
        second = await exchange(conversation).run()
        print("answer:", second.answer)

    request = model.requests[0]
    print("tool definitions sent natively:", len(request.tools))
    print("system text sent:")
    print(request.system)


asyncio.run(main())
