"""The ``sub_thinker`` tool and `SubThinker`: delegation, artifacts both ways, failures."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
from pydantic import BaseModel

from nucleo_core import Tool, ToolHub, tool
from nucleo_core.conversations import ArtifactNotFound, ConversationService
from nucleo_core.errors import MisuseError
from nucleo_core.models import (
    ModelCatalog,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ThinkerDeclaration,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.io import SubThinkerInput, SubThinkerOutput
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import (
    SUB_THINKER,
    SubThinker,
    SubThinkerRequest,
    sub_thinker_tool,
)

SUB_PREAMBLE = "You are a sub-thinker"
LONG = json.dumps({"rows": [{"id": index, "name": f"row {index}"} for index in range(300)]})


class PageInput(BaseModel):
    page: int


@tool(name="fetch", read_only=True, risk="low")
class Fetch(Tool[PageInput, str]):
    """Fetch a page of rows (long enough to be kept as an artifact)."""

    async def run(self, input: PageInput) -> str:
        return LONG


class Analyst(SingleObjectiveThinker[str, str]):
    """A thinker with one tool whose output is kept as an artifact."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Fetch]


def analyst(model: ScriptedModel, **kwargs: Any) -> Analyst:
    return Analyst(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(":memory:"),
        client=model,
        **kwargs,
    )


_ids = itertools.count(1)


def use(name: str, arguments: dict[str, Any]) -> ModelResponse:
    block = ToolUseBlock(id=f"toolu_{next(_ids)}", name=name, input=arguments)
    return ModelResponse(content=(block,), stop_reason=StopReason.TOOL_USE)


def text(value: str | dict[str, Any]) -> ModelResponse:
    body = value if isinstance(value, str) else json.dumps(value)
    return ModelResponse(content=(TextBlock(text=body),), stop_reason=StopReason.END_TURN)


def is_sub(request: ModelRequest) -> bool:
    return request.system.startswith(SUB_PREAMBLE)


def results(request: ModelRequest) -> list[ToolResultBlock]:
    return [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]


def artifact_id(preview: str) -> str:
    """The artifact id a custody preview names."""
    return preview.split("artifact ", 1)[1].split(" ", 1)[0]


# -- the tool -------------------------------------------------------------------------------------


def test_the_tool_asks_for_an_objective_and_optional_artifact_ids() -> None:
    """The input schema requires the objective and lists artifact ids as optional."""
    provider = sub_thinker_tool(analyst(ScriptedModel()))
    schema = provider.input_schema

    assert provider.name == SUB_THINKER
    assert schema["required"] == ["objective"]
    assert set(schema["properties"]) == {"objective", "artifact_refs"}
    assert "does not see this conversation" in provider.description
    assert not provider.sequential


def test_the_tool_refuses_to_run_for_anything_but_a_thinker() -> None:
    """A sub_thinker call built for no thinker is a developer's mistake."""
    call = sub_thinker_tool(analyst(ScriptedModel())).create(None)
    with pytest.raises(MisuseError, match="runs for a Thinker"):
        asyncio.run(call.run(SubThinkerRequest(objective="x")))  # type: ignore[arg-type]


# -- artifacts, both ways -------------------------------------------------------------------------


def test_an_artifact_named_in_the_call_is_conveyed_and_readable_by_the_sub_thinker() -> None:
    """The sub-thinker is told the artifact's id, size and type, and reads it under that id."""
    kept: list[str] = []

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub(request):
            if len(request.messages) == 1:
                return use("get_artifact_field", {"artifact_id": kept[0], "path": "rows[3].name"})
            return text({"answer": "row 3"})
        if len(request.messages) == 1:
            return use("fetch", {"page": 1})
        if len(request.messages) == 3:
            kept.append(artifact_id(results(request)[0].content))
            return use(SUB_THINKER, {"objective": "Name row 3.", "artifact_refs": kept})
        return text("row 3")

    model = ScriptedModel(script)
    assert asyncio.run(analyst(model).run("Name row 3.")) == "row 3"

    first, second = [request for request in model.requests if is_sub(request)]
    assert first.messages[0].text == "\n".join(
        [
            "Name row 3.",
            "",
            "Artifacts conveyed to you (read them with get_artifact_field and "
            "search_artifact_content):",
            f"- {kept[0]}: {len(LONG)} chars, application/json",
        ]
    )
    (read,) = results(second)
    assert not read.is_error
    assert "row 3" in read.content


def test_an_unknown_artifact_id_is_refused_before_any_sub_run() -> None:
    """The parent's model is told which artifacts there are; no sub-thinker request is made."""
    model = ScriptedModel(
        [use(SUB_THINKER, {"objective": "Read it.", "artifact_refs": ["art_000000000000"]}), "ok"]
    )
    asyncio.run(analyst(model).run("Go."))

    (refusal,) = results(model.requests[1])
    assert refusal.is_error
    assert "art_000000000000" not in refusal.content
    assert not any(is_sub(request) for request in model.requests)


def test_artifacts_the_sub_thinker_names_are_linked_into_the_parent_s_conversation() -> None:
    """The parent reads, under the same id, an artifact its sub-thinker kept and named."""
    named: list[str] = []

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub(request):
            if len(request.messages) == 1:
                return use("fetch", {"page": 2})
            named.append(artifact_id(results(request)[0].content))
            return text({"answer": "see the artifact", "artifact_refs": named})
        if len(request.messages) == 1:
            return use(SUB_THINKER, {"objective": "Fetch page 2."})
        if len(request.messages) == 3:
            return use("get_artifact_field", {"artifact_id": named[0], "path": "rows[0].id"})
        return text("done")

    model = ScriptedModel(script)
    asyncio.run(analyst(model).run("Go."))

    delegated = json.loads(results(model.requests[-2])[0].content)
    assert delegated["artifact_refs"] == named
    (read,) = results(model.requests[-1])
    assert not read.is_error
    assert read.content == "0"


