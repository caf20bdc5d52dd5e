"""LLMCallCorrectionTest (seed 002: "Corrections are bounded and typed").

A refused answer goes back to the model as a correction turn under `ResponseCorrection`'s
budget; when the budget is spent a parse failure raises `ResponseParseError` and a missing or
wrong field `ResponseValidationError`. A truncated answer is asked again with a doubled budget up
to the seat's ceiling. Every exchange here runs against `ScriptedModel`.
"""

import asyncio
import dataclasses
import json
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from nucleo_core import InvalidToolInput, MisuseError, ToolRegistry, tool
from nucleo_core.errors import (
    AnswerRefused,
    ModelServerError,
    ResponseError,
    ResponseParseError,
    ResponseValidationError,
)
from nucleo_core.models import (
    AnswerSize,
    Message,
    ModelCatalog,
    ModelEntry,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ThinkerDeclaration,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.testing import ScriptedModel, text_response, tool_use_response
from nucleo_core.thinking import LLMCall, ResponseCorrection, ThinkingResponseHandler


class Report(BaseModel):
    title: str
    count: int


@tool(read_only=True, risk="low")
def lookup(city: str, days: int) -> str:
    """Look up the weather of a city."""
    return f"{city}:{days}"


GOOD = '{"title": "weekly", "count": 3}'
MISSING_COUNT = '{"title": "weekly"}'
WRONG_COUNT = '{"title": "weekly", "count": "three"}'
NOT_JSON = '{"title": "weekly", "cou'
PROMPT = (Message.user("Write the weekly report."),)


def seat(*, ceiling: int = 8_192, native_tools: bool = True) -> ModelEntry:
    """The catalog entry every exchange here is seated on."""
    entry = ModelEntry.parse("anthropic:seat-model").with_limits(max_output_tokens=ceiling)
    return dataclasses.replace(entry, native_tools=native_tools)


def catalog(entry: ModelEntry | None = None) -> ModelCatalog:
    """A catalog mapping ``standard`` to ``entry``."""
    entry = entry if entry is not None else seat()
    return ModelCatalog([entry], grades={"standard": entry.id})


def make_call(
    model: ScriptedModel,
    *,
    output_type: object = Report,
    budget: int = 2,
    answer_size: AnswerSize | int = AnswerSize.SHORT,
    entry: ModelEntry | None = None,
    tools: ToolRegistry | None = None,
) -> LLMCall[Any]:
    """An exchange on the ``standard`` grade, answered by ``model``."""
    return LLMCall(
        declaration=ThinkerDeclaration("standard", answer_size),
        messages=PROMPT,
        catalog=catalog(entry),
        output_type=output_type,
        correction=ResponseCorrection(budget),
        tools=tools,
        client=model,
    )


def refusal_of(
    response: ModelResponse,
    *,
    output_type: object = Report,
    tools: ToolRegistry | None = None,
    native_tools: bool = True,
) -> AnswerRefused:
    """The refusal the handler gives ``response`` (the text a correction turn must carry)."""
    handler: ThinkingResponseHandler[object] = ThinkingResponseHandler(
        output_type, tools=tools, native_tools=native_tools
    )
    with pytest.raises(AnswerRefused) as refused:
        handler.handle(response)
    return refused.value


def always(answer: str | ModelResponse) -> Callable[[ModelRequest], ModelResponse | str]:
    """A script that gives the same answer to every request."""
    return lambda request: answer


def truncated(text: str = NOT_JSON, *, output_tokens: int = 0) -> ModelResponse:
    """An answer cut off at the budget."""
    return ModelResponse(
        content=(TextBlock(text=text),),
        stop_reason=StopReason.MAX_TOKENS,
        usage=Usage(input_tokens=10, output_tokens=output_tokens),
    )


# -- corrections -----------------------------------------------------------------------------------


def test_a_refused_answer_goes_back_as_a_correction_turn_and_the_corrected_answer_is_accepted() -> (
    None
):
    """A refused answer is sent back with its refusal, and the corrected answer is returned."""
    model = ScriptedModel([MISSING_COUNT, GOOD])
    result = asyncio.run(make_call(model).run())

    assert result.answer == Report(title="weekly", count=3)
    assert result.final_answer is True
    assert result.corrections == 1
    assert len(model.requests) == 2
    first, second = model.requests
    assert first.messages == PROMPT
    refused = text_response(MISSING_COUNT)
    assert second.messages == (
        *PROMPT,
        refused.as_message(),
        Message(role="user", content=(TextBlock(text=str(refusal_of(refused))),)),
    )


def test_the_refusal_text_of_a_correction_turn_names_the_field_and_its_declared_type() -> None:
    """The correction a missing field earns names that field and its declared type."""
    model = ScriptedModel([MISSING_COUNT, GOOD])
    asyncio.run(make_call(model).run())

    correction = model.requests[1].messages[-1]
    assert correction.role == "user"
    assert "count" in correction.text
    assert "integer" in correction.text


@pytest.mark.parametrize("budget", [0, 1, 2, 3, 5])
def test_correction_turns_are_bounded_by_the_budget(budget: int) -> None:
    """A model that never answers acceptably is asked exactly budget + 1 times, then it raises."""
    model = ScriptedModel(always(MISSING_COUNT))
    with pytest.raises(ResponseValidationError) as raised:
        asyncio.run(make_call(model, budget=budget).run())

    assert len(model.requests) == budget + 1
    assert raised.value.attempts == budget + 1


def test_budget_zero_raises_on_the_first_refusal_without_a_correction_turn() -> None:
    """With a budget of 0 the first refused answer raises at once: one request, no correction."""
    model = ScriptedModel([NOT_JSON, GOOD])
    with pytest.raises(ResponseParseError) as raised:
        asyncio.run(make_call(model, budget=0).run())

    assert len(model.requests) == 1
    assert model.remaining == 1
    assert raised.value.attempts == 1


def test_exhaustion_on_a_parse_failure_raises_response_parse_error() -> None:
    """An answer that never parses ends in ResponseParseError, not ResponseValidationError."""
    model = ScriptedModel(always(NOT_JSON))
    with pytest.raises(ResponseError) as raised:
        asyncio.run(make_call(model, budget=2).run())

    assert type(raised.value) is ResponseParseError
    assert raised.value.attempts == 3
    assert isinstance(raised.value.__cause__, AnswerRefused)
    assert raised.value.__cause__.kind == "parse"


def test_exhaustion_on_a_missing_required_field_raises_response_validation_error() -> None:
    """An answer that always lacks a required field ends in ResponseValidationError naming it."""
    model = ScriptedModel(always(MISSING_COUNT))
    with pytest.raises(ResponseError) as raised:
        asyncio.run(make_call(model, budget=1).run())

    assert type(raised.value) is ResponseValidationError
    assert raised.value.attempts == 2
    assert "count" in str(raised.value)
    assert isinstance(raised.value.__cause__, AnswerRefused)
    assert raised.value.__cause__.kind == "validation"


def test_exhaustion_on_a_wrong_field_type_raises_response_validation_error() -> None:
    """An answer whose field always has the wrong type ends in ResponseValidationError."""
    model = ScriptedModel(always(WRONG_COUNT))
    with pytest.raises(ResponseError) as raised:
        asyncio.run(make_call(model, budget=1).run())

    assert type(raised.value) is ResponseValidationError
    assert "count" in str(raised.value)


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ([NOT_JSON, MISSING_COUNT], ResponseValidationError),
        ([MISSING_COUNT, NOT_JSON], ResponseParseError),
    ],
)
def test_the_last_refusal_decides_which_error_exhaustion_raises(
    answers: list[str], expected: type[ResponseError]
) -> None:
    """When failures of both kinds occur, the refusal that spent the budget picks the error."""
    model = ScriptedModel(answers)
    with pytest.raises(ResponseError) as raised:
        asyncio.run(make_call(model, budget=1).run())

    assert type(raised.value) is expected
    assert raised.value.attempts == 2


