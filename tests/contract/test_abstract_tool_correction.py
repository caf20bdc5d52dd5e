"""AbstractToolCorrectionTest, at the layer of one exchange: what the model reads is correctable.

Seed 002 ("Corrections are bounded and typed") and DESIGN.md ("Errors sent to the model are
correctable"). What the model reads about its own mistake names the field, the declared type,
the allowed names or the schema, and never echoes what the model sent: every payload here
carries a random secret, and no message the model (or the caller) reads may contain it.
"""

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from nucleo_core import (
    CorrectableError,
    InvalidToolInput,
    Phase,
    Tool,
    ToolRegistry,
    UnknownTool,
    tool,
)
from nucleo_core.errors import AnswerRefused, ResponseError, ResponseValidationError
from nucleo_core.models import (
    Message,
    ModelCatalog,
    ThinkerDeclaration,
    ToolResultBlock,
)
from nucleo_core.testing import ScriptedModel, text_response, tool_use_response
from nucleo_core.thinking import LLMCall, ResponseCorrection, ThinkingResponseHandler, ToolCall

# A secret is delimited by characters no contract text (schema, field, type, message) holds, so
# finding one in a message can only mean the payload was echoed.
SECRETS = st.text(min_size=1, max_size=40).map(lambda text: f"\u27e6{text}\u27e7")


class Forecast(BaseModel):
    city: str
    days: int = Field(ge=1, le=14)


@tool(name="forecast", read_only=True, risk="low")
class ForecastTool(Tool[Forecast, str]):
    """Forecast the weather of a city."""

    def run(self, input: Forecast) -> str:
        return f"{input.city}:{input.days}"


@tool(read_only=True, risk="low")
def convert(amount: float, currency: str) -> str:
    """Convert an amount into a currency."""
    return f"{amount} {currency}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return path


class Report(BaseModel):
    title: str
    count: int
    tags: list[str] = []


def registry() -> ToolRegistry:
    """The palette every test here resolves tool names through."""
    return ToolRegistry([ForecastTool, convert, delete_file])


def only_call(tool_name: str, tool_input: dict[str, Any] | str) -> ToolCall:
    """The one ToolCall the handler makes of a native tool use of ``tool_name``."""
    response = tool_use_response((tool_name, tool_input))
    the_handler: ThinkingResponseHandler[str] = ThinkingResponseHandler(tools=registry())
    result = the_handler.handle(response)
    (call,) = result.tool_calls
    assert call.id == response.tool_uses[0].id
    return call


def refusal(answer: str, *, output_type: object = Report, native_tools: bool = True) -> str:
    """What the model reads when its ``answer`` text is refused."""
    handler: ThinkingResponseHandler[object] = ThinkingResponseHandler(
        output_type, native_tools=native_tools
    )
    with pytest.raises(AnswerRefused) as refused:
        handler.handle(text_response(answer))
    assert isinstance(refused.value, CorrectableError)
    return str(refused.value)


# -- tool input ------------------------------------------------------------------------------------


@given(secret=SECRETS)
def test_a_wrongly_typed_field_is_named_with_its_declared_type_and_never_its_value(
    secret: str,
) -> None:
    """A tool input field of the wrong type is reported by path and declared type, not value."""
    call = only_call("forecast", {"city": "Oslo", "days": secret})

    assert call.ok is False
    assert call.input is None
    assert isinstance(call.error, InvalidToolInput)
    assert call.error.tool == "forecast"
    assert call.error.problems == ("days: expected integer",)
    assert secret not in str(call.error)
    assert call.raw_input == {"city": "Oslo", "days": secret}


def test_a_missing_field_is_named_as_required_with_its_declared_type() -> None:
    """A missing required field is reported as required, with the type it must have."""
    call = only_call("forecast", {"city": "Oslo"})

    assert isinstance(call.error, InvalidToolInput)
    assert call.error.problems == ("days: is required (declared type: integer)",)


