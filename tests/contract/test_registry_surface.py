"""Seed 003's registry surface: available, restrictions, phases, stable order, carried state."""

import json

import pytest
from _sample_tools import EchoTool, Search, StaticProvider, WriteNote, fetch_page, read_file

from nucleo_core import (
    CarriedState,
    Phase,
    ToolRegistry,
    UnknownTool,
    to_anthropic,
    to_mcp,
    to_openai,
)


def spec_names(registry: ToolRegistry, phase: Phase | None = None) -> list[str]:
    """The names in the spec list for ``phase`` (the current phase when omitted)."""
    specs = registry.specs() if phase is None else registry.specs_for(phase)
    return [spec.name for spec in specs]


@pytest.fixture
def registry() -> ToolRegistry:
    """Four ordinary tools and one restricting tool (the kind a skill loader is)."""
    return ToolRegistry(
        [Search, WriteNote, read_file, fetch_page, StaticProvider("skill", restricting=True)]
    )


# -- available -----------------------------------------------------------------------------------


def test_available_is_what_dispatch_goes_through(registry: ToolRegistry) -> None:
    """A restricted-out tool stays registered but is not available and cannot be created."""
    registry.restrict("procedure", ["search"])
    assert registry.get_provider_by_name("write_note") is not None
    assert registry.has_tool("write_note")
    assert registry.available("write_note") is None
    assert registry.available("native:write_note") is None
    with pytest.raises(UnknownTool) as raised:
        registry.create_tool("write_note")
    assert raised.value.available == ("search", "skill")
    assert registry.available("search") is registry.get_provider_by_name("search")


def test_available_names_are_what_a_call_may_reach_in_registry_order(
    registry: ToolRegistry,
) -> None:
    """available_names lists exactly the reachable tools, in registry order."""
    assert registry.available_names() == registry.names()
    registry.restrict("procedure", ["fetch_page", "search"])
    assert registry.available_names() == ["search", "fetch_page", "skill"]
    for name in registry.names():
        assert (registry.available(name) is not None) == (name in registry.available_names())


def test_available_treats_none_and_unknown_names_as_unavailable(registry: ToolRegistry) -> None:
    """available(None) and available of an unregistered name are None."""
    assert registry.available(None) is None
    assert registry.available("ghost") is None


# -- restrictions --------------------------------------------------------------------------------


def test_restrictions_compose_as_a_union(registry: ToolRegistry) -> None:
    """Two skills' restrictions together allow what either names, not only what both name."""
    registry.restrict("skill_a", ["search", "read_file"])
    registry.restrict("skill_b", ["write_note"])
    assert registry.available_names() == ["search", "write_note", "read_file", "skill"]
    assert registry.surface_restriction() == {"search", "read_file", "write_note"}
    assert spec_names(registry) == registry.available_names()


def test_lifting_a_restriction_widens_back(registry: ToolRegistry) -> None:
    """Lifting one restriction leaves the others; lifting all restores the whole surface."""
    registry.restrict("skill_a", ["search"])
    registry.restrict("skill_b", ["write_note"])
    assert registry.lift_restriction("skill_a") is True
    assert registry.available_names() == ["write_note", "skill"]
    assert registry.lift_restriction("skill_a") is False
    assert registry.lift_restriction("skill_b") is True
    assert registry.surface_restriction() is None
    assert registry.available_names() == registry.names()


def test_a_restriction_replaces_the_one_under_the_same_key(registry: ToolRegistry) -> None:
    """Restricting again under one key replaces that key's names rather than adding to them."""
    registry.restrict("skill_a", ["search"])
    registry.restrict("skill_a", ["read_file"])
    assert registry.restrictions == {"skill_a": frozenset({"read_file"})}
    assert registry.available_names() == ["read_file", "skill"]


def test_restricted_names_are_intersected_with_what_is_registered(registry: ToolRegistry) -> None:
    """A restriction naming unregistered tools adds nothing to the surface."""
    registry.restrict("skill_a", ["search", "ghost", "native:ghost"])
    assert registry.available_names() == ["search", "skill"]
    assert registry.available("ghost") is None
    assert set(registry.available_names()) <= set(registry.names())