def test_an_empty_text_answer_is_refused_and_corrected_rather_than_returned() -> None:
    """A blank answer to a text thinker is never returned: it is corrected like any refusal."""
    model = ScriptedModel(["   ", "The report."])
    result = asyncio.run(make_call(model, output_type=str).run())

    assert result.answer == "The report."
    assert result.corrections == 1


def test_a_correction_turn_answers_every_tool_use_of_the_refused_answer_with_an_error_result() -> (
    None
):
    """Each tool_use of a refused answer gets one is_error tool_result, before the refusal text."""
    uses = (
        ToolUseBlock(id="toolu_a", name="lookup", input={"city": "Oslo", "days": 2}),
        ToolUseBlock(id="toolu_b", name="no_such_tool", input={}),
        ToolUseBlock(id="toolu_c", name="lookup", input='{"city": '),
    )
    # Native tool uses beside an envelope whose final_answer is not a boolean: refused.
    refused = ModelResponse(
        content=(TextBlock(text='{"final_answer": "maybe"}'), *uses),
        stop_reason=StopReason.TOOL_USE,
    )
    registry = ToolRegistry([lookup])
    model = ScriptedModel([refused, GOOD])
    asyncio.run(make_call(model, tools=registry).run())

    correction = model.requests[1].messages[-1]
    results = [block for block in correction.content if isinstance(block, ToolResultBlock)]
    assert correction.role == "user"
    assert [result.tool_use_id for result in results] == ["toolu_a", "toolu_b", "toolu_c"]
    assert all(result.is_error for result in results)
    assert correction.content[: len(results)] == tuple(results)
    assert correction.content[-1] == TextBlock(text=str(refusal_of(refused, tools=registry)))
    assert model.requests[1].messages[-2] == refused.as_message()


