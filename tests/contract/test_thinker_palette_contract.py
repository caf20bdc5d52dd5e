"""ThinkerPaletteContractTest, the registry half (seed 000: "ToolRegistry: names to providers")."""

import pytest
from _sample_tools import Search, SearchInput, StaticProvider, WriteNote, read_file
from pydantic import BaseModel

from nucleo_core import (
    ClassToolProvider,
    CorrectableError,
    FunctionToolProvider,
    ShadowRecord,
    Tool,
    ToolCollisionError,
    ToolRegistry,
    ToolSkippedWarning,
    UnknownTool,
    tool,
)


class PingInput(BaseModel):
    host: str


@tool(name="search")
class OtherSearch(Tool[PingInput, str]):
    """A second class tool that claims the name 'search'."""

    def run(self, input: PingInput) -> str:
        return input.host


@tool(name="read_file")
def other_read_file(path: str) -> str:
    """A second function tool that claims the name 'read_file'."""
    return path


class Undeclared(Tool[PingInput, str]):
    """A Tool subclass nobody declared with @tool."""

    def run(self, input: PingInput) -> str:
        return input.host


def state(registry: ToolRegistry) -> list[tuple[str, object]]:
    """The registry's observable state: names with their providers, in order."""
    return [(provider.name, provider) for provider in registry.providers()]


# -- idempotence ---------------------------------------------------------------------------------


def test_registering_the_same_class_twice_is_one_entry() -> None:
    """Registering a class twice leaves one entry equal to the class's provider."""
    registry = ToolRegistry()
    registry.register(Search)
    before = state(registry)
    registry.register(Search)
    assert state(registry) == before
    assert registry.names() == ["search"]
    assert registry.get_provider_by_name("search") == ClassToolProvider(Search)


def test_registering_the_same_provider_instance_twice_is_one_entry() -> None:
    """Re-registering one provider instance changes nothing."""
    provider = StaticProvider("echo")
    registry = ToolRegistry([provider, Search])
    before = state(registry)
    assert registry.register(provider) is provider
    assert state(registry) == before


def test_unregistering_twice_equals_unregistering_once() -> None:
    """A second unregister of the same tool is a no-op returning None."""
    registry = ToolRegistry([Search, WriteNote, read_file])
    assert registry.unregister("write_note") == ClassToolProvider(WriteNote)
    after_once = state(registry)
    assert registry.unregister("write_note") is None
    assert registry.unregister(WriteNote) is None
    assert (
        state(registry)
        == after_once
        == [
            ("search", ClassToolProvider(Search)),
            ("read_file", FunctionToolProvider(read_file)),
        ]
    )


def test_unregistering_what_was_never_registered_is_a_no_op() -> None:
    """Unregistering an unknown name, class, function or provider leaves the registry as it was."""
    registry = ToolRegistry([Search])
    before = state(registry)
    assert registry.unregister("nothing_here") is None
    assert registry.unregister(WriteNote) is None
    assert registry.unregister(read_file) is None
    assert registry.unregister(StaticProvider("echo")) is None
    assert state(registry) == before


def test_unregister_accepts_name_prefixed_id_class_function_and_provider() -> None:
    """Every spelling of a registered tool removes it."""
    echo = StaticProvider("echo")
    registry = ToolRegistry([Search, WriteNote, read_file, echo])
    assert registry.unregister("search") == ClassToolProvider(Search)
    assert registry.unregister("native:write_note") == ClassToolProvider(WriteNote)
    assert registry.unregister(read_file) == FunctionToolProvider(read_file)
    assert registry.unregister(echo) is echo
    assert len(registry) == 0


def test_unregister_by_equal_provider_only_removes_the_equal_one() -> None:
    """Unregistering a tool whose name is held by a different provider leaves that provider."""
    registry = ToolRegistry([Search])
    registry.register(OtherSearch)
    assert registry.unregister(Search) is None
    assert registry.get_provider_by_name("search") == ClassToolProvider(OtherSearch)


# -- duplicate policy ----------------------------------------------------------------------------


def test_same_provider_type_and_name_is_an_upsert_that_keeps_its_place() -> None:
    """A second class tool under a taken name replaces the first in its original position."""
    registry = ToolRegistry([Search, WriteNote, read_file])
    registry.register(OtherSearch)
    assert registry.names() == ["search", "write_note", "read_file"]
    assert registry.get_provider_by_name("search") == ClassToolProvider(OtherSearch)
    assert registry.shadowed == ()


