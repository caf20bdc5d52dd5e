"""ThinkerPinTest, at the level of one call (seed 002: "The pin reaches every call").

A pin (an entry id) beats the declared grade and seats every request of the exchange - the
first, each correction, each truncation escalation - on the pinned entry, whatever the grade
maps to. Without a pin the grade's entry is used. The seat is resolved when the call runs, not
when it is built.
"""

import asyncio
import dataclasses
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from nucleo_core import ToolRegistry, tool
from nucleo_core.errors import ModelNotConfigured, ResponseParseError
from nucleo_core.models import (
    Grade,
    Message,
    ModelCatalog,
    ModelEntry,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ThinkerDeclaration,
)
from nucleo_core.testing import ScriptedModel, override_client
from nucleo_core.thinking import LLMCall, ResponseCorrection


class Verdict(BaseModel):
    accepted: bool
    reason: str


@tool(read_only=True, risk="low")
def inspect(path: str) -> str:
    """Inspect a file."""
    return path


GOOD = '{"accepted": true, "reason": "fine"}'
MISSING = '{"accepted": true}'
CUT = '{"accepted": tr'
GRADE_ENTRY = "anthropic:grade-model"
PIN = "openai:pinned-model"
PROMPT = (Message.user("Judge the change."),)


def truncated() -> ModelResponse:
    """An answer cut off at the budget."""
    return ModelResponse(content=(TextBlock(text=CUT),), stop_reason=StopReason.MAX_TOKENS)


def catalog() -> ModelCatalog:
    """A catalog whose standard grade maps to a different model than the pin."""
    return ModelCatalog(
        [ModelEntry.parse(GRADE_ENTRY, max_output_tokens=100_000)],
        grades={"standard": GRADE_ENTRY},
    )


def make_call(
    the_catalog: ModelCatalog,
    *,
    pin: str | None = None,
    grade: str = "standard",
    budget: int = 2,
    client: ScriptedModel | None = None,
) -> LLMCall[Verdict]:
    """A structured exchange on ``grade``, optionally pinned."""
    return LLMCall(
        declaration=ThinkerDeclaration(grade, 1_000),
        messages=PROMPT,
        catalog=the_catalog,
        output_type=Verdict,
        pin=pin,
        correction=ResponseCorrection(budget),
        client=client,
    )


def every_kind_of_request() -> ScriptedModel:
    """A model that is escalated, then corrected twice, then accepted: four requests."""
    return ScriptedModel([truncated(), MISSING, CUT, GOOD])


# -- the pin -----------------------------------------------------------------------------------


def test_a_pin_reaches_the_first_request_every_escalation_and_every_correction() -> None:
    """With a pin, every request of the exchange carries the pinned model, not the grade's."""
    model = every_kind_of_request()
    result = asyncio.run(make_call(catalog(), pin=PIN, client=model).run())

    assert [request.model for request in model.requests] == ["pinned-model"] * 4
    assert (result.escalations, result.corrections) == (1, 2)
    assert result.seat is not None
    assert result.seat.id == PIN


def test_the_pinned_entry_s_limits_govern_the_escalation() -> None:
    """The ceiling a pinned exchange escalates to is the pinned entry's, not the grade entry's."""
    the_catalog = catalog()
    the_catalog.add(ModelEntry.parse(PIN, max_output_tokens=2_000))
    model = ScriptedModel(lambda request: truncated())
    with pytest.raises(ResponseParseError):
        asyncio.run(make_call(the_catalog, pin=PIN, budget=0, client=model).run())

    assert [request.max_tokens for request in model.requests] == [1_000, 2_000]


def test_a_pinned_entry_without_native_tools_is_driven_through_the_envelope() -> None:
    """A pin to a model without native tools sends no tool definitions and teaches the envelope."""
    the_catalog = catalog()
    envelope_entry = "openai-compatible:http://127.0.0.1:11434/v1#llama3.2"
    the_catalog.add(dataclasses.replace(ModelEntry.parse(envelope_entry), native_tools=False))
    model = ScriptedModel(['{"final_answer": true, "answer": ' + GOOD + "}"])
    call: LLMCall[Verdict] = LLMCall(
        declaration=ThinkerDeclaration("standard", 1_000),
        messages=PROMPT,
        catalog=the_catalog,
        tools=ToolRegistry([inspect]),
        output_type=Verdict,
        pin=envelope_entry,
        client=model,
    )
    result = asyncio.run(call.run())

    (request,) = model.requests
    assert request.model == "llama3.2"
    assert request.tools == ()
    assert "final_answer" in request.system
    assert "inspect" in request.system
    assert result.answer == Verdict(accepted=True, reason="fine")


def test_a_pin_not_in_the_catalog_is_seated_with_default_limits() -> None:
    """A pinned id the catalog never listed is parsed and used as it stands."""
    model = ScriptedModel([GOOD])
    result = asyncio.run(
        make_call(
            catalog(), pin="openai-compatible:http://10.0.0.5:8000/v1#qwen", client=model
        ).run()
    )

    assert model.requests[0].model == "qwen"
    assert result.seat == ModelEntry.parse("openai-compatible:http://10.0.0.5:8000/v1#qwen")


def test_a_pin_beats_a_grade_no_entry_is_assigned_to() -> None:
    """A pinned call needs no entry for its grade: the pin alone seats it."""
    model = ScriptedModel([GOOD])
    asyncio.run(make_call(ModelCatalog(), pin=PIN, grade="strong", client=model).run())

    assert model.requests[0].model == "pinned-model"


