"""ReadOnlyPaletteTest, the admission and construction-time parts (seed 000).

A thinker's read-only binding is fixed when it is built. Admission refuses a tool not declared
read-only to a read-only thinker, whatever the guardrails say; ``request_tools`` is swept from
its palette; and the per-call check refuses a mutating tool however it got into the registry,
since a palette can grow after the model was shown it.
"""

import logging
from typing import Any

import pytest
from _hub_kit import Deploy, Rule, Summarize, lookup, write_record

from nucleo_core import (
    CorrectableError,
    ReadOnlyViolation,
    ThinkerBase,
    ToolHub,
    ToolSelector,
    UnknownTool,
)
from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS


class Inspector(ThinkerBase):
    """Default tools of both kinds, and a catalog of both kinds."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [lookup, write_record]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Summarize, Deploy])


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub."""
    return ToolHub()


# -- the construction-time latch -----------------------------------------------------------------


@pytest.mark.parametrize("bound", [True, False])
def test_the_read_only_binding_cannot_change_after_construction(hub: ToolHub, bound: bool) -> None:
    """read_only has no setter: assigning it raises and the binding stays as built."""
    thinker = Inspector(hub=hub, read_only=bound)

    with pytest.raises(AttributeError):
        thinker.read_only = not bound  # type: ignore[misc]

    assert thinker.read_only is bound


def test_the_binding_is_a_bool_whatever_was_passed(hub: ToolHub) -> None:
    """A truthy argument binds read-only; the property reports a real bool."""
    assert Inspector(hub=hub, read_only=1).read_only is True  # type: ignore[arg-type]
    assert Inspector(hub=hub).read_only is False


def test_the_binding_holds_turn_after_turn(hub: ToolHub) -> None:
    """Every turn's palette of a read-only thinker is swept, not only the first."""
    thinker = Inspector(hub=hub, read_only=True)

    for _ in range(3):
        assert thinker.reconcile_tool_registry().names() == ["lookup"]


# -- admission -----------------------------------------------------------------------------------


def test_admission_refuses_a_mutating_tool_to_a_read_only_thinker(hub: ToolHub) -> None:
    """Even with every guardrail granting, a tool not declared read-only is refused, with why."""
    hub.register_admission(None, "*", Rule.grant())
    thinker = Inspector(hub=hub, read_only=True)

    admission = hub.admit_tool(thinker, "deploy")

    assert not admission.granted
    assert "deploy" in admission.reason
    assert "read-only" in admission.reason
    assert admission.provider is None
    (event,) = hub.admission_record
    assert (event.name, event.granted, event.reason) == ("deploy", False, admission.reason)
    assert [outcome.guardrail for outcome in event.outcomes] == ["read-only palette"]


def test_admission_grants_a_read_only_tool_to_a_read_only_thinker(hub: ToolHub) -> None:
    """A catalog tool declared read-only passes; it survives the next sweep and is callable."""
    thinker = Inspector(hub=hub, read_only=True)
    thinker.reconcile_tool_registry()

    result = thinker.request_tools(["summarize", "deploy"])
    registry = thinker.reconcile_tool_registry()

    assert result.granted == ("summarize",)
    assert [refusal.name for refusal in result.refused] == ["deploy"]
    assert "read-only" in result.refused[0].reason
    assert registry.names() == ["lookup", "summarize"]
    assert thinker.check_call("summarize").name == "summarize"


def test_a_thinker_not_bound_read_only_may_be_granted_a_mutating_tool(hub: ToolHub) -> None:
    """The read-only refusal applies only to read-only thinkers."""
    thinker = Inspector(hub=hub)

    assert thinker.request_tools(["deploy"]).granted == ("deploy",)
    assert thinker.check_call("deploy").name == "deploy"


# -- the offer -----------------------------------------------------------------------------------


def test_request_tools_is_swept_from_a_read_only_palette(hub: ToolHub) -> None:
    """request_tools can admit any tool, so it is not offered, and a call to it is unknown."""
    thinker = Inspector(hub=hub, read_only=True)
    registry = thinker.reconcile_tool_registry()

    assert REQUEST_TOOLS not in registry
    assert REQUEST_SKILL not in registry  # no skill catalog declared
    with pytest.raises(UnknownTool):
        thinker.check_call(REQUEST_TOOLS)


def test_the_sweep_removes_and_logs_every_mutating_tool_of_the_palette(
    hub: ToolHub, caplog: pytest.LogCaptureFixture
) -> None:
    """Mutating defaults and request_tools are removed from the offer, each removal logged."""
    thinker = Inspector(hub=hub, read_only=True)

    with caplog.at_level(logging.INFO, logger="nucleo.palette"):
        registry = thinker.reconcile_tool_registry()

    assert registry.names() == ["lookup"]
    removed = " ".join(record.getMessage() for record in caplog.records)
    assert "write_record" in removed
    assert REQUEST_TOOLS in removed


def test_a_mutating_system_wide_tool_is_swept_from_a_read_only_palette(hub: ToolHub) -> None:
    """A system-wide tool registered after construction is swept like any other."""
    thinker = Inspector(hub=hub, read_only=True)
    thinker.reconcile_tool_registry()

    hub.register_system_wide_tool(Deploy, Summarize)
    registry = thinker.reconcile_tool_registry()

    assert registry.names() == ["lookup", "summarize"]


# -- the per-call check --------------------------------------------------------------------------


def test_check_call_refuses_a_mutating_tool_added_with_add_tool(hub: ToolHub) -> None:
    """add_tool widens the registry at once; the per-call check still refuses the tool."""
    thinker = Inspector(hub=hub, read_only=True)
    thinker.reconcile_tool_registry()

    thinker.add_tool(Deploy)

    assert "deploy" in thinker.registry
    with pytest.raises(ReadOnlyViolation) as caught:
        thinker.check_call("deploy")
    assert caught.value.tool == "deploy"
    assert isinstance(caught.value, CorrectableError)


def test_check_call_refuses_a_mutating_tool_registered_behind_the_thinkers_back(
    hub: ToolHub,
) -> None:
    """A tool put straight into the registry, past every sweep, is refused at the call."""
    thinker = Inspector(hub=hub, read_only=True)
    thinker.reconcile_tool_registry()

    thinker.registry.register(write_record)

    with pytest.raises(ReadOnlyViolation):
        thinker.check_call("write_record")
    assert thinker.check_call("lookup").name == "lookup"


def test_check_call_lets_a_mutating_tool_run_for_a_thinker_not_bound_read_only(
    hub: ToolHub,
) -> None:
    """Without the binding, a mutating tool in the palette may run."""
    thinker = Inspector(hub=hub)
    thinker.reconcile_tool_registry()

    assert thinker.check_call("write_record").name == "write_record"