def test_function_tools_under_one_name_upsert() -> None:
    """Two function tools with one name are the same provider type, so the second upserts."""
    registry = ToolRegistry([read_file, Search])
    registry.register(other_read_file)
    assert registry.names() == ["read_file", "search"]
    assert registry.get_provider_by_name("read_file") == FunctionToolProvider(other_read_file)


def test_a_different_provider_type_under_a_taken_name_raises_tool_collision_error() -> None:
    """A registration by another provider type fails loudly and leaves the registry unchanged."""
    registry = ToolRegistry([Search, read_file])
    before = state(registry)
    with pytest.raises(ToolCollisionError) as raised:
        registry.register(StaticProvider("search"))
    assert raised.value.name == "search"
    assert "shadow=True" in str(raised.value)
    with pytest.raises(ToolCollisionError):
        registry.register(StaticProvider("read_file"))
    assert state(registry) == before
    assert registry.shadowed == ()


def test_a_class_tool_and_a_function_tool_under_one_name_collide() -> None:
    """ClassToolProvider and FunctionToolProvider are different provider types."""
    registry = ToolRegistry([read_file])

    @tool(name="read_file")
    class ReadFileClass(Tool[PingInput, str]):
        """Read a file, written as a class."""

        def run(self, input: PingInput) -> str:
            return input.host

    with pytest.raises(ToolCollisionError):
        registry.register(ReadFileClass)


def test_shadow_true_replaces_in_place_and_is_recorded() -> None:
    """A deliberate shadowing replaces the provider, keeps the place and is on the record."""
    registry = ToolRegistry([Search, WriteNote])
    mcp_search = StaticProvider("search", source="mcp:docs:search")
    assert registry.register(mcp_search, shadow=True) is mcp_search
    assert registry.names() == ["search", "write_note"]
    assert registry.get_provider_by_name("search") is mcp_search
    assert registry.get_provider_by_name("mcp:docs:search") is mcp_search
    assert registry.get_provider_by_name("native:search") is None
    assert registry.shadowed == (
        ShadowRecord(
            name="search",
            replaced="native:search",
            replaced_kind="ClassToolProvider",
            by="mcp:docs:search",
            by_kind="StaticProvider",
        ),
    )


def test_shadowing_records_accumulate_oldest_first() -> None:
    """Each deliberate shadowing adds one record, in the order they happened."""
    registry = ToolRegistry([Search])
    registry.register(StaticProvider("search", source="mcp:a:search"), shadow=True)
    registry.register(Search, shadow=True)
    assert [(r.replaced, r.by) for r in registry.shadowed] == [
        ("native:search", "mcp:a:search"),
        ("mcp:a:search", "native:search"),
    ]


def test_an_upsert_with_shadow_true_is_not_recorded_as_shadowing() -> None:
    """Shadowing is recorded only when the provider type changes."""
    registry = ToolRegistry([Search])
    registry.register(OtherSearch, shadow=True)
    assert registry.shadowed == ()


# -- None names ----------------------------------------------------------------------------------


@pytest.fixture
def populated() -> ToolRegistry:
    """A registry with a few tools, so None is not just 'empty registry'."""
    return ToolRegistry([Search, WriteNote, read_file])


def test_get_provider_by_name_treats_none_as_unknown(populated: ToolRegistry) -> None:
    """get_provider_by_name(None) is None rather than a map error."""
    assert populated.get_provider_by_name(None) is None


def test_create_tool_treats_none_as_unknown(populated: ToolRegistry) -> None:
    """create_tool(None) raises the correctable UnknownTool."""
    with pytest.raises(UnknownTool) as raised:
        populated.create_tool(None)
    assert raised.value.available == ("search", "write_note", "read_file")


def test_input_type_treats_none_as_unknown(populated: ToolRegistry) -> None:
    """input_type(None) is None."""
    assert populated.input_type(None) is None


def test_display_name_treats_none_as_unknown(populated: ToolRegistry) -> None:
    """display_name(None) is None."""
    assert populated.display_name(None) is None