def test_an_answer_naming_an_artifact_the_sub_thinker_cannot_read_is_corrected() -> None:
    """A made-up artifact id is refused, listing the known ids; the sub-thinker answers again."""

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub(request):
            if len(request.messages) == 1:
                return text({"answer": "42", "artifact_refs": ["art_made_up"]})
            return text({"answer": "42"})
        if len(request.messages) == 1:
            return use(SUB_THINKER, {"objective": "Answer."})
        return text("42")

    model = ScriptedModel(script)
    asyncio.run(analyst(model).run("Go."))

    retry = [request for request in model.requests if is_sub(request)][1]
    assert retry.messages[-1].text == (
        "Your answer was not accepted: artifact_refs may list only ids of artifacts you can read "
        "(known: none); 1 of the ids listed are not among them. Answer again."
    )


# -- failures the parent's model can act on -----------------------------------------------------


def test_a_sub_thinker_that_never_answers_tells_the_parent_to_narrow_the_objective() -> None:
    """The iteration cap of the sub-run reaches the parent's model as a correctable result."""

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub(request):
            return use("fetch", {"page": 1})
        if len(request.messages) == 1:
            return use(SUB_THINKER, {"objective": "Loop forever."})
        return text("gave up")

    model = ScriptedModel(script)
    asyncio.run(analyst(model).run("Go."))

    (result,) = results(model.requests[-1])
    assert result.is_error
    assert result.content == (
        "The sub-thinker reached its limit of 12 turns without an answer; delegate a narrower "
        "objective, or work on it yourself."
    )


def test_a_sub_thinker_whose_answer_stays_unusable_says_so_to_the_parent() -> None:
    """An exhausted correction budget in the sub-run is a correctable result, not a crash."""

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub(request):
            return text("not json at all")
        if len(request.messages) == 1:
            return use(SUB_THINKER, {"objective": "Answer."})
        return text("gave up")

    model = ScriptedModel(script)
    asyncio.run(analyst(model).run("Go."))

    (result,) = results(model.requests[-1])
    assert result.is_error
    assert result.content.startswith("The sub-thinker's answer stayed unusable after 3 attempt(s)")


def test_two_delegations_of_one_turn_run_side_by_side() -> None:
    """sub_thinker is not sequential: each sub-run waits for the other to start, and both end."""
    started: set[str] = set()
    both = asyncio.Event()

    class Gate:
        async def complete(self, request: ModelRequest) -> ModelResponse:
            if is_sub(request):
                objective = request.messages[0].text
                started.add(objective)
                if len(started) == 2:
                    both.set()
                await asyncio.wait_for(both.wait(), timeout=5)
                return text({"answer": f"did {objective}"})
            if len(request.messages) == 1:
                return ModelResponse(
                    content=(
                        ToolUseBlock(id="a", name=SUB_THINKER, input={"objective": "A"}),
                        ToolUseBlock(id="b", name=SUB_THINKER, input={"objective": "B"}),
                    ),
                    stop_reason=StopReason.TOOL_USE,
                )
            self.last = request
            return text("both done")

        async def aclose(self) -> None:
            pass

    gate = Gate()
    assert asyncio.run(analyst(gate).run("Go.")) == "both done"  # type: ignore[arg-type]
    answers = [json.loads(result.content)["answer"] for result in results(gate.last)]
    assert answers == ["did A", "did B"]


# -- launching one directly -----------------------------------------------------------------------


def test_a_sub_thinker_answers_with_its_output_type() -> None:
    """SubThinker's answer is a SubThinkerOutput: the answer, its reasoning, artifact ids."""
    model = ScriptedModel([text({"answer": "42", "reasoning": "asked around"})])
    parent = analyst(model)
    output = asyncio.run(SubThinker(parent).run(SubThinkerInput(objective="What is 6 x 7?")))

    assert output == SubThinkerOutput(answer="42", reasoning="asked around", artifact_refs=[])
    assert SubThinker.output_type is SubThinkerOutput
    assert not SubThinker.top_level


def test_a_sub_thinker_of_an_idle_parent_cannot_be_conveyed_artifacts() -> None:
    """Without a parent conversation there is nothing to convey from."""
    from nucleo_core.conversations import ArtifactRef

    sub = SubThinker(analyst(ScriptedModel([text({"answer": "x"})])))
    ref = ArtifactRef(id="art_000000000001", size=3, media_type="text/plain")
    with pytest.raises(ArtifactNotFound):
        asyncio.run(sub.run(SubThinkerInput(objective="Read.", artifact_refs=(ref,))))


def test_a_thorough_sub_thinker_may_delegate_in_turn() -> None:
    """At Depth.THOROUGH a sub-thinker has sub_thinker, and its own delegate works at STANDARD."""
    model = ScriptedModel(
        [
            use(SUB_THINKER, {"objective": "Deeper."}),
            text({"answer": "deep"}),
            text({"answer": "via deep"}),
        ]
    )
    parent = analyst(model)
    parent.reconcile_tool_registry()
    sub = SubThinker(parent, depth=Depth.THOROUGH)
    output = asyncio.run(sub.run(SubThinkerInput(objective="Delegate.")))

    assert output.answer == "via deep"
    assert SUB_THINKER in [spec.name for spec in model.requests[0].tools]
    assert SUB_THINKER not in [spec.name for spec in model.requests[1].tools]
