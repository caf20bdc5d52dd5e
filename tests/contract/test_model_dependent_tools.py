"""A model-dependent tool receives its parent's seat.

Seed 000: "a ModelDependent tool that declares no grade receives its parent's". A class tool
mixing in `ModelDependent` and a function tool taking a `ModelSeat` parameter call a model
themselves. Created for a thinker, their calls go to that thinker's client, on its grade (or the
tool's declared grade), pinned when the thinker is pinned; a sub-thinker's tools are seated where
the sub-thinker is, which is where its parent is. Created without a thinker, the seat refuses to
be used, saying why. What each call was seated on is read from the requests the scripted model
recorded, not from the code under test.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Annotated, Any

import pytest
from _loop_kit import DECLARATION, GRADE_ENTRY, answer, call, calls, is_sub_thinker_request, make
from pydantic import BaseModel

from nucleo_core import (
    InvalidToolInput,
    ModelCatalog,
    ModelDependent,
    ModelSeat,
    ModelSeatUnavailable,
    SeatGrade,
    Tool,
    provider_for,
    run_tool,
    tool,
)
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel, override_client
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

FAST_ENTRY = "anthropic:fast-model"
PIN = "openai:pinned-model"
#: The system text every tool below sends, so a test can tell a tool's request from a turn's.
TOOL_SYSTEM = "You condense texts for a tool:"


class TextInput(BaseModel):
    text: str


#: ``(tool, the type of the parent it was created for)``, one per run of a class tool below.
PARENTS: list[tuple[str, str]] = []


@tool(name="summarize", read_only=True, risk="low")
class Summarize(ModelDependent, Tool[TextInput, str]):
    """Summarize a text, on the parent's grade."""

    async def run(self, input: TextInput) -> str:
        PARENTS.append(("summarize", type(self.parent).__name__))
        return await self.seat.complete(input.text, system=f"{TOOL_SYSTEM} summarize")


@tool(name="summarize_fast", read_only=True, risk="low")
class SummarizeFast(ModelDependent, Tool[TextInput, str]):
    """Summarize a text, on the fast grade."""

    grade = "fast"

    async def run(self, input: TextInput) -> str:
        PARENTS.append(("summarize_fast", type(self.parent).__name__))
        return await self.seat.complete(input.text, system=f"{TOOL_SYSTEM} summarize_fast")


@tool(read_only=True, risk="low")
async def condense(text: str, seat: ModelSeat) -> str:
    """Condense a text, on the parent's grade."""
    return await seat.complete(text, system=f"{TOOL_SYSTEM} condense")


@tool(read_only=True, risk="low")
async def condense_fast(text: str, seat: Annotated[ModelSeat, SeatGrade("fast")]) -> str:
    """Condense a text, on the fast grade."""
    return await seat.complete(text, system=f"{TOOL_SYSTEM} condense_fast")


ALL_FOUR = ("summarize", "summarize_fast", "condense", "condense_fast")


class Writer(SingleObjectiveThinker[str, str]):
    """A thinker with the four model-dependent tools."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Summarize, SummarizeFast, condense, condense_fast]


def two_grade_catalog() -> ModelCatalog:
    """``standard`` is the thinker's grade; ``fast`` is the grade two tools declare."""
    return ModelCatalog(grades={"standard": GRADE_ENTRY, "fast": FAST_ENTRY})


def routed(turns: list[ModelResponse | str]) -> ScriptedModel:
    """A model answering each tool's request with where it ran, and each turn from ``turns``."""
    queue = deque(turns)

    def answer_for(request: ModelRequest) -> ModelResponse | str:
        if request.system.startswith(TOOL_SYSTEM):
            return f"condensed on {request.model}"
        return queue.popleft()

    return ScriptedModel(answer_for)


def tool_requests(model: ScriptedModel) -> dict[str, ModelRequest]:
    """The requests the tools made, by tool name (each tool runs once in these tests)."""
    found = {}
    for request in model.requests:
        if request.system.startswith(TOOL_SYSTEM):
            name = request.system.removeprefix(TOOL_SYSTEM).strip()
            assert name not in found, f"{name} called the model twice"
            found[name] = request
    return found


def use_all_four() -> list[ModelResponse | str]:
    """One turn calling every tool, then the final answer."""
    return [
        calls(*(call(name, {"text": f"long text for {name}"}) for name in ALL_FOUR)),
        answer("done"),
    ]


@pytest.fixture(autouse=True)
def _fresh_parents() -> None:
    PARENTS.clear()


def test_a_model_dependent_tool_calls_on_its_thinker_s_client_and_grade() -> None:
    """A tool declaring no grade asks the thinker's own client, on its grade, offering no tool."""
    model = routed(use_all_four())
    elsewhere = ScriptedModel(lambda request: "the catalog's client answered")
    thinker = make(Writer, model, catalog=two_grade_catalog())
    with override_client(elsewhere):  # what the catalog would answer: not the thinker's client
        assert asyncio.run(thinker.run("Condense these.")) == "done"

    made = tool_requests(model)
    assert made["summarize"].model == "grade-model"
    assert made["condense"].model == "grade-model"
    assert made["summarize"].messages[0].text == "long text for summarize"
    assert all(request.tools == () for request in made.values())  # its model calls no tool
    assert elsewhere.requests == []
    assert sorted(PARENTS) == [("summarize", "Writer"), ("summarize_fast", "Writer")]


def test_a_tool_s_declared_grade_seats_its_calls_instead_of_the_thinker_s() -> None:
    """``grade = "fast"`` and ``SeatGrade("fast")`` send the tool's request to the fast entry."""
    model = routed(use_all_four())
    thinker = make(Writer, model, catalog=two_grade_catalog())
    asyncio.run(thinker.run("Condense these."))

    made = tool_requests(model)
    assert made["summarize_fast"].model == "fast-model"
    assert made["condense_fast"].model == "fast-model"
    assert made["summarize"].model == "grade-model"
    turns = [request for request in model.requests if request not in made.values()]
    assert {request.model for request in turns} == {"grade-model"}


