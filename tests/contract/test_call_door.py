"""The call door: what may run is checked at the call, and no override widens it.

Pins leaks 3 (a revoked or withdrawn tool stays callable) and 8 (the checks can be overridden
away) of the issue "Governance holds on every path", and that a catalog override can only
narrow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from _loop_kit import (
    Archive,
    Clock,
    Define,
    Ledger,
    Lookup,
    Shred,
    answer,
    call,
    calls,
    make,
    tool_names,
)

from nucleo_core import ToolHub, ToolProvider, ToolRegistry, ToolSelector, hookimpl
from nucleo_core.errors import InvalidToolInput, ReadOnlyViolation, UnknownTool
from nucleo_core.hub import REQUEST_TOOLS
from nucleo_core.hub.call_door import call_door
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking import ToolCall
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.tools import provider_for


class Operator(SingleObjectiveThinker[str, str]):
    """A default lookup; a catalog of a read-only define and a high-risk archive."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Archive])


def results_of(model: ScriptedModel, index: int) -> list[ToolResultBlock]:
    """The tool results request ``index`` carried last."""
    return [b for b in model.requests[index].messages[-1].content if isinstance(b, ToolResultBlock)]


def run(thinker: Any) -> None:
    asyncio.run(thinker.run("Help."))


def scripted(*steps: Callable[[], ModelResponse]) -> ScriptedModel:
    """A model whose n-th answer is made by the n-th step, while the model 'thinks'."""
    queue = list(steps)

    def script(request: ModelRequest) -> ModelResponse:
        return queue.pop(0)()

    return ScriptedModel(script)


# -- leak 3: withdrawal and revocation are seen by the call check ----------------------------


def test_a_system_wide_tool_withdrawn_while_the_model_thinks_is_refused_in_that_answer() -> None:
    """The withdrawal happens during the exchange; the same answer's call to it does not run."""
    hub = ToolHub()
    hub.register_system_wide_tool(Shred)

    def withdraw_then_call() -> ModelResponse:
        hub.withdraw_system_wide_tool("shred")
        return calls(call("shred", {"key": "x"}))

    model = scripted(withdraw_then_call, lambda: answer("ok"))
    thinker = make(Operator, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker)

    assert "shred" in tool_names(model.requests[0])
    (refusal,) = results_of(model, 1)
    assert refusal.is_error
    assert refusal.content.startswith("No such tool is available.")
    assert thinker.ledger.names() == []


def test_a_grant_whose_catalog_narrows_while_the_model_thinks_is_revoked_at_the_call() -> None:
    """Granted on one turn, withdrawn from the catalog during the next exchange: refused."""
    hub = ToolHub()

    def narrow_then_call() -> ModelResponse:
        hub.withdraw_compatible(None, "archive")
        return calls(call("archive", {"key": "x"}))

    model = scripted(
        lambda: calls(call(REQUEST_TOOLS, {"tools": ["archive"]})),
        narrow_then_call,
        lambda: answer("ok"),
    )
    thinker = make(Operator, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker)

    assert "archive" in tool_names(model.requests[1])
    (refusal,) = results_of(model, 2)
    assert refusal.is_error
    assert thinker.ledger.names() == []
    assert "archive" not in tool_names(model.requests[2])
    revoked = [e for e in hub.admission_record if e.name == "archive" and not e.granted]
    assert revoked
    assert revoked[-1].outcomes[0].guardrail == "revocation"


class _WithholdArchive:
    """A reconcile hook that starts withholding ``archive`` once switched on."""

    def __init__(self) -> None:
        self.on = False

    @hookimpl
    def nucleo_reconcile_catalog(self, thinker: Any, catalog: Sequence[str]) -> list[str]:
        return ["archive"] if self.on else []


def test_a_grant_a_hook_withholds_on_a_later_turn_is_neither_offered_nor_run() -> None:
    """Narrowing by ``nucleo_reconcile_catalog`` revokes the grant made from the catalog."""
    hub = ToolHub()
    withhold = _WithholdArchive()
    hub.register_plugin(withhold, name="withhold-archive")

    def switch_on_then_call() -> ModelResponse:
        withhold.on = True
        return calls(call("archive", {"key": "x"}))

    model = scripted(
        lambda: calls(call(REQUEST_TOOLS, {"tools": ["archive"]})),
        lambda: calls(call("lookup", {"key": "y"})),
        switch_on_then_call,
        lambda: calls(call("archive", {"key": "z"})),
        lambda: answer("ok"),
    )
    thinker = make(Operator, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker)

    assert "archive" in tool_names(model.requests[1])
    (first,) = results_of(model, 3)
    assert first.is_error
    assert "archive" not in tool_names(model.requests[3])
    (second,) = results_of(model, 4)
    assert second.is_error
    assert thinker.ledger.names() == ["lookup"]


class Narrowing(Operator):
    """Its reconcile_catalog drops ``archive`` once told to."""

    drop = False

    def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
        return [p for p in catalog if not (self.drop and p.name == "archive")]


def test_a_grant_reconcile_catalog_drops_later_is_revoked() -> None:
    """A thinker's own narrowing revokes what it had granted; the next call is refused."""
    hub = ToolHub()
    thinker: Narrowing

    def drop_then_call() -> ModelResponse:
        thinker.drop = True
        return calls(call("archive", {"key": "x"}))

    model = scripted(
        lambda: calls(call(REQUEST_TOOLS, {"tools": ["archive"]})),
        drop_then_call,
        lambda: answer("ok"),
    )
    thinker = make(Narrowing, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker)

    (refusal,) = results_of(model, 2)
    assert refusal.is_error
    assert thinker.ledger.names() == []
    assert "archive" not in thinker.registry.names()