def test_action_verb_treats_none_as_unknown(populated: ToolRegistry) -> None:
    """action_verb(None) is None."""
    assert populated.action_verb(None) is None


def test_has_tool_raises_type_error_on_none(populated: ToolRegistry) -> None:
    """has_tool goes to the map directly, so a None name is a TypeError."""
    with pytest.raises(TypeError):
        populated.has_tool(None)  # type: ignore[arg-type]


def test_unregister_raises_type_error_on_none(populated: ToolRegistry) -> None:
    """An unregister of None is a TypeError (it goes to the map directly) and changes nothing."""
    before = state(populated)
    with pytest.raises(TypeError):
        populated.unregister(None)  # type: ignore[arg-type]
    assert state(populated) == before


def test_lookups_resolve_known_names(populated: ToolRegistry) -> None:
    """The same lookups answer for a known name, bare or prefixed."""
    assert populated.has_tool("search")
    assert populated.has_tool("native:search")
    assert not populated.has_tool("nothing")
    assert populated.input_type("search") is SearchInput
    assert populated.display_name("search") == "Search the workspace"
    assert populated.action_verb("native:search") == "Searching"
    assert populated.display_name("nothing") is None


# -- create_tool ---------------------------------------------------------------------------------


def test_create_tool_on_an_unknown_name_lists_the_available_names_without_echoing() -> None:
    """UnknownTool is correctable: it names every available tool and not the requested name."""
    registry = ToolRegistry([Search, WriteNote])
    requested = "delete_everything_now"
    with pytest.raises(UnknownTool) as raised:
        registry.create_tool(requested)
    error = raised.value
    assert isinstance(error, CorrectableError)
    assert error.available == ("search", "write_note")
    assert "search" in str(error)
    assert "write_note" in str(error)
    assert requested not in str(error)


def test_create_tool_on_an_empty_registry_says_none_are_available() -> None:
    """With nothing registered the error still reads as a complete sentence."""
    with pytest.raises(UnknownTool) as raised:
        ToolRegistry().create_tool("anything")
    assert raised.value.available == ()
    assert "(none)" in str(raised.value)


def test_create_tool_builds_the_tool_for_the_parent() -> None:
    """create_tool builds a fresh tool of the registered class for the given parent."""
    registry = ToolRegistry([Search])
    parent = object()
    built = registry.create_tool("search", parent)
    assert isinstance(built, Search)
    assert built.parent is parent
    assert registry.create_tool("native:search") is not built


# -- class conveniences --------------------------------------------------------------------------


def test_a_class_without_tool_declaration_is_skipped_with_a_warning() -> None:
    """register(Class) skips an undeclared class with ToolSkippedWarning and registers nothing."""
    registry = ToolRegistry()
    with pytest.warns(ToolSkippedWarning, match="Undeclared"):
        assert registry.register(Undeclared) is None
    assert len(registry) == 0


def test_register_all_skips_the_undeclared_and_registers_the_rest() -> None:
    """register_all registers declared classes in order and warns once per skipped class."""
    registry = ToolRegistry()
    with pytest.warns(ToolSkippedWarning):
        registered = registry.register_all([Search, Undeclared, WriteNote])
    assert registered == [ClassToolProvider(Search), ClassToolProvider(WriteNote)]
    assert registry.names() == ["search", "write_note"]


def test_unregister_of_an_undeclared_class_warns_and_changes_nothing() -> None:
    """unregister(Class) of an undeclared class warns and is a no-op."""
    registry = ToolRegistry([Search])
    with pytest.warns(ToolSkippedWarning):
        assert registry.unregister(Undeclared) is None
    assert registry.names() == ["search"]


def test_a_subclass_of_a_declared_class_is_not_itself_declared() -> None:
    """Inheriting from a declared tool class does not inherit the declaration."""

    class SearchSubclass(Search):
        """Search, specialised but not declared."""

    registry = ToolRegistry()
    with pytest.warns(ToolSkippedWarning):
        assert registry.register(SearchSubclass) is None
    assert len(registry) == 0


def test_registering_a_class_stores_a_class_tool_provider() -> None:
    """Registries store providers, never classes."""
    registry = ToolRegistry([Search])
    provider = registry.get_provider_by_name("search")
    assert isinstance(provider, ClassToolProvider)
    assert provider.tool_class is Search