def test_the_tool_s_answer_reaches_the_thinker_as_its_result() -> None:
    """What the tool's model answered is the tool's result, read by the thinker's next turn."""
    model = routed(use_all_four())
    thinker = make(Writer, model, catalog=two_grade_catalog())
    asyncio.run(thinker.run("Condense these."))

    last_turn = [r for r in model.requests if not r.system.startswith(TOOL_SYSTEM)][-1]
    results = [
        block.content
        for message in last_turn.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]
    assert sorted(results) == sorted(
        ["condensed on grade-model"] * 2 + ["condensed on fast-model"] * 2
    )


def test_a_pinned_thinker_s_pin_reaches_its_tools_whatever_grade_they_declare() -> None:
    """The pin beats every grade: each tool's request goes to the pinned entry."""
    model = routed(use_all_four())
    thinker = make(Writer, model, catalog=two_grade_catalog(), pin=PIN)
    asyncio.run(thinker.run("Condense these."))

    made = tool_requests(model)
    assert sorted(made) == sorted(ALL_FOUR)
    assert {request.model for request in model.requests} == {"pinned-model"}


@pytest.mark.parametrize(
    ("pin", "parent_grade", "fast"),
    [(None, "grade-model", "fast-model"), (PIN, "pinned-model", "pinned-model")],
    ids=["unpinned", "pinned"],
)
def test_a_sub_thinker_s_tools_are_seated_where_the_sub_thinker_is(
    pin: str | None, parent_grade: str, fast: str
) -> None:
    """A delegate's model-dependent tools run for the sub-thinker, on its parent's seat."""
    sub_turns = deque(
        [
            calls(call("summarize", {"text": "a"}), call("condense_fast", {"text": "b"})),
            answer({"answer": "condensed", "reasoning": "used the tools"}),
        ]
    )
    parent_turns = deque([calls(call("sub_thinker", {"objective": "Condense a and b."})), "done"])

    def answer_for(request: ModelRequest) -> ModelResponse | str:
        if request.system.startswith(TOOL_SYSTEM):
            return f"condensed on {request.model}"
        return (sub_turns if is_sub_thinker_request(request) else parent_turns).popleft()

    model = ScriptedModel(answer_for)
    thinker = make(Writer, model, catalog=two_grade_catalog(), pin=pin)
    assert asyncio.run(thinker.run("Delegate the condensing.")) == "done"

    made = tool_requests(model)
    assert sorted(made) == ["condense_fast", "summarize"]
    assert made["summarize"].model == parent_grade
    assert made["condense_fast"].model == fast
    assert PARENTS == [("summarize", "SubThinker")]
    assert not sub_turns
    assert not parent_turns


def test_the_tokens_a_tool_spends_count_in_its_thinker_s_run() -> None:
    """The usage of a tool's model calls is added to the thinker's `last_usage`."""
    model = routed(use_all_four())  # the turns' answers report no tokens; the tools' do
    thinker = make(Writer, model, catalog=two_grade_catalog())
    asyncio.run(thinker.run("Condense these."))

    assert thinker.last_usage is not None
    assert thinker.last_usage.input_tokens == 4  # one per tool request (text_response's count)


def test_the_seat_parameter_is_not_part_of_the_published_input() -> None:
    """A function tool's ModelSeat parameter is not in its schema; the model cannot send one."""
    provider = provider_for(condense_fast)

    assert list(provider.input_schema["properties"]) == ["text"]
    assert provider.input_schema["required"] == ["text"]
    with pytest.raises(InvalidToolInput):
        provider.parse_input({"text": "t", "seat": "anthropic:expensive-model"})


@pytest.mark.parametrize("subject", [Summarize, condense], ids=["class", "function"])
def test_a_tool_created_without_a_thinker_says_it_has_no_seat(subject: Any) -> None:
    """Created for no parent, a model-dependent tool fails with a clear error naming itself."""
    provider = provider_for(subject)
    created = provider.create(None)
    with pytest.raises(ModelSeatUnavailable) as raised:
        asyncio.run(run_tool(created, provider.parse_input({"text": "t"})))

    message = str(raised.value)
    assert f"Tool '{provider.name}'" in message
    assert "created without a parent" in message
    assert "ModelSeat(ThinkerDeclaration(" in message  # the fix


def test_a_tool_created_for_something_that_is_not_a_thinker_says_so() -> None:
    """A parent without a seat declaration (here a plain string) gives no seat either."""
    provider = provider_for(Summarize)
    created = provider.create("report-writer")
    with pytest.raises(ModelSeatUnavailable, match="for a str, which is not a thinker"):
        asyncio.run(run_tool(created, provider.parse_input({"text": "t"})))


def test_a_seat_of_its_own_runs_a_model_dependent_tool_outside_a_thinker() -> None:
    """Outside a thinker, a tool given `ModelSeat(declaration, ...)` calls on that seat."""
    model = ScriptedModel(lambda request: f"condensed on {request.model}")
    seat = ModelSeat(DECLARATION, catalog=two_grade_catalog(), client=model)

    summarize = provider_for(Summarize).create(None)
    assert isinstance(summarize, Summarize)
    summarize.seat = seat
    assert asyncio.run(run_tool(summarize, TextInput(text="t"))) == "condensed on grade-model"
    # The decorated function is unchanged: called directly, it takes the seat it is given.
    assert asyncio.run(condense_fast("t", seat)) == "condensed on grade-model"
    assert [request.model for request in model.requests] == ["grade-model", "grade-model"]