def test_an_empty_restriction_leaves_only_restricting_tools(registry: ToolRegistry) -> None:
    """Restricting to nothing still keeps the restricting tool, so its mechanism survives."""
    registry.restrict("lockdown", [])
    assert registry.available_names() == ["skill"]
    assert spec_names(registry) == ["skill"]


def test_a_restricting_tool_stays_in_the_surface(registry: ToolRegistry) -> None:
    """A tool that is itself restricting is available whatever the restrictions name."""
    registry.restrict("skill_a", ["search"])
    assert registry.available("skill") is not None
    assert "skill" in spec_names(registry)
    assert isinstance(registry.create_tool("skill"), EchoTool)


def test_a_tool_registered_while_restricted_obeys_the_restriction(registry: ToolRegistry) -> None:
    """A restriction applies to tools registered after it, too."""
    registry.restrict("skill_a", ["search"])
    registry.register(StaticProvider("late"))
    assert "late" not in registry.available_names()
    registry.restrict("skill_b", ["late"])
    assert "late" in registry.available_names()


# -- phases --------------------------------------------------------------------------------------


def test_specs_for_a_phase_leave_absent_tools_out(registry: ToolRegistry) -> None:
    """A phase's spec list holds only what it permits, in the same stable order."""
    planning = Phase.only("planning", ["read_file", "search"])
    assert spec_names(registry, planning) == ["search", "read_file"]
    assert spec_names(registry) == registry.names()


def test_entering_a_phase_makes_absent_tools_unreachable(registry: ToolRegistry) -> None:
    """In a phase, an absent tool is not listed and not available, even by a remembered name."""
    planning = Phase.only("planning", ["search"])
    registry.enter_phase(planning)
    assert registry.phase == planning
    assert registry.available_names() == ["search"]
    assert spec_names(registry) == ["search"]
    assert registry.available("write_note") is None
    with pytest.raises(UnknownTool) as raised:
        registry.create_tool("write_note")
    assert raised.value.available == ("search",)
    assert registry.has_tool("write_note")


def test_leaving_the_phase_restores_the_surface(registry: ToolRegistry) -> None:
    """enter_phase(None) brings every tool back."""
    registry.enter_phase(Phase.only("planning", ["search"]))
    registry.enter_phase(None)
    assert registry.phase is None
    assert registry.available_names() == registry.names()


def test_a_read_only_phase_permits_only_read_only_tools(registry: ToolRegistry) -> None:
    """A planning phase built with read_only_tools lists only declared read-only tools."""
    planning = Phase.read_only_tools("planning")
    assert spec_names(registry, planning) == ["search", "read_file"]
    registry.enter_phase(planning)
    assert registry.available("fetch_page") is None
    assert registry.available("skill") is None


def test_a_phase_and_a_restriction_both_apply(registry: ToolRegistry) -> None:
    """A tool must be permitted by the phase and inside the restriction union."""
    registry.restrict("skill_a", ["search", "write_note"])
    registry.enter_phase(Phase.only("executing", ["write_note", "read_file", "skill"]))
    assert registry.available_names() == ["write_note", "skill"]
    assert spec_names(registry) == ["write_note", "skill"]


# -- stable order --------------------------------------------------------------------------------


def test_specs_are_in_registration_order(registry: ToolRegistry) -> None:
    """The spec list follows registration order, not names or hashes."""
    assert spec_names(registry) == ["search", "write_note", "read_file", "fetch_page", "skill"]
    reversed_registry = ToolRegistry(reversed(registry.providers()))
    assert spec_names(reversed_registry) == list(reversed(spec_names(registry)))


def test_re_registration_keeps_its_place(registry: ToolRegistry) -> None:
    """Registering a registered tool again does not move it."""
    before = json.dumps(to_anthropic(registry.specs()))
    registry.register(Search)
    registry.register(read_file)
    assert spec_names(registry) == ["search", "write_note", "read_file", "fetch_page", "skill"]
    assert json.dumps(to_anthropic(registry.specs())) == before


