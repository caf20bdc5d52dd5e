"""ReadOnlyPaletteTest, the thinker parts (seeds 000 and 001: "Read-only palettes").

A thinker bound read-only is never offered a tool not declared read-only, and never runs one:
the sweep after every reconciliation keeps the offer clean, and the check at each call holds
even for a tool that joined the palette after the model was shown it. ``request_tools`` is
removed (it could admit anything), ``request_skill`` stays. ``sub_thinker`` stays too, declared
read-only, because the sub-thinker it launches is bound read-only in turn.
"""

import asyncio
from typing import Any

import pytest
from _hub_kit import make_skill
from _loop_kit import (
    Archive,
    Clock,
    Define,
    Ledger,
    Lookup,
    Shred,
    WriteRecord,
    answer,
    call,
    calls,
    is_sub_thinker_request,
    make,
    tool_names,
)

from nucleo_core import (
    ReadOnlyPalette,
    SkillRegistry,
    SkillSelector,
    ToolHub,
    ToolRegistry,
    ToolSelector,
)
from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import (
    SUB_THINKER,
    SubThinker,
    SubThinkerRequest,
    sub_thinker_tool,
)

MUTATING = {"write_record", "archive", "shred", REQUEST_TOOLS}
VIOLATION = (
    "Tool 'archive' is not declared read-only and this palette is bound read-only; choose a "
    "read-only tool instead"
)


class Auditor(SingleObjectiveThinker[str, str]):
    """A read-only and a mutating default tool; one of each in the catalog; skills on offer."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Archive])

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub with one skill."""
    return ToolHub(skills=SkillRegistry([make_skill("style")]))


def auditor(model: ScriptedModel, hub: ToolHub, **kwargs: Any) -> Any:
    thinker = make(Auditor, model, hub=hub, read_only=True, **kwargs)
    thinker.ledger = Ledger()
    return thinker


def last_results(request: ModelRequest) -> list[ToolResultBlock]:
    return [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]


def test_a_read_only_thinker_is_offered_no_mutating_tool_on_any_turn(hub: ToolHub) -> None:
    """Declared, added, system-wide: whatever widens the palette, the offer stays read-only."""

    def script(request: ModelRequest) -> ModelResponse:
        turn = len(model.requests)
        if turn == 1:
            thinker.add_tool(Archive)
            thinker.add_tool(Define)
            hub.register_system_wide_tool(Shred, Clock)
            return calls(call("lookup", {"key": "x"}))
        if turn == 2:
            return calls(call(REQUEST_SKILL, {"skill": "style"}))
        return answer("ok")

    model = ScriptedModel(script)
    thinker = auditor(model, hub)
    asyncio.run(thinker.run("Audit."))

    offers = [tool_names(request) for request in model.requests]
    assert all(not MUTATING & set(offer) for offer in offers)
    assert all(REQUEST_SKILL in offer or turn == 2 for turn, offer in enumerate(offers))
    assert offers[1][-2:] == ["define", "clock"]
    assert thinker.ledger.names() == ["lookup"]


def test_a_mutating_tool_added_after_the_sweep_is_refused_at_the_call(hub: ToolHub) -> None:
    """Added mid-exchange and called in that very answer, a mutating tool is refused, not run."""

    def script(request: ModelRequest) -> ModelResponse:
        if len(model.requests) == 1:
            thinker.add_tool(Archive)  # after this turn's sweep: in the palette for now
            return calls(call("archive", {"key": "x"}), call("lookup", {"key": "x"}))
        return answer("ok")

    model = ScriptedModel(script)
    thinker = auditor(model, hub)
    asyncio.run(thinker.run("Audit."))

    refused, looked_up = last_results(model.requests[1])
    assert refused.is_error
    assert refused.content == VIOLATION
    assert not looked_up.is_error
    assert thinker.ledger.names() == ["lookup"]
    assert "archive" not in tool_names(model.requests[1])


def test_a_mutating_tool_registered_system_wide_mid_run_never_runs(hub: ToolHub) -> None:
    """A system-wide mutating tool is swept at the next turn and refused whenever it is called."""

    def script(request: ModelRequest) -> ModelResponse:
        turn = len(model.requests)
        if turn == 1:
            hub.register_system_wide_tool(Shred)
            return calls(call("shred", {"key": "x"}))
        if turn == 2:
            return calls(call("shred", {"key": "y"}))
        return answer("ok")

    model = ScriptedModel(script)
    thinker = auditor(model, hub)
    asyncio.run(thinker.run("Audit."))

    assert all(result.is_error for r in model.requests[1:] for result in last_results(r))
    assert "shred" not in tool_names(model.requests[1])
    assert thinker.ledger.names() == []


