"""The bounds of one exchange: truncation escalation, and a correction budget that runs out."""

import asyncio

from pydantic import BaseModel

from nucleo_core.errors import ResponseParseError, ResponseValidationError
from nucleo_core.models import AnswerSize, Message, ModelCatalog, StopReason, ThinkerDeclaration
from nucleo_core.testing import ScriptedModel, override_client, text_response
from nucleo_core.thinking import LLMCall, ResponseCorrection


class Summary(BaseModel):
    """A structured answer."""

    title: str
    bullets: list[str]


catalog = ModelCatalog.from_mapping(
    {
        "grades": {"standard": "anthropic:claude-sonnet-4-5"},
        "entries": {"anthropic:claude-sonnet-4-5": {"max_output_tokens": 4_096}},
    }
)


def summarize(model: ScriptedModel, budget: int = 2) -> Summary | None:
    call = LLMCall(
        declaration=ThinkerDeclaration(grade="standard", answer_size=AnswerSize.SHORT),
        messages=[Message.user("Summarize the meeting notes.")],
        catalog=catalog,
        output_type=Summary,
        correction=ResponseCorrection(budget=budget),
    )
    with override_client(model):
        result = asyncio.run(call.run())
    print("escalations:", result.escalations, "| corrections:", result.corrections)
    return result.answer


# An answer cut off at the budget is asked again with twice the budget, up to the ceiling.
cut = text_response('{"title": "Weekly sync", "bullets": ["Ship', stop_reason=StopReason.MAX_TOKENS)
whole = '{"title": "Weekly sync", "bullets": ["Ship on Friday"]}'
model = ScriptedModel([cut, cut, whole])
print(summarize(model))
print("budgets asked:", [request.max_tokens for request in model.requests])

# When the correction budget is spent, a typed error says what was wrong, never the answer.
try:
    summarize(ScriptedModel(lambda request: '{"title": "Weekly sync"}'), budget=1)
except ResponseValidationError as error:
    print(type(error).__name__, f"(attempts={error.attempts}):", error)
try:
    summarize(ScriptedModel(lambda request: "Sure! Here is a summary."), budget=0)
except ResponseParseError as error:
    print(type(error).__name__, f"(attempts={error.attempts}):", error)
