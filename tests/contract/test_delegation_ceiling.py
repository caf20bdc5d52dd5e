"""Delegation never widens what may run: a sub-thinker's surface is at most its parent's.

Pins leak 1 of the issue "Governance holds on every path": a parent narrowed by a phase or by
a skill's ``allowed-tools`` delegates, and the sub-thinker's model tries a high-risk mutating
system-wide tool the parent could not reach; nested delegation keeps the same ceiling.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _hub_kit import make_skill
from _loop_kit import (
    Archive,
    Define,
    Ledger,
    Lookup,
    Shred,
    answer,
    call,
    calls,
    is_sub_thinker_request,
    make,
    tool_names,
)

from nucleo_core import Phase, SkillRegistry, SkillSelector, ToolHub, ToolSelector
from nucleo_core.hub import REQUEST_TOOLS
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SUB_THINKER, SubThinker


class Lead(SingleObjectiveThinker[str, str]):
    """A default lookup; a catalog of define and archive; every skill on offer."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Archive])

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


def hub_with_shred() -> ToolHub:
    """A hub offering every thinker the high-risk, mutating ``shred`` system-wide."""
    hub = ToolHub(skills=SkillRegistry([make_skill("glossary", allowed_tools=("lookup",))]))
    hub.register_system_wide_tool(Shred)
    return hub


def delegating_script(sub_calls: list[str]) -> ScriptedModel:
    """The parent delegates once; its sub-thinker calls each of ``sub_calls`` then answers."""

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub_thinker_request(request):
            if len(request.messages) == 1:
                return calls(*(call(name, {"key": "x"}) for name in sub_calls))
            return answer({"answer": "done"})
        if len(request.messages) == 1:
            return calls(call(SUB_THINKER, {"objective": "Clean up."}))
        return answer("done")

    return ScriptedModel(script)


def sub_results(model: ScriptedModel) -> list[ToolResultBlock]:
    """The results the sub-thinker's second request carried."""
    subs = [request for request in model.requests if is_sub_thinker_request(request)]
    return [b for b in subs[1].messages[-1].content if isinstance(b, ToolResultBlock)]


def test_a_phase_narrowed_parent_s_sub_thinker_cannot_run_a_system_wide_tool() -> None:
    """Phase [lookup, sub_thinker]: the sub is neither offered nor runs ``shred``."""
    model = delegating_script(["shred", "lookup"])
    parent = make(Lead, model, hub=hub_with_shred())
    parent.ledger = Ledger()
    parent.registry.enter_phase(Phase.only("triage", ["lookup", SUB_THINKER]))
    asyncio.run(parent.run("Triage."))

    subs = [request for request in model.requests if is_sub_thinker_request(request)]
    assert "shred" not in tool_names(subs[0])
    assert REQUEST_TOOLS not in tool_names(subs[0])  # the parent could not ask for more
    refused, looked_up = sub_results(model)
    assert refused.is_error
    assert not looked_up.is_error
    assert parent.ledger.names() == ["lookup"]


def test_a_skill_narrowed_parent_s_sub_thinker_cannot_run_a_system_wide_tool() -> None:
    """A skill's allowed-tools [lookup] on the parent bounds the sub-thinker too."""
    model = delegating_script(["shred", "lookup"])
    parent = make(Lead, model, hub=hub_with_shred())
    parent.ledger = Ledger()
    assert parent.request_skill("glossary").granted
    # sub_thinker is the family's own tool: keep it reachable alongside the skill's tools.
    parent.registry.restrict("delegation", [SUB_THINKER])
    asyncio.run(parent.run("Look things up."))

    refused, looked_up = sub_results(model)
    assert refused.is_error
    assert not looked_up.is_error
    assert parent.ledger.names() == ["lookup"]


def test_a_sub_thinker_cannot_be_granted_what_the_parent_s_phase_excludes() -> None:
    """With request_tools in the parent's phase, the sub may ask only for what that phase runs."""
    parent = make(Lead, ScriptedModel(), hub=hub_with_shred())
    parent.registry.enter_phase(Phase.only("read", ["lookup", "define", REQUEST_TOOLS]))
    parent.reconcile_tool_registry()
    sub = SubThinker(parent)
    sub.reconcile_tool_registry()

    assert sub.request_tools(["define"]).granted == ("define",)
    assert not sub.request_tools(["archive"]).granted
    assert "shred" not in sub.registry.names()


def test_nested_delegation_keeps_the_first_parent_s_ceiling() -> None:
    """A sub-thinker's own sub-thinker is bounded by the same surface."""
    parent = make(Lead, ScriptedModel(), hub=hub_with_shred())
    parent.registry.enter_phase(Phase.only("triage", ["lookup", SUB_THINKER]))
    parent.reconcile_tool_registry()
    sub = SubThinker(parent, depth=Depth.THOROUGH)
    sub.reconcile_tool_registry()
    nested = SubThinker(sub)
    names = nested.reconcile_tool_registry().names()

    assert "shred" not in names
    assert "lookup" in names
    assert not nested.request_tools(["archive"]).granted


def test_an_unnarrowed_parent_delegates_what_it_has() -> None:
    """Without narrowing, the sub-thinker still gets the system-wide tool the parent has."""
    parent = make(Lead, ScriptedModel(), hub=hub_with_shred())
    parent.reconcile_tool_registry()
    sub = SubThinker(parent)

    assert {"shred", "lookup", REQUEST_TOOLS} <= set(sub.reconcile_tool_registry().names())