def test_request_tools_is_removed_and_its_door_refuses_mutating_tools(hub: ToolHub) -> None:
    """A read-only thinker has no request_tools; asked directly, the door admits read-only only."""
    thinker = auditor(ScriptedModel(), hub)
    names = thinker.reconcile_tool_registry().names()
    assert REQUEST_TOOLS not in names
    assert REQUEST_SKILL in names

    refused = thinker.request_tools(["archive"])
    assert refused.granted == ()
    assert "bound read-only" in refused.refused[0].reason
    assert thinker.request_tools(["define"]).granted == ("define",)


def test_a_call_to_request_tools_is_refused_under_a_read_only_binding(hub: ToolHub) -> None:
    """The model cannot reach request_tools by calling it anyway: nothing is granted."""
    model = ScriptedModel([calls(call(REQUEST_TOOLS, {"tools": ["archive"]})), answer("ok")])
    thinker = auditor(model, hub)
    asyncio.run(thinker.run("Audit."))

    (result,) = last_results(model.requests[1])
    assert result.is_error
    assert "archive" not in thinker.registry.names()


# -- delegation under a read-only binding ----------------------------------------------------------


def test_sub_thinker_is_declared_read_only_exactly_in_a_read_only_palette(hub: ToolHub) -> None:
    """The read-only variant survives the sweep; the other is swept like any mutating tool."""
    read_only = sub_thinker_tool(auditor(ScriptedModel(), hub))
    mutating = sub_thinker_tool(make(Auditor, ScriptedModel(), hub=hub))

    assert read_only.name == mutating.name == SUB_THINKER
    assert (read_only.read_only, mutating.read_only) == (True, False)
    assert read_only.risk == mutating.risk == "high"
    registry = ToolRegistry([mutating])
    assert ReadOnlyPalette.sweep(registry) == [SUB_THINKER]
    assert SUB_THINKER in auditor(ScriptedModel(), hub).reconcile_tool_registry().names()


def test_a_read_only_parent_s_delegation_runs_nothing_mutating(hub: ToolHub) -> None:
    """The sub-thinker of a read-only thinker is read-only: offered and running read-only tools."""

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub_thinker_request(request):
            if len(request.messages) == 1:
                return calls(call("write_record", {"key": "x"}), call("lookup", {"key": "x"}))
            return answer({"answer": "x means 42"})
        if len(request.messages) == 1:
            return calls(call(SUB_THINKER, {"objective": "Find x."}))
        return answer("x means 42")

    model = ScriptedModel(script)
    thinker = auditor(model, hub)
    asyncio.run(thinker.run("Audit."))

    subs = [request for request in model.requests if is_sub_thinker_request(request)]
    assert len(subs) == 2
    assert all(not MUTATING & set(tool_names(request)) for request in subs)
    refused, looked_up = last_results(subs[1])
    assert refused.is_error
    assert not looked_up.is_error
    assert [(ran.name, ran.read_only_binding) for ran in thinker.ledger.runs] == [("lookup", True)]


def test_a_sub_thinker_can_be_bound_read_only_under_a_mutating_parent(hub: ToolHub) -> None:
    """read_only=True binds the sub-thinker however its parent is bound."""
    parent = make(Auditor, ScriptedModel(), hub=hub)
    parent.reconcile_tool_registry()

    sub = SubThinker(parent, read_only=True)
    names = sub.reconcile_tool_registry().names()
    assert sub.read_only
    assert not MUTATING & set(names)
    assert "lookup" in names


def test_a_read_only_parent_cannot_launch_a_mutating_sub_thinker(hub: ToolHub) -> None:
    """A read-only parent's sub-thinker is read-only even when asked for read_only=False."""
    parent = auditor(ScriptedModel(), hub)
    parent.reconcile_tool_registry()
    assert SubThinker(parent, read_only=False).read_only


def test_the_read_only_variant_binds_its_sub_thinker_whoever_runs_it(hub: ToolHub) -> None:
    """Run for a mutating parent, the read-only sub_thinker still launches a read-only sub."""
    model = ScriptedModel([answer({"answer": "nothing to do"})])
    parent = make(Auditor, model, hub=hub)
    parent.reconcile_tool_registry()
    provider = sub_thinker_tool(auditor(ScriptedModel(), hub))
    output = asyncio.run(
        provider.create(parent).run(SubThinkerRequest(objective="Look."))  # type: ignore[arg-type]
    )

    assert output.answer == "nothing to do"
    assert not MUTATING & set(tool_names(model.requests[0]))