def test_a_correction_turn_for_an_answer_without_tool_uses_carries_only_the_refusal() -> None:
    """A refused envelope with no native tool use is corrected by one text block: the refusal."""
    entry = seat(native_tools=False)
    not_an_envelope = "Here is the report: weekly, 3."
    model = ScriptedModel(
        [not_an_envelope, json.dumps({"final_answer": True, "answer": json.loads(GOOD)})]
    )
    result = asyncio.run(make_call(model, entry=entry).run())

    assert result.answer == Report(title="weekly", count=3)
    correction = model.requests[1].messages[-1]
    refusal = refusal_of(text_response(not_an_envelope), native_tools=False)
    assert correction.content == (TextBlock(text=str(refusal)),)


def test_an_unresolvable_tool_call_is_returned_to_the_caller_and_spends_no_correction() -> None:
    """A tool call with bad input is kept with its error for the loop to answer, not corrected."""
    answer = tool_use_response(("lookup", {"city": "Oslo", "days": "soon"}))
    model = ScriptedModel([answer])
    result = asyncio.run(make_call(model, tools=ToolRegistry([lookup])).run())

    assert len(model.requests) == 1
    assert result.corrections == 0
    assert result.final_answer is False
    (call,) = result.tool_calls
    assert call.id == answer.tool_uses[0].id
    assert isinstance(call.error, InvalidToolInput)


def test_a_provider_error_is_not_corrected() -> None:
    """A model provider's failure propagates at once; corrections are for answers, not outages."""
    model = ScriptedModel([ModelServerError("overloaded", provider="scripted"), GOOD])
    with pytest.raises(ModelServerError):
        asyncio.run(make_call(model).run())

    assert len(model.requests) == 1