def test_a_malformed_pin_is_refused_before_any_request() -> None:
    """A pin that is not an entry id raises ModelNotConfigured, and nothing is sent."""
    model = ScriptedModel([GOOD])
    with pytest.raises(ModelNotConfigured) as raised:
        asyncio.run(make_call(catalog(), pin="gpt-4o", client=model).run())

    assert "gpt-4o" in str(raised.value)
    assert model.requests == []


MODEL_NAMES = st.text(
    alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="-._"),
    min_size=1,
    max_size=30,
)


@given(
    pinned=MODEL_NAMES,
    graded=MODEL_NAMES,
    provider=st.sampled_from(["anthropic", "openai"]),
    script=st.lists(st.sampled_from(["truncated", MISSING, CUT]), max_size=4),
)
def test_whatever_the_script_every_request_of_a_pinned_exchange_carries_the_pin(
    pinned: str, graded: str, provider: str, script: list[str]
) -> None:
    """For any pin, grade entry and mix of escalations and corrections, every request is pinned."""
    the_catalog = ModelCatalog(grades={"standard": f"anthropic:{graded}"})
    answers: list[str | ModelResponse] = [
        truncated() if answer == "truncated" else answer for answer in script
    ]
    model = ScriptedModel([*answers, GOOD])
    asyncio.run(make_call(the_catalog, pin=f"{provider}:{pinned}", budget=4, client=model).run())

    assert model.requests
    assert all(request.model == pinned for request in model.requests)


# -- the grade -----------------------------------------------------------------------------------


def test_without_a_pin_every_request_goes_to_the_grade_s_entry() -> None:
    """Unpinned, the first request, escalations and corrections all go to the grade's entry."""
    model = every_kind_of_request()
    result = asyncio.run(make_call(catalog(), client=model).run())

    assert [request.model for request in model.requests] == ["grade-model"] * 4
    assert result.seat is not None
    assert result.seat.id == GRADE_ENTRY


def test_a_grade_given_as_the_enum_resolves_like_its_name() -> None:
    """ThinkerDeclaration(Grade.STANDARD) is seated on the entry of the grade named standard."""
    model = ScriptedModel([GOOD])
    asyncio.run(make_call(catalog(), grade=Grade.STANDARD, client=model).run())

    assert model.requests[0].model == "grade-model"


def test_the_seat_is_resolved_when_the_call_runs_not_when_it_is_built() -> None:
    """Reassigning the grade between construction and run changes the seat of that run."""
    the_catalog = catalog()
    model = ScriptedModel([GOOD, GOOD])
    call = make_call(the_catalog, client=model)
    the_catalog.assign("standard", "openai:reassigned-model")
    first = asyncio.run(call.run())
    the_catalog.assign("standard", GRADE_ENTRY)
    asyncio.run(call.run())

    assert [request.model for request in model.requests] == ["reassigned-model", "grade-model"]
    assert first.seat is not None
    assert first.seat.id == "openai:reassigned-model"


def test_building_a_call_for_an_unassigned_grade_does_not_raise() -> None:
    """Construction never resolves the seat, so an unconfigured grade is not an error yet."""
    call = make_call(ModelCatalog(), grade="strong")
    assert call.pin is None


def test_an_unassigned_grade_without_a_pin_says_which_grade_and_how_to_configure_it() -> None:
    """Running an unpinned call on an unassigned grade raises ModelNotConfigured before sending."""
    model = ScriptedModel([GOOD])
    with pytest.raises(ModelNotConfigured) as raised:
        asyncio.run(make_call(catalog(), grade="strong", client=model).run())

    message = str(raised.value)
    assert "'strong'" in message
    assert "[tool.nucleo.models.grades]" in message
    assert "nucleo.toml" in message
    assert "assign" in message
    assert "pin" in message
    assert model.requests == []


# -- where the catalog and the client come from ----------------------------------------------------


def test_a_call_without_a_catalog_is_seated_from_the_configuration_it_discovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no catalog given, the seat comes from the nucleo.toml found from the working folder."""
    (tmp_path / "nucleo.toml").write_text(
        '[models.grades]\nstandard = "anthropic:configured-model"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    model = ScriptedModel([GOOD])
    call: LLMCall[Verdict] = LLMCall(
        declaration=ThinkerDeclaration("standard", 1_000), messages=PROMPT, output_type=Verdict
    )
    with override_client(model):
        asyncio.run(call.run())

    assert [request.model for request in model.requests] == ["configured-model"]


def test_the_override_seam_supplies_the_client_for_a_pinned_call() -> None:
    """override_client installs the model every request of a pinned exchange is sent to."""
    model = every_kind_of_request()
    with override_client(model):
        asyncio.run(make_call(catalog(), pin=PIN).run())

    assert [request.model for request in model.requests] == ["pinned-model"] * 4


def test_every_request_of_one_exchange_sends_the_same_conversation_prefix() -> None:
    """Requests of a pinned exchange only ever append to the conversation they started from."""
    model = every_kind_of_request()
    asyncio.run(make_call(catalog(), pin=PIN, client=model).run())

    requests: list[ModelRequest] = model.requests
    for earlier, later in pairwise(requests):
        assert later.messages[: len(earlier.messages)] == earlier.messages
        assert later.system == earlier.system
