"""ThinkerPinTest, at the level of a whole run (seed 002: "The pin reaches every call").

Every exchange of a thinker's run is built through the same call factory, so pinning a thinker
pins its whole conversation to one entry: every turn, every correction and escalation inside a
turn, and every request of the sub-thinkers it launches (they inherit the parent's seat). That
is what a benchmark races.
"""

import asyncio
import dataclasses
import json
from typing import Any

from _loop_kit import (
    GRADE_ENTRY,
    Lookup,
    WriteRecord,
    answer,
    call,
    calls,
    is_sub_thinker_request,
    make,
    tool_names,
)
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from nucleo_core.models import (
    ModelCatalog,
    ModelEntry,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
)
from nucleo_core.testing import ScriptedModel, override_client
from nucleo_core.thinking.io import SubThinkerInput
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SubThinker

PIN = "openai:pinned-model"


class Verdict(BaseModel):
    accepted: bool
    reason: str


class Reviewer(SingleObjectiveThinker[str, Verdict]):
    """A thinker answering a typed verdict, with a read-only and a mutating tool."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord]


class Clerk(SingleObjectiveThinker[str, str]):
    """A thinker answering text, with the same tools."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord]


def roomy_catalog() -> ModelCatalog:
    """A catalog where the grade's entry and the pinned entry both allow escalation."""
    return ModelCatalog(
        [
            ModelEntry.parse(GRADE_ENTRY, max_output_tokens=100_000),
            ModelEntry.parse(PIN, max_output_tokens=100_000),
        ],
        grades={"standard": GRADE_ENTRY},
    )


def truncated() -> ModelResponse:
    return ModelResponse(content=(TextBlock(text='{"acc'),), stop_reason=StopReason.MAX_TOKENS)


def delegating_script() -> ScriptedModel:
    """The parent delegates; the sub-thinker calls a tool, then answers; the parent answers."""
    return ScriptedModel(
        [
            calls(call("sub_thinker", {"objective": "Find what x means."})),
            calls(call("lookup", {"key": "x"})),
            answer({"answer": "x means 42"}),
            answer("x means 42"),
        ]
    )


def test_a_pin_reaches_every_turn_correction_and_escalation_of_a_run() -> None:
    """Tool turns, an escalated answer and a corrected one all carry the pinned model."""
    model = ScriptedModel(
        [
            calls(call("lookup", {"key": "x"})),
            calls(call("write_record", {"key": "x"})),
            truncated(),
            '{"accepted": true}',
            '{"accepted": true, "reason": "fine"}',
        ]
    )
    thinker = make(Reviewer, model, pin=PIN, catalog=roomy_catalog())
    verdict = asyncio.run(thinker.run("Review x."))

    assert verdict == Verdict(accepted=True, reason="fine")
    assert [request.model for request in model.requests] == ["pinned-model"] * 5
    assert model.requests[3].max_tokens == 2 * model.requests[2].max_tokens


def test_a_pin_reaches_every_request_of_the_sub_thinkers_it_launches() -> None:
    """A pinned parent's delegation is pinned: the sub-thinker's requests carry the pin too."""
    model = delegating_script()
    thinker = make(Clerk, model, pin=PIN)
    asyncio.run(thinker.run("What does x mean?"))

    subs = [request for request in model.requests if is_sub_thinker_request(request)]
    assert len(subs) == 2
    assert [request.model for request in model.requests] == ["pinned-model"] * 4


def test_without_a_pin_a_run_and_its_delegations_go_to_the_grade_s_entry() -> None:
    """Unpinned, the parent and its sub-thinker are both seated by the parent's grade."""
    model = delegating_script()
    thinker = make(Clerk, model)
    asyncio.run(thinker.run("What does x mean?"))

    assert [request.model for request in model.requests] == ["grade-model"] * 4


def test_a_pinned_run_needs_no_entry_for_its_grade_even_in_its_delegations() -> None:
    """With a pin, a catalog that assigns no grade at all seats the whole run."""
    model = delegating_script()
    thinker = make(Clerk, model, pin=PIN, catalog=ModelCatalog())
    assert asyncio.run(thinker.run("What does x mean?")) == "x means 42"

    assert {request.model for request in model.requests} == {"pinned-model"}