def test_a_constraint_violation_names_the_constraint_not_the_value() -> None:
    """A value outside the declared range is reported by its bound, not by what was sent."""
    call = only_call("forecast", {"city": "Oslo", "days": 987654})

    assert isinstance(call.error, InvalidToolInput)
    assert "days" in str(call.error)
    assert "14" in str(call.error)
    assert "987654" not in str(call.error)


@given(secret=SECRETS)
def test_an_undeclared_field_is_refused_without_repeating_its_name(secret: str) -> None:
    """An invented key is refused by listing the declared fields, never by naming the key."""
    call = only_call("convert", {"amount": 1.5, "currency": "EUR", secret: 1})

    assert isinstance(call.error, InvalidToolInput)
    assert "declared fields: amount, currency" in str(call.error)
    assert secret not in str(call.error)


@given(secret=SECRETS, cut=st.integers(min_value=1, max_value=60))
def test_input_that_is_not_valid_json_is_refused_without_echoing_it(secret: str, cut: int) -> None:
    """Truncated JSON input is refused as not JSON; the text sent is never quoted back."""
    whole = json.dumps({"city": secret, "days": 3}, ensure_ascii=False)
    sent = whole[: min(cut, len(whole) - 1)]
    call = only_call("forecast", sent)

    assert isinstance(call.error, InvalidToolInput)
    assert call.error.problems == ("input: is not valid JSON; send a JSON object",)
    assert secret not in str(call.error)
    assert call.raw_input == sent


def test_input_that_is_json_but_not_an_object_names_the_declared_fields() -> None:
    """A JSON array where an object is expected is refused naming the fields to send."""
    call = only_call("forecast", "[1, 2]")

    assert isinstance(call.error, InvalidToolInput)
    assert "must be a JSON object" in str(call.error)
    assert "city" in str(call.error)
    assert "days" in str(call.error)


# -- tool names ------------------------------------------------------------------------------------


@given(secret=SECRETS)
def test_an_unknown_tool_lists_the_available_names_and_never_repeats_the_one_sent(
    secret: str,
) -> None:
    """A call to an unknown name carries UnknownTool listing every available name, in order."""
    call = only_call(secret, {"city": "Oslo"})

    assert isinstance(call.error, UnknownTool)
    assert call.error.available == ("forecast", "convert", "delete_file")
    assert "forecast, convert, delete_file" in str(call.error)
    assert secret not in str(call.error)
    assert call.name == secret
    assert call.provider is None


def test_the_available_names_of_an_unknown_tool_are_the_current_surface() -> None:
    """UnknownTool lists only what a call may reach now, not every registered name."""
    palette = registry()
    palette.enter_phase(Phase.read_only_tools("planning"))
    the_handler: ThinkingResponseHandler[str] = ThinkingResponseHandler(tools=palette)
    result = the_handler.handle(tool_use_response(("delete_file", {"path": "/tmp/x"})))

    (call,) = result.tool_calls
    assert isinstance(call.error, UnknownTool)
    assert call.error.available == ("forecast", "convert")


def test_a_call_with_no_registry_is_unknown_with_no_names_to_offer() -> None:
    """Without a palette every tool call is unknown, and the error says none is available."""
    the_handler: ThinkingResponseHandler[str] = ThinkingResponseHandler()
    result = the_handler.handle(tool_use_response(("forecast", {})))

    (call,) = result.tool_calls
    assert isinstance(call.error, UnknownTool)
    assert call.error.available == ()
    assert "(none)" in str(call.error)


def test_tool_errors_in_an_envelope_are_correctable_too() -> None:
    """Calls parsed from an envelope carry the same correctable errors as native ones."""
    text = json.dumps(
        {
            "final_answer": False,
            "tool_calls": [
                {"name": "forecast", "input": {"city": "Oslo", "days": "many"}},
                {"name": "teleport", "input": {}},
            ],
        }
    )
    handler: ThinkingResponseHandler[str] = ThinkingResponseHandler(
        tools=registry(), native_tools=False
    )
    invalid, unknown = handler.handle(text_response(text)).tool_calls

    assert isinstance(invalid.error, InvalidToolInput)
    assert invalid.error.problems == ("days: expected integer",)
    assert "many" not in str(invalid.error)
    assert isinstance(unknown.error, UnknownTool)
    assert "teleport" not in str(unknown.error)


