"""Unit tests of `ToolRegistry`'s container behaviour (its contracts are in tests/contract)."""

from _providers import provider

from nucleo_core import ToolRegistry


def test_the_registry_is_a_sized_iterable_container_of_providers() -> None:
    """len, iteration, membership, names() and providers() agree, in registry order."""
    first, second = provider("first"), provider("second")
    registry = ToolRegistry([first, second])
    assert len(registry) == 2
    assert list(registry) == registry.providers() == [first, second]
    assert registry.names() == ["first", "second"]
    assert "first" in registry
    assert "native:second" in registry
    assert "third" not in registry
    assert None not in registry
    assert 3 not in registry


def test_iterating_while_registering_sees_a_snapshot() -> None:
    """Registering during iteration neither fails nor extends the loop."""
    registry = ToolRegistry([provider("first"), provider("second")])
    seen = []
    for index, item in enumerate(registry):
        seen.append(item.name)
        registry.register(provider(f"added_{index}"))
    assert seen == ["first", "second"]
    assert registry.names() == ["first", "second", "added_0", "added_1"]


def test_returned_lists_are_copies() -> None:
    """Mutating what names(), providers() or specs() returned does not touch the registry."""
    registry = ToolRegistry([provider("first")])
    registry.names().clear()
    registry.providers().clear()
    registry.specs().clear()
    registry.available_names().clear()
    assert registry.names() == ["first"]
    assert [spec.name for spec in registry.specs()] == ["first"]


def test_restrictions_are_reported_as_a_copy() -> None:
    """The restrictions mapping a caller reads cannot change the registry's."""
    registry = ToolRegistry([provider("first"), provider("second")])
    registry.restrict("k", ["first"])
    registry.restrictions.clear()  # type: ignore[attr-defined]
    assert registry.available_names() == ["first"]


def test_the_repr_counts_the_tools() -> None:
    """The repr shows how many tools are registered."""
    assert repr(ToolRegistry([provider("first")])) == "<ToolRegistry 1 tools>"
