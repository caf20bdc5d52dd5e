"""Unit tests of `Phase`."""

from _providers import provider

from nucleo_core import Phase


def test_a_phase_with_no_tool_list_permits_every_tool() -> None:
    """Phase(name) narrows nothing."""
    phase = Phase("anything")
    assert phase.permits(provider("a"))
    assert phase.permits(provider("b", read_only=True))


def test_only_permits_exactly_the_named_tools() -> None:
    """Phase.only permits the named tools and no other."""
    phase = Phase.only("planning", ["a", "b"])
    assert phase.tools == frozenset({"a", "b"})
    assert phase.permits(provider("a"))
    assert not phase.permits(provider("c", read_only=True))


def test_read_only_tools_permits_only_declared_read_only_tools() -> None:
    """Phase.read_only_tools permits a tool only when it is declared read-only."""
    phase = Phase.read_only_tools("planning")
    assert phase.permits(provider("a", read_only=True))
    assert not phase.permits(provider("b"))


def test_a_named_read_only_phase_needs_both() -> None:
    """With a tool list and read_only, a tool must be named and read-only."""
    phase = Phase("review", frozenset({"a", "b"}), read_only=True)
    assert phase.permits(provider("a", read_only=True))
    assert not phase.permits(provider("b"))
    assert not phase.permits(provider("c", read_only=True))


def test_equal_phases_are_interchangeable() -> None:
    """Phases are values: equal when their fields are, and hashable (specs are cached by phase)."""
    assert Phase.only("p", ["a", "b"]) == Phase.only("p", ["b", "a"])
    assert len({Phase.only("p", ["a"]), Phase.only("p", ["a"])}) == 1