def test_the_pin_is_read_at_each_call_so_a_new_pin_seats_the_next_run() -> None:
    """Changing a thinker's pin between runs moves every request of the next run."""
    model = ScriptedModel([answer("one"), calls(call("lookup", {"key": "k"})), answer("two")])
    thinker = make(Clerk, model, pin=PIN)
    asyncio.run(thinker.run("First."))
    thinker.pin = "anthropic:other-model"
    asyncio.run(thinker.run("Second."))

    assert [request.model for request in model.requests] == [
        "pinned-model",
        "other-model",
        "other-model",
    ]


def test_a_sub_thinker_is_seated_where_its_parent_is() -> None:
    """A sub-thinker takes its parent's declaration, pin, catalog and client as they are."""
    model = ScriptedModel()
    parent = make(Clerk, model, pin=PIN)
    sub = SubThinker(parent)

    assert sub.declaration is parent.declaration
    assert sub.pin == PIN
    assert sub.catalog is parent.catalog
    assert sub.client is model


def test_a_sub_thinker_launched_directly_is_pinned_like_its_parent() -> None:
    """Run on its own, a sub-thinker of a pinned parent sends every request to the pin."""
    model = ScriptedModel(
        [calls(call("lookup", {"key": "x"})), answer({"answer": "42", "reasoning": "looked"})]
    )
    parent = make(Clerk, model, pin=PIN)
    parent.reconcile_tool_registry()
    output = asyncio.run(SubThinker(parent).run(SubThinkerInput(objective="What is x?")))

    assert output.answer == "42"
    assert [request.model for request in model.requests] == ["pinned-model"] * 2


def test_a_pinned_model_without_native_tools_drives_the_whole_run_through_the_envelope() -> None:
    """A pin to an envelope model sends no tool definitions on any request, delegations too."""
    envelope = "openai-compatible:http://127.0.0.1:11434/v1#llama3.2"
    catalog = ModelCatalog(grades={"standard": GRADE_ENTRY})
    catalog.add(dataclasses.replace(ModelEntry.parse(envelope), native_tools=False))

    def turn(calls_: list[dict[str, Any]]) -> str:
        return json.dumps({"final_answer": False, "tool_calls": calls_})

    def final(value: Any) -> str:
        return json.dumps({"final_answer": True, "answer": value})

    model = ScriptedModel(
        [
            turn([{"name": "sub_thinker", "input": {"objective": "Find x."}}]),
            turn([{"name": "lookup", "input": {"key": "x"}}]),
            final({"answer": "x means 42"}),
            final("x means 42"),
        ]
    )
    thinker = make(Clerk, model, pin=envelope, catalog=catalog)
    assert asyncio.run(thinker.run("What does x mean?")) == "x means 42"

    assert [request.model for request in model.requests] == ["llama3.2"] * 4
    assert all(request.tools == () for request in model.requests)
    assert all("final_answer" in request.system for request in model.requests)


def test_the_override_seam_serves_a_pinned_run_and_its_delegations() -> None:
    """With the client installed by override_client, every request still carries the pin."""
    model = delegating_script()
    thinker = make(Clerk, None, pin=PIN)
    with override_client(model):
        asyncio.run(thinker.run("What does x mean?"))

    assert [request.model for request in model.requests] == ["pinned-model"] * 4


STEPS = st.lists(
    st.sampled_from(["lookup", "write_record", "delegate", "nothing_here"]), max_size=4
)


@given(
    model_name=st.from_regex(r"[a-z][a-z0-9.-]{0,20}", fullmatch=True),
    provider=st.sampled_from(["anthropic", "openai"]),
    steps=STEPS,
)
def test_whatever_the_run_does_every_request_carries_the_pin(
    model_name: str, provider: str, steps: list[str]
) -> None:
    """For any pin and any mix of tool turns, refusals and delegations, every request is pinned."""

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub_thinker_request(request):
            if len(request.messages) == 1:
                return calls(call("lookup", {"key": "s"}))
            return answer({"answer": "done"})
        turn = sum(1 for message in request.messages if message.role == "assistant")
        if turn >= len(steps):
            return answer("done")
        step = steps[turn]
        if step == "delegate":
            return calls(call("sub_thinker", {"objective": f"Part {turn}."}))
        return calls(call(step, {"key": "k"}))

    model = ScriptedModel(script)
    thinker = make(Clerk, model, pin=f"{provider}:{model_name}")
    assert asyncio.run(thinker.run("Go.")) == "done"

    assert len(model.requests) == len(steps) + 1 + 2 * steps.count("delegate")
    assert all(request.model == model_name for request in model.requests)
    assert all(
        "sub_thinker" not in tool_names(r) for r in model.requests if is_sub_thinker_request(r)
    )
