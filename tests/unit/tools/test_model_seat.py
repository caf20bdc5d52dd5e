"""Unit tests of `ModelSeat`, `ModelDependent` and `SeatGrade`: declarations and seat resolution."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
from pydantic import BaseModel

from nucleo_core import (
    MisuseError,
    ModelCatalog,
    ModelDependent,
    ModelSeat,
    ModelSeatUnavailable,
    SeatGrade,
    ThinkerDeclaration,
    Tool,
    ToolDeclarationError,
    ToolHub,
    provider_for,
    run_tool,
    tool,
)
from nucleo_core.conversations import ConversationService
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

CATALOG = ModelCatalog(
    grades={"standard": "anthropic:standard-model", "fast": "anthropic:fast-model"}
)
DECLARATION = ThinkerDeclaration("standard", "short")


class TextInput(BaseModel):
    text: str


class Plain(SingleObjectiveThinker[str, str]):
    """A thinker with no tools of its own."""


def thinker(*, pin: str | None = None, client: ScriptedModel | None = None) -> Plain:
    return Plain(
        DECLARATION,
        hub=ToolHub(),
        catalog=CATALOG,
        conversations=ConversationService(":memory:"),
        pin=pin,
        client=client,
    )


def test_a_seat_of_a_thinker_is_on_its_grade_unless_a_grade_is_declared() -> None:
    """`ModelSeat.of` resolves to the thinker's grade, or to the declared one."""
    parent = thinker()

    assert ModelSeat.of(parent).entry().id == "anthropic:standard-model"
    assert ModelSeat.of(parent, grade="fast").entry().id == "anthropic:fast-model"
    assert ModelSeat.of(parent, grade="fast").declaration.answer_size == DECLARATION.answer_size


def test_a_pin_beats_a_declared_grade() -> None:
    """A pinned thinker's seat is on the pin, whatever grade the tool declares."""
    parent = thinker(pin="openai:pinned-model")

    assert ModelSeat.of(parent, grade="fast").entry().id == "openai:pinned-model"
    assert ModelSeat.of(parent).pin == "openai:pinned-model"


def test_the_seat_reads_its_thinker_at_each_call() -> None:
    """A pin set after the tool was created moves the tool's next call too."""
    parent = thinker()
    seat = ModelSeat.of(parent)
    parent.pin = "openai:later-model"

    assert seat.entry().id == "openai:later-model"


def test_a_function_tool_made_for_another_thinker_gets_that_thinker_s_seat() -> None:
    """A function tool reused per parent never hands one thinker's seat to another."""

    @tool(read_only=True, risk="low")
    async def ask(text: str, seat: ModelSeat) -> str:
        """Ask the model."""
        return await seat.complete(text)

    first_model, second_model = ScriptedModel(["from first"]), ScriptedModel(["from second"])
    first, second = thinker(client=first_model), thinker(client=second_model)
    provider = provider_for(ask)
    given = provider.parse_input({"text": "hi"})

    assert asyncio.run(run_tool(provider.create(first), given)) == "from first"
    assert asyncio.run(run_tool(provider.create(second), given)) == "from second"
    assert len(first_model.requests) == len(second_model.requests) == 1


def test_an_unavailable_seat_says_so_before_any_request() -> None:
    """`available` is false without a thinker, and every use raises ModelSeatUnavailable."""
    seat = ModelSeat.of(None, tool="summarize")

    assert not seat.available
    with pytest.raises(ModelSeatUnavailable, match="Tool 'summarize'"):
        seat.entry()
    with pytest.raises(ModelSeatUnavailable):
        asyncio.run(seat.complete("hello"))
    assert ModelSeat.of(thinker()).available


def test_a_model_dependent_class_declaring_an_empty_grade_is_refused_at_its_definition() -> None:
    """``grade = ""`` is a misdeclaration, reported when the class is defined."""
    with pytest.raises(ToolDeclarationError, match="non-empty grade name"):

        class Broken(ModelDependent, Tool[TextInput, str]):
            grade = ""

            async def run(self, input: TextInput) -> str:
                return input.text


def test_seat_grade_needs_a_grade_name() -> None:
    """``SeatGrade("")`` is refused with the fix."""
    with pytest.raises(MisuseError, match=r"SeatGrade\('fast'\)"):
        SeatGrade("")


def test_a_seat_needs_a_declaration() -> None:
    """A seat of its own is built from a ThinkerDeclaration, nothing else."""
    with pytest.raises(MisuseError, match="ThinkerDeclaration"):
        ModelSeat("fast")  # type: ignore[arg-type]


def test_two_seat_parameters_are_a_misdeclaration() -> None:
    """A function may take one ModelSeat; two are reported by name."""

    @tool(read_only=True, risk="low")
    async def twice(text: str, one: ModelSeat, two: ModelSeat) -> str:
        """Ask twice."""
        return text

    with pytest.raises(ToolDeclarationError, match="'one' and 'two' both take a ModelSeat"):
        provider_for(twice).check()


def test_an_optional_seat_parameter_is_a_misdeclaration() -> None:
    """``ModelSeat | None`` could be neither filled in nor described: it is refused."""

    @tool(read_only=True, risk="low")
    async def maybe(text: str, seat: ModelSeat | None = None) -> str:
        """Ask, maybe."""
        return text

    with pytest.raises(ToolDeclarationError, match="parameter 'seat': annotate a model seat"):
        provider_for(maybe).check()


def test_a_declared_seat_grade_does_not_change_the_schema() -> None:
    """``Annotated[ModelSeat, SeatGrade(...)]`` is hidden like a plain ModelSeat parameter."""

    @tool(read_only=True, risk="low")
    async def graded(text: str, seat: Annotated[ModelSeat, SeatGrade("fast")]) -> str:
        """Ask on the fast grade."""
        return text

    @tool(read_only=True, risk="low")
    async def ungraded(text: str) -> str:
        """Ask on the fast grade."""
        return text

    assert (
        dict(provider_for(graded).input_schema)["properties"]
        == dict(provider_for(ungraded).input_schema)["properties"]
    )
