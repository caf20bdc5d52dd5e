"""A thinker compacts its conversation when it passes its budget, keeping tool pairs whole."""

from __future__ import annotations

import asyncio
from typing import Any

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub, tool
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock, ToolUseBlock
from nucleo_core.testing import ScriptedModel, text_response, tool_use_response
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.tools import RawInput, Tool, ToolProvider
from nucleo_core.tools.state import CarriedState

SUMMARY = "The user wants Lisbon's weather; it was looked up twice."


@tool(read_only=True, risk="low")
def lookup(city: str) -> str:
    """Look up the weather of a city."""
    return f"{city}: sunny " + "and warm " * 40


class Forecaster(SingleObjectiveThinker[str, str]):
    """Looks the weather up, turn after turn."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        return [lookup]


def _script() -> ScriptedModel:
    """Four lookups, then the answer; a summary whenever the thinker asks for one."""
    turns = 0

    def answer(request: ModelRequest) -> ModelResponse | str:
        nonlocal turns
        if request.system.startswith("Summarize"):
            return SUMMARY
        turns += 1
        if turns <= 4:
            return tool_use_response(("lookup", {"city": "Lisbon"}))
        return text_response("Sunny in Lisbon.")

    return ScriptedModel(answer)


def test_a_long_run_is_compacted_into_a_summary_and_keeps_every_tool_pair() -> None:
    """Past the budget the older turns become one summary; no tool use loses its result."""
    model = _script()
    thinker = Forecaster(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:claude-test"}),
        client=model,
        depth=Depth.QUICK,
    )
    thinker.context_tokens = 300

    answer = asyncio.run(thinker.run("Weather in Lisbon?"))

    assert answer == "Sunny in Lisbon."
    summaries = [r for r in model.requests if r.system.startswith("Summarize")]
    assert summaries, "the conversation passed its budget, so it was summarized"
    last = model.requests[-1]
    assert SUMMARY in last.messages[0].text
    uses = {b.id for m in last.messages for b in m.content if isinstance(b, ToolUseBlock)}
    results = {
        b.tool_use_id for m in last.messages for b in m.content if isinstance(b, ToolResultBlock)
    }
    assert uses == results


class NotesProvider(ToolProvider):
    """A tool that keeps notes for the conversation and asks to carry them."""

    @property
    def name(self) -> str:
        return "notes"

    @property
    def description(self) -> str:
        return "Keep a note."

    @property
    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}}

    @property
    def read_only(self) -> bool:
        return True

    def parse_input(self, raw: RawInput) -> Any:
        return raw

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        raise AssertionError("never called in this test")

    def carried_state(self, conversation_id: str | None = None) -> CarriedState:
        return CarriedState(tool="notes", text="Cities looked up: Lisbon")


class Remembering(Forecaster):
    """Its palette holds a tool with state to carry across compaction."""

    @classmethod
    def declare_default_providers(cls) -> list[ToolProvider]:
        return [NotesProvider()]


def test_carried_state_survives_compaction_in_registry_order() -> None:
    """Each tool's carried_state() is kept, in registry order, in the summary turn."""
    model = _script()
    thinker = Remembering(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:claude-test"}),
        client=model,
        depth=Depth.QUICK,
    )
    thinker.context_tokens = 300

    asyncio.run(thinker.run("Weather in Lisbon?"))

    assert "Cities looked up: Lisbon" in model.requests[-1].messages[0].text
