"""ReadOnlyPaletteTest: the sweep, the per-call check and the read-only defaults (seed 000)."""

import logging

import pytest
from _sample_tools import Search, SearchInput, StaticProvider, WriteNote, fetch_page, read_file

from nucleo_core import (
    ClassToolProvider,
    CorrectableError,
    FunctionToolProvider,
    ReadOnlyPalette,
    ReadOnlyViolation,
    Tool,
    ToolRegistry,
    tool,
)


@tool(name="plain_class")
class PlainClass(Tool[SearchInput, str]):
    """A class tool that declares nothing about read-only."""

    def run(self, input: SearchInput) -> str:
        return input.query


@tool
def plain_function(query: str) -> str:
    """A function tool that declares nothing about read-only."""
    return query


# -- defaults ------------------------------------------------------------------------------------


def test_read_only_defaults_to_false_on_the_tool_provider_base() -> None:
    """A provider that does not say is treated as mutating."""
    assert StaticProvider("echo").read_only is False


def test_read_only_defaults_to_false_on_class_tool_provider() -> None:
    """A class tool declared without read_only is mutating."""
    assert ClassToolProvider(PlainClass).read_only is False


def test_read_only_defaults_to_false_on_function_tool_provider() -> None:
    """A function tool declared without read_only is mutating."""
    assert FunctionToolProvider(plain_function).read_only is False


def test_read_only_is_what_was_declared() -> None:
    """read_only=True on the declaration is what the provider reports."""
    assert ClassToolProvider(Search).read_only is True
    assert FunctionToolProvider(read_file).read_only is True


# -- sweep ---------------------------------------------------------------------------------------


def test_sweep_removes_every_non_read_only_provider_and_returns_their_names() -> None:
    """The sweep leaves only read-only tools, in order, and names each removal in order."""
    registry = ToolRegistry(
        [WriteNote, Search, fetch_page, StaticProvider("echo"), read_file, PlainClass]
    )
    removed = ReadOnlyPalette.sweep(registry)
    assert removed == ["write_note", "fetch_page", "echo", "plain_class"]
    assert registry.names() == ["search", "read_file"]


def test_sweep_logs_each_removal(caplog: pytest.LogCaptureFixture) -> None:
    """Every removal is logged with the tool's name."""
    registry = ToolRegistry([WriteNote, Search, StaticProvider("echo", source="mcp:srv:echo")])
    with caplog.at_level(logging.INFO):
        ReadOnlyPalette.sweep(registry)
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 2
    assert "write_note" in messages[0]
    assert "echo" in messages[1]
    assert "mcp:srv:echo" in messages[1]


def test_sweep_keeps_a_provider_that_asserts_read_only() -> None:
    """A hand-written provider that asserts read-only survives the sweep."""
    registry = ToolRegistry([StaticProvider("lookup", read_only=True), StaticProvider("mutate")])
    assert ReadOnlyPalette.sweep(registry) == ["mutate"]
    assert registry.names() == ["lookup"]


def test_sweep_of_a_read_only_registry_removes_and_logs_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Sweeping twice is the same as sweeping once."""
    registry = ToolRegistry([Search, WriteNote, read_file])
    ReadOnlyPalette.sweep(registry)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        assert ReadOnlyPalette.sweep(registry) == []
    assert caplog.records == []
    assert registry.names() == ["search", "read_file"]


# -- require_read_only ---------------------------------------------------------------------------


def test_require_read_only_raises_read_only_violation_for_a_mutating_tool() -> None:
    """The per-call check refuses a tool that is not declared read-only, correctably."""
    with pytest.raises(ReadOnlyViolation) as raised:
        ReadOnlyPalette.require_read_only(ClassToolProvider(WriteNote))
    assert isinstance(raised.value, CorrectableError)
    assert raised.value.tool == "write_note"
    assert "write_note" in str(raised.value)


def test_require_read_only_refuses_an_undeclared_provider() -> None:
    """A provider that never said it is read-only cannot run under a read-only binding."""
    with pytest.raises(ReadOnlyViolation):
        ReadOnlyPalette.require_read_only(StaticProvider("echo"))


def test_require_read_only_passes_a_read_only_tool() -> None:
    """A declared read-only tool may run."""
    ReadOnlyPalette.require_read_only(ClassToolProvider(Search))
    ReadOnlyPalette.require_read_only(FunctionToolProvider(read_file))


def test_require_read_only_holds_after_the_registry_is_widened() -> None:
    """A tool added after the sweep is still refused at the call: only the per-call check holds."""
    registry = ToolRegistry([Search, WriteNote])
    ReadOnlyPalette.sweep(registry)
    registry.register(WriteNote)
    widened = registry.get_provider_by_name("write_note")
    assert widened is not None
    with pytest.raises(ReadOnlyViolation):
        ReadOnlyPalette.require_read_only(widened)
