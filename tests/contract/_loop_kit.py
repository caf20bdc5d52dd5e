"""What the thinker-loop contract tests share: a seat, scripted answers, recording tools.

The tools here are async class tools that record each run in a `Ledger` together with what the
thinker running them looked like at that moment (its binding, its available surface), so a
test can assert what ran and under which palette without trusting the code under test.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from nucleo_core import Tool, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.models import (
    Message,
    ModelCatalog,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ThinkerDeclaration,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.thinking.thinker import Thinker

__all__ = [
    "DECLARATION",
    "GRADE_ENTRY",
    "Archive",
    "Clock",
    "Define",
    "KeyInput",
    "Ledger",
    "Lookup",
    "Ran",
    "Shred",
    "WriteRecord",
    "answer",
    "assert_paired",
    "call",
    "calls",
    "fresh_catalog",
    "is_sub_thinker_request",
    "ledger_of",
    "make",
    "names_of",
    "record",
    "tool_names",
]

DECLARATION = ThinkerDeclaration("standard", "short")
GRADE_ENTRY = "anthropic:grade-model"


def fresh_catalog() -> ModelCatalog:
    """A catalog whose standard grade maps to ``grade-model``."""
    return ModelCatalog(grades={"standard": GRADE_ENTRY})


def make(
    cls: type[Thinker[Any, Any]], client: Any, *, hub: ToolHub | None = None, **kwargs: Any
) -> Any:
    """A thinker of ``cls`` on a fresh hub, catalog and in-memory conversation service."""
    kwargs.setdefault("catalog", fresh_catalog())
    return cls(
        DECLARATION,
        hub=hub if hub is not None else ToolHub(),
        conversations=ConversationService(":memory:"),
        client=client,
        **kwargs,
    )


# -- scripted answers ----------------------------------------------------------------------------

_ids = iter(range(1, 1_000_000))


def call(
    name: str, arguments: dict[str, Any] | None = None, *, id: str | None = None
) -> ToolUseBlock:
    """One tool use, with a fresh id unless one is given."""
    return ToolUseBlock(id=id or f"toolu_kit_{next(_ids)}", name=name, input=arguments or {})


def calls(*uses: ToolUseBlock, usage: Usage | None = None) -> ModelResponse:
    """A ``tool_use`` answer holding ``uses``."""
    return ModelResponse(
        content=tuple(uses), stop_reason=StopReason.TOOL_USE, usage=usage or Usage()
    )


def answer(text: str | BaseModel | dict[str, Any], *, usage: Usage | None = None) -> ModelResponse:
    """A final answer: text as it is, a model or mapping as JSON."""
    if isinstance(text, BaseModel):
        text = text.model_dump_json()
    elif isinstance(text, dict):
        text = json.dumps(text)
    return ModelResponse(
        content=(TextBlock(text=text),), stop_reason=StopReason.END_TURN, usage=usage or Usage()
    )


def tool_names(request: ModelRequest) -> list[str]:
    """The tool definitions a request carried, by name, in order."""
    return [spec.name for spec in request.tools]


def is_sub_thinker_request(request: ModelRequest) -> bool:
    """Whether a request was made by a sub-thinker (its system text says so)."""
    return request.system.startswith("You are a sub-thinker")


def assert_paired(messages: Sequence[Message]) -> None:
    """Every tool use is answered by exactly one result in the next message, in order."""
    for index, message in enumerate(messages):
        uses = [b.id for b in message.content if isinstance(b, ToolUseBlock)]
        results_here = [b for b in message.content if isinstance(b, ToolResultBlock)]
        if message.role == "assistant":
            assert not results_here
        if not uses:
            continue
        assert index + 1 < len(messages), f"tool uses {uses} were never answered"
        following = messages[index + 1]
        answered = [b.tool_use_id for b in following.content if isinstance(b, ToolResultBlock)]
        assert following.role == "user"
        assert answered == list(dict.fromkeys(uses)), (uses, answered)


# -- recording tools -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ran:
    """One tool run, as the tool saw its thinker when it started."""

    name: str
    thinker: object
    read_only_binding: bool
    declared_read_only: bool
    available: bool
    conversation: object = None


@dataclass
class Ledger:
    """Every run of the recording tools, in start order."""

    runs: list[Ran] = field(default_factory=list)

    def names(self) -> list[str]:
        """The names of the tools that ran, in order."""
        return [ran.name for ran in self.runs]


def ledger_of(thinker: object) -> Ledger:
    """The ledger a thinker's recording tools write to (an attribute the tests set)."""
    ledger = getattr(thinker, "ledger", None)
    if ledger is None:
        parent = getattr(thinker, "parent", None)  # a sub-thinker writes to its parent's
        return ledger_of(parent) if parent is not None else Ledger()
    assert isinstance(ledger, Ledger)
    return ledger


def record(tool_: Tool[Any, Any], name: str, read_only: bool) -> None:
    """Write one run to the ledger of the thinker running ``tool_``."""
    thinker = tool_.parent
    registry = getattr(thinker, "registry", None)
    ledger_of(thinker).runs.append(
        Ran(
            name=name,
            thinker=thinker,
            read_only_binding=bool(getattr(thinker, "read_only", False)),
            declared_read_only=read_only,
            available=registry is not None and registry.available(name) is not None,
            conversation=getattr(thinker, "conversation", None),
        )
    )


class KeyInput(BaseModel):
    key: str


@tool(name="lookup", read_only=True, risk="low")
class Lookup(Tool[KeyInput, str]):
    """Look a key up in the glossary."""

    async def run(self, input: KeyInput) -> str:
        record(self, "lookup", True)
        return f"{input.key} means 42"


@tool(name="write_record", risk="medium")
class WriteRecord(Tool[KeyInput, str]):
    """Write a record to the store."""

    async def run(self, input: KeyInput) -> str:
        record(self, "write_record", False)
        return f"wrote {input.key}"


def names_of(providers: Iterable[Any]) -> list[str]:
    """The names of providers, in order."""
    return [provider.name for provider in providers]


@tool(name="define", read_only=True, risk="low")
class Define(Tool[KeyInput, str]):
    """Define a term (a catalog tool, read-only)."""

    async def run(self, input: KeyInput) -> str:
        record(self, "define", True)
        return f"{input.key}: a term"


@tool(name="archive", risk="high")
class Archive(Tool[KeyInput, str]):
    """Archive a record (a catalog tool, mutating)."""

    async def run(self, input: KeyInput) -> str:
        record(self, "archive", False)
        return f"archived {input.key}"


@tool(name="clock", read_only=True, risk="low")
class Clock(Tool[KeyInput, str]):
    """Tell the time somewhere (a system-wide tool, read-only)."""

    async def run(self, input: KeyInput) -> str:
        record(self, "clock", True)
        return "noon"


@tool(name="shred", risk="high")
class Shred(Tool[KeyInput, str]):
    """Shred a record (a system-wide tool, mutating)."""

    async def run(self, input: KeyInput) -> str:
        record(self, "shred", False)
        return f"shredded {input.key}"