# -- leak 8: the checks are outside any overridable method -----------------------------------


class Permissive(Operator):
    """A read-only subclass that overrides every check it can reach to let anything run."""

    def check_call(self, name: str | None) -> ToolProvider:
        provider = self.registry.get(name or "")
        if provider is None:
            return provider_for(Shred)
        return provider

    def reconcile_tool_registry(self) -> ToolRegistry:
        registry = super().reconcile_tool_registry()
        registry.register(provider_for(Shred))  # put a mutating tool back after the sweep
        return registry


def test_a_read_only_subclass_overriding_the_checks_cannot_run_a_mutating_tool() -> None:
    """Overriding check_call and reconcile_tool_registry does not reach the call door."""
    model = ScriptedModel([calls(call("shred", {"key": "x"})), answer("ok")])
    thinker = make(Permissive, model, hub=ToolHub(), read_only=True)
    thinker.ledger = Ledger()
    run(thinker)

    (refusal,) = results_of(model, 1)
    assert refusal.is_error
    assert thinker.ledger.names() == []


def test_the_door_refuses_a_mutating_tool_for_a_read_only_thinker_whatever_is_registered() -> None:
    """call_door itself, as the loop calls it, refuses the tool registered behind its back.

    It is not in the palette the thinker built (the first step), nor read-only (the second).
    """
    thinker = make(Permissive, ScriptedModel([]), hub=ToolHub(), read_only=True)
    thinker.reconcile_tool_registry()
    assert "shred" in thinker.registry.names()

    with pytest.raises((ReadOnlyViolation, UnknownTool)):
        call_door(thinker, ToolCall(id="t1", name="shred", raw_input={"key": "x"}))


class Widening(Operator):
    """Overrides that try to widen the catalog with a tool it does not hold."""

    def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
        return [*catalog, provider_for(Clock)]

    def tool_catalog(self) -> Sequence[ToolProvider]:
        return [*super().tool_catalog(), provider_for(Shred)]


def test_catalog_overrides_can_narrow_but_never_widen_admission() -> None:
    """A tool added by reconcile_catalog or tool_catalog overrides is refused off-catalog."""
    hub = ToolHub()
    thinker = make(Widening, ScriptedModel([]), hub=hub)
    for name in ("clock", "shred"):
        admission = hub.admit_tool(thinker, name)
        assert not admission.granted
        assert "catalog" in admission.reason
    assert hub.admit_tool(thinker, "define").granted


# -- the door's order: available, then read-only, then the input ------------------------------


def test_a_withdrawn_tool_called_with_bad_input_is_refused_as_unavailable_not_as_invalid() -> None:
    """The input of a tool that may not run is never checked: the model learns no schema."""
    hub = ToolHub()
    hub.register_system_wide_tool(Shred)

    def withdraw_then_call() -> ModelResponse:
        hub.withdraw_system_wide_tool("shred")
        return calls(call("shred", {"wrong": 1}))

    model = scripted(withdraw_then_call, lambda: answer("ok"))
    thinker = make(Operator, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker)

    (refusal,) = results_of(model, 1)
    assert refusal.is_error
    assert refusal.content.startswith("No such tool is available.")
    assert "key" not in refusal.content
    assert thinker.ledger.names() == []


def test_the_door_checks_the_input_against_the_provider_that_runs() -> None:
    """A call parsed against one provider runs another only after its input fits that one."""
    thinker = make(Operator, ScriptedModel([]), hub=ToolHub())
    thinker.reconcile_tool_registry()
    lookup = thinker.registry.available("lookup")
    assert lookup is not None
    stale = provider_for(Lookup)  # what the answer was parsed against: not what runs now

    cleared = call_door(
        thinker, ToolCall(id="t1", name="lookup", raw_input={"key": "k"}, provider=stale)
    )
    assert cleared.provider is lookup
    assert cleared.input.key == "k"
    with pytest.raises(InvalidToolInput) as refused:
        call_door(thinker, ToolCall(id="t2", name="lookup", raw_input={"key": 3}, provider=stale))
    assert refused.value.tool == "lookup"


def test_an_input_unusable_for_any_tool_stays_refused_when_the_provider_changed() -> None:
    """Input cut for nesting too deep is not re-read as valid against a new provider."""
    thinker = make(Operator, ScriptedModel([]), hub=ToolHub())
    thinker.reconcile_tool_registry()
    problem = "input: nests objects and arrays too deep"

    with pytest.raises(InvalidToolInput) as refused:
        call_door(
            thinker,
            ToolCall(id="t1", name="lookup", raw_input={"key": "k"}, input_problem=problem),
        )
    assert refused.value.problems == (problem,)


def test_a_nameless_call_is_told_to_name_an_available_tool() -> None:
    """A call that names no tool is refused with the names it may use."""
    thinker = make(Operator, ScriptedModel([]), hub=ToolHub())
    thinker.reconcile_tool_registry()

    with pytest.raises(UnknownTool) as refused:
        call_door(thinker, ToolCall(id="t1", name="", raw_input={}))
    assert str(refused.value).startswith("The tool name must be a string naming one of")
    assert "lookup" in refused.value.available