def test_an_added_tool_appends_and_earlier_definitions_keep_their_bytes(
    registry: ToolRegistry,
) -> None:
    """Admitting a tool appends it, so every earlier definition keeps its rendered bytes."""
    renderers = (to_anthropic, to_openai, to_mcp)
    before = [[json.dumps(entry) for entry in render(registry.specs())] for render in renderers]
    registry.register(StaticProvider("admitted"))
    after = [[json.dumps(entry) for entry in render(registry.specs())] for render in renderers]
    for earlier, now in zip(before, after, strict=True):
        assert now[: len(earlier)] == earlier
        assert len(now) == len(earlier) + 1
        assert "admitted" in now[-1]


def test_removing_a_tool_keeps_the_order_of_the_others(registry: ToolRegistry) -> None:
    """Unregistering one tool does not reorder the rest; registering it again appends it."""
    registry.unregister("write_note")
    assert spec_names(registry) == ["search", "read_file", "fetch_page", "skill"]
    registry.register(WriteNote)
    assert spec_names(registry) == ["search", "read_file", "fetch_page", "skill", "write_note"]


def test_spec_lists_are_identical_across_calls(registry: ToolRegistry) -> None:
    """Asking twice gives equal specs, so the prompt prefix is stable between turns."""
    assert registry.specs() == registry.specs()
    assert registry.specs_for(Phase.read_only_tools("p")) == registry.specs_for(
        Phase.read_only_tools("p")
    )


def test_the_spec_list_follows_registry_changes() -> None:
    """A cached spec list never outlives a registration, removal, restriction or lift."""
    registry = ToolRegistry([Search])
    assert spec_names(registry) == ["search"]
    registry.register(WriteNote)
    assert spec_names(registry) == ["search", "write_note"]
    registry.restrict("k", ["write_note"])
    assert spec_names(registry) == ["write_note"]
    registry.lift_restriction("k")
    assert spec_names(registry) == ["search", "write_note"]
    registry.unregister(Search)
    assert spec_names(registry) == ["write_note"]


# -- carried state and forgetting ----------------------------------------------------------------


def test_carried_state_is_asked_of_every_tool_in_registry_order() -> None:
    """Every tool's carried state comes back in registry order; tools without state are skipped."""
    registry = ToolRegistry(
        [
            StaticProvider("todo", state="3 open items"),
            Search,
            StaticProvider("remote", source="mcp:srv:remote", state="cursor at 40"),
            StaticProvider("plain"),
        ]
    )
    assert registry.carried_state() == [
        CarriedState(tool="todo", text="3 open items"),
        CarriedState(tool="remote", text="cursor at 40"),
    ]


def test_carried_state_ignores_the_surface() -> None:
    """State is asked of every registered tool, including ones outside the current surface."""
    registry = ToolRegistry([StaticProvider("todo", state="kept")])
    registry.restrict("k", [])
    registry.enter_phase(Phase.only("p", []))
    assert registry.carried_state() == [CarriedState(tool="todo", text="kept")]


def test_forget_conversation_state_reaches_every_tool() -> None:
    """Every registered tool is told the conversation ended, in registry order."""
    told: list[str] = []
    registry = ToolRegistry(
        [StaticProvider(name, forgotten=told) for name in ("first", "second", "third")]
    )
    registry.forget_conversation_state()
    assert told == ["first", "second", "third"]


def test_forget_conversation_state_reaches_every_tool_even_if_one_raises() -> None:
    """A tool that raises does not stop the others from being told; the failure is reported."""
    told: list[str] = []
    failure = RuntimeError("store unavailable")
    registry = ToolRegistry(
        [
            StaticProvider("first", forgotten=told),
            StaticProvider("broken", forgotten=told, forget_error=failure),
            StaticProvider("third", forgotten=told),
            Search,
        ]
    )
    with pytest.raises(ExceptionGroup) as raised:
        registry.forget_conversation_state()
    assert told == ["first", "broken", "third"]
    assert raised.value.exceptions == (failure,)