@given(
    budget=st.integers(min_value=0, max_value=4),
    refused=st.lists(st.sampled_from([NOT_JSON, MISSING_COUNT, WRONG_COUNT]), max_size=6),
)
def test_any_sequence_of_refusals_is_corrected_within_the_budget_or_raises(
    budget: int, refused: list[str]
) -> None:
    """Some refused answers then a good one: accepted iff the refusals fit in the budget."""
    model = ScriptedModel([*refused, GOOD])
    call = make_call(model, budget=budget)
    if len(refused) <= budget:
        result = asyncio.run(call.run())
        assert result.answer == Report(title="weekly", count=3)
        assert result.corrections == len(refused)
        assert len(model.requests) == len(refused) + 1
        assert len(result.turns) == 2 * len(refused) + 1
    else:
        with pytest.raises(ResponseError) as raised:
            asyncio.run(call.run())
        last = refused[budget]
        assert isinstance(
            raised.value, ResponseParseError if last == NOT_JSON else ResponseValidationError
        )
        assert raised.value.attempts == budget + 1
        assert len(model.requests) == budget + 1


# -- the transcript of the exchange ----------------------------------------------------------------


def test_turns_list_rejected_answers_and_corrections_then_the_accepted_answer() -> None:
    """`turns` is every rejected answer with its correction, in order, then the accepted answer."""
    answers = [text_response(NOT_JSON), text_response(MISSING_COUNT), text_response(GOOD)]
    model = ScriptedModel(answers)
    call = make_call(model, budget=2)
    result = asyncio.run(call.run())

    correction = ResponseCorrection()
    assert result.turns == (
        answers[0].as_message(),
        correction.turn(answers[0], refusal_of(answers[0])),
        answers[1].as_message(),
        correction.turn(answers[1], refusal_of(answers[1])),
        answers[2].as_message(),
    )
    assert result.corrections == 2
    assert call.messages == PROMPT
    assert model.requests[-1].messages == (*PROMPT, *result.turns[:-1])


def test_an_accepted_first_answer_is_the_only_turn() -> None:
    """An exchange accepted at once adds exactly one turn: the answer."""
    answer = text_response(GOOD)
    result = asyncio.run(make_call(ScriptedModel([answer])).run())

    assert result.turns == (answer.as_message(),)
    assert result.corrections == 0
    assert result.escalations == 0


def test_usage_is_summed_over_every_attempt() -> None:
    """The usage of an exchange is the sum over escalated, refused and accepted answers."""
    answers = [
        truncated(output_tokens=1_024),
        dataclasses.replace(text_response(MISSING_COUNT), usage=Usage(input_tokens=20)),
        dataclasses.replace(
            text_response(GOOD),
            usage=Usage(
                input_tokens=40, output_tokens=7, cache_read_tokens=30, cache_write_tokens=5
            ),
        ),
    ]
    model = ScriptedModel(answers)
    result = asyncio.run(make_call(model).run())

    assert result.usage.input_tokens == 10 + 20 + 40
    assert result.usage.output_tokens == 1_024 + 0 + 7
    assert result.usage.cache_read_tokens == 30
    assert result.usage.cache_write_tokens == 5


def test_provider_specific_token_counts_are_summed_too() -> None:
    """Counts a provider reports beyond the standard four (reasoning tokens) survive the sum."""
    answers = [
        dataclasses.replace(
            text_response(MISSING_COUNT), usage=Usage(extra={"reasoning_tokens": 100})
        ),
        dataclasses.replace(text_response(GOOD), usage=Usage(extra={"reasoning_tokens": 50})),
    ]
    result = asyncio.run(make_call(ScriptedModel(answers)).run())

    assert result.usage.extra == {"reasoning_tokens": 150}


# -- truncation escalation -------------------------------------------------------------------------