# -- answers ---------------------------------------------------------------------------------------


@given(secret=SECRETS)
def test_the_refusal_of_a_wrongly_typed_answer_never_contains_the_payload(secret: str) -> None:
    """A refused structured answer is described by field, type and schema, never by its values."""
    answer = json.dumps({"title": secret, "count": secret}, ensure_ascii=False)
    message = refusal(answer)

    assert secret not in message
    assert "count" in message
    assert "integer" in message
    assert json.dumps(Report.model_json_schema()) in message


@given(secret=SECRETS)
def test_the_refusal_of_an_answer_missing_a_field_never_contains_the_payload(secret: str) -> None:
    """An answer lacking a required field is refused naming the field, not quoting the answer."""
    message = refusal(json.dumps({"title": secret, "tags": [secret]}, ensure_ascii=False))

    assert secret not in message
    assert "count" in message
    assert "required" in message


@given(secret=SECRETS, cut=st.integers(min_value=1, max_value=80))
def test_the_refusal_of_an_unparseable_answer_never_contains_the_payload(
    secret: str, cut: int
) -> None:
    """Truncated JSON is refused as not parseable without quoting any of it back."""
    whole = json.dumps({"title": secret, "count": 1}, ensure_ascii=False)
    message = refusal(whole[: min(cut, len(whole) - 1)])

    assert secret not in message
    assert "JSON" in message


@given(secret=SECRETS)
def test_the_refusal_of_an_envelope_answer_never_contains_the_payload(secret: str) -> None:
    """In envelope mode, a refused answer and a refused envelope never echo what was sent."""
    wrong_answer = {"final_answer": True, "answer": {"title": secret, "count": secret}}
    no_answer = {"final_answer": True, "reasoning": secret}
    not_bool = {"final_answer": secret, "answer": {"title": "t", "count": 1}}
    for envelope in (wrong_answer, no_answer, not_bool):
        message = refusal(json.dumps(envelope, ensure_ascii=False), native_tools=False)
        assert secret not in message
    assert secret not in refusal(secret, native_tools=False)


@given(secret=SECRETS)
def test_nothing_the_model_or_the_caller_reads_after_refusals_contains_the_payload(
    secret: str,
) -> None:
    """Correction turns sent to the model and the exhaustion error never quote the answer."""
    bad = json.dumps({"title": secret, "count": secret}, ensure_ascii=False)
    model = ScriptedModel(lambda request: bad)
    call: LLMCall[Report] = LLMCall(
        declaration=ThinkerDeclaration("standard", 1_000),
        messages=(Message.user("Report."),),
        catalog=ModelCatalog(grades={"standard": "anthropic:seat-model"}),
        output_type=Report,
        correction=ResponseCorrection(2),
        client=model,
    )
    with pytest.raises(ResponseError) as raised:
        asyncio.run(call.run())

    assert isinstance(raised.value, ResponseValidationError)
    assert secret not in str(raised.value)
    corrections = [request.messages[-1] for request in model.requests[1:]]
    assert len(corrections) == 2
    for correction in corrections:
        assert correction.role == "user"
        assert secret not in correction.text
        assert not any(isinstance(block, ToolResultBlock) for block in correction.content)


class Request(BaseModel):
    input: str
    priority: int


class Line(BaseModel):
    count: int


class Batch(BaseModel):
    lines: list[Line]


@pytest.mark.parametrize(
    ("output_type", "answer", "path"),
    [
        (Report, {"title": "t", "count": "x"}, "answer.count"),
        (Batch, {"lines": [{"count": 1}, {"count": "x"}]}, "answer.lines[1].count"),
        (list[int], [1, "x"], "answer[1]"),
        (Request, {"input": 3, "priority": 1}, "answer.input"),
    ],
)
def test_the_refusal_names_the_full_path_of_the_failing_field(
    output_type: object, answer: object, path: str
) -> None:
    """The refused field is named by its full path from the answer, whatever its name."""
    message = refusal(json.dumps(answer), output_type=output_type)

    assert f"{path}: expected " in message
