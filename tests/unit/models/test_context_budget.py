"""The compaction budget leaves room for what each request sends besides the conversation."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from nucleo_core import ModelCatalog, ThinkerDeclaration, Tool, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.models import ModelEntry
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

ENTRY = ModelEntry.parse("openai-compatible:http://127.0.0.1:9/v1#small", context_window=20_000)
MANUAL = "Look the term up in the company glossary and quote the entry. " * 60


class Term(BaseModel):
    term: str


@tool(name="glossary", read_only=True, risk="low", description=MANUAL)
class Glossary(Tool[Term, str]):
    """Look a term up."""

    async def run(self, input: Term) -> str:
        return input.term


class Bare(SingleObjectiveThinker[str, str]):
    """No tool of its own."""


class Equipped(SingleObjectiveThinker[str, str]):
    """One tool with a long description."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Glossary]


def seated(cls: type[SingleObjectiveThinker[str, str]], system: str = "") -> Any:
    thinker = cls(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog([ENTRY], grades={"standard": ENTRY.id}),
        conversations=ConversationService(":memory:"),
        system=system,
    )
    thinker.reconcile_tool_registry()  # the palette of a first turn
    return thinker


def test_the_tool_definitions_and_the_system_text_come_off_the_budget() -> None:
    """A palette's specs and the system text are estimated, and the budget is that much less."""
    bare, equipped = seated(Bare), seated(Equipped)
    (spec,) = [s for s in equipped.registry.specs() if s.name == "glossary"]
    carried = len(spec.name) + len(spec.description) + len(json.dumps(spec.input_schema))

    gap = bare.context_budget() - equipped.context_budget()
    assert carried // 4 <= gap <= carried // 4 + 1
    assert seated(Bare, system="x" * 400).context_budget() == bare.context_budget() - 100


def test_the_budget_never_falls_under_a_quarter_of_the_window() -> None:
    """A palette larger than the window leaves a quarter of it for the conversation."""
    thinker = seated(Bare, system="y" * 400_000)
    assert thinker.context_budget() == ENTRY.context_window // 4


def test_a_set_context_tokens_is_the_budget_as_it_is() -> None:
    """``context_tokens`` is the developer's own budget: nothing is taken off it."""
    thinker = seated(Equipped)
    thinker.context_tokens = 1234
    assert thinker.context_budget() == 1234