def test_a_truncated_answer_is_asked_again_with_double_the_budget() -> None:
    """Each truncated answer doubles the next request's budget; the accepted one ends it."""
    model = ScriptedModel([truncated(), truncated(), GOOD])
    result = asyncio.run(make_call(model, answer_size=1_000, entry=seat(ceiling=8_000)).run())

    assert [request.max_tokens for request in model.requests] == [1_000, 2_000, 4_000]
    assert result.escalations == 2
    assert result.corrections == 0
    assert result.answer == Report(title="weekly", count=3)


def test_truncated_answers_are_not_turns_of_the_exchange() -> None:
    """An escalated answer is discarded: the conversation never sees the truncated text."""
    model = ScriptedModel([truncated(), GOOD])
    result = asyncio.run(make_call(model, answer_size=1_000, entry=seat(ceiling=8_000)).run())

    assert result.turns == (text_response(GOOD).as_message(),)
    assert model.requests[1].messages == PROMPT


def test_escalation_stops_at_the_seat_ceiling() -> None:
    """The budget is capped at max_output_tokens; a truncated answer there goes to the handler."""
    model = ScriptedModel(always(truncated()))
    with pytest.raises(ResponseParseError):
        asyncio.run(make_call(model, budget=0, answer_size=1_000, entry=seat(ceiling=3_000)).run())

    assert [request.max_tokens for request in model.requests] == [1_000, 2_000, 3_000]


def test_a_truncated_answer_at_the_ceiling_is_corrected_at_the_ceiling() -> None:
    """Past the ceiling a truncated answer is handled like any other; corrections keep the cap."""
    model = ScriptedModel([truncated(), truncated(), GOOD])
    result = asyncio.run(
        make_call(model, budget=1, answer_size=1_000, entry=seat(ceiling=2_000)).run()
    )

    assert [request.max_tokens for request in model.requests] == [1_000, 2_000, 2_000]
    assert result.escalations == 1
    assert result.corrections == 1


def test_an_answer_size_above_the_ceiling_starts_at_the_ceiling() -> None:
    """The first budget never exceeds the seat's ceiling, so there is nothing to escalate to."""
    model = ScriptedModel(always(truncated()))
    with pytest.raises(ResponseParseError):
        asyncio.run(
            make_call(model, budget=0, answer_size=AnswerSize.LONG, entry=seat(ceiling=4_096)).run()
        )

    assert [request.max_tokens for request in model.requests] == [4_096]


def test_a_correction_after_an_escalation_keeps_the_escalated_budget() -> None:
    """The budget a truncation earned is not lost when the next answer is corrected."""
    model = ScriptedModel([truncated(), MISSING_COUNT, GOOD])
    result = asyncio.run(make_call(model, answer_size=1_000, entry=seat(ceiling=8_000)).run())

    assert [request.max_tokens for request in model.requests] == [1_000, 2_000, 2_000]
    assert (result.escalations, result.corrections) == (1, 1)


@given(
    answer_tokens=st.integers(min_value=1, max_value=20_000),
    ceiling=st.integers(min_value=1, max_value=200_000),
)
def test_escalation_doubles_up_to_the_ceiling_and_then_stops(
    answer_tokens: int, ceiling: int
) -> None:
    """For any answer size and ceiling, budgets start capped, double, end at the ceiling, stop."""
    model = ScriptedModel(always(truncated()))
    with pytest.raises(ResponseParseError):
        asyncio.run(
            make_call(model, budget=0, answer_size=answer_tokens, entry=seat(ceiling=ceiling)).run()
        )

    budgets = [request.max_tokens for request in model.requests]
    assert budgets[0] == min(answer_tokens, ceiling)
    assert budgets[-1] == ceiling
    assert all(later == min(2 * earlier, ceiling) for earlier, later in pairwise(budgets))


# -- the budget itself -----------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [-1, True, 1.5, "2"])
def test_a_correction_budget_must_be_a_non_negative_integer(budget: object) -> None:
    """ResponseCorrection refuses a negative, boolean or non-integer budget as misuse."""
    with pytest.raises(MisuseError):
        ResponseCorrection(budget)  # type: ignore[arg-type]
