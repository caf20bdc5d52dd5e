"""Unit tests of `@tool`'s defaults and of `declaration_of`."""

import inspect
import types
from typing import Any

import pytest
from pydantic import BaseModel

from nucleo_core import ClassToolProvider, FunctionToolProvider, Risk, Tool, ToolDeclaration, tool
from nucleo_core.tools import declaration_of


class TextInput(BaseModel):
    text: str


def _run(self: Tool[TextInput, str], input: TextInput) -> str:
    return input.text


def _tool_class(class_name: str, bases: tuple[Any, ...] = (Tool[TextInput, str],)) -> Any:
    """A Tool subclass called ``class_name``, as a class statement would build it."""
    body = {"__doc__": f"{class_name}, documented.", "run": _run}
    return types.new_class(class_name, bases, {}, lambda namespace: namespace.update(body))


def _declare_class(class_name: str, **options: Any) -> Any:
    """Declare a tool class called ``class_name`` with ``@tool(**options)``."""
    return tool(**options)(_tool_class(class_name))


# -- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("class_name", "tool_name"),
    [
        ("Echo", "echo"),
        ("SearchFiles", "search_files"),
        ("HTTPFetch", "http_fetch"),
        ("ReadURLContents", "read_url_contents"),
        ("SearchV2", "search_v2"),
        ("Tool2Go", "tool2_go"),
        ("already_snake", "already_snake"),
    ],
)
def test_a_class_tool_is_named_after_its_class_in_snake_case(
    class_name: str, tool_name: str
) -> None:
    """Without name=..., a class tool's name is its class name in snake_case."""
    assert ClassToolProvider(_declare_class(class_name)).name == tool_name


def test_a_function_tool_is_named_after_its_function() -> None:
    """Without name=..., a function tool's name is the function's own name."""

    @tool
    def look_up_word(word: str) -> str:
        """Look a word up."""
        return word

    assert FunctionToolProvider(look_up_word).name == "look_up_word"


def test_an_explicit_name_wins() -> None:
    """name=... replaces the derived name."""
    assert ClassToolProvider(_declare_class("SearchFiles", name="grep")).name == "grep"


# -- display name --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "display_name"),
    [
        ("search_files", "Search files"),
        ("fetch-url", "Fetch url"),
        ("echo", "Echo"),
    ],
)
def test_the_display_name_is_derived_from_the_name(name: str, display_name: str) -> None:
    """Without display_name=..., underscores and dashes become spaces and the first letter is up."""
    assert ClassToolProvider(_declare_class("Anything", name=name)).display_name == display_name


def test_an_explicit_display_name_wins() -> None:
    """display_name=... is used as given."""
    provider = ClassToolProvider(_declare_class("SearchFiles", display_name="Find in files"))
    assert provider.display_name == "Find in files"
    assert provider.spec().display_name == "Find in files"


# -- other defaults ------------------------------------------------------------------------------


def test_undeclared_options_take_their_safe_defaults() -> None:
    """Weight 1.0, action verb 'Using', mutating, undeclared (so HIGH) risk, empty metadata."""
    provider = ClassToolProvider(_declare_class("Plain"))
    declaration = provider.declaration
    assert declaration.weight == 1.0
    assert declaration.risk is None
    assert declaration.read_only is False
    assert provider.weight == 1.0
    assert provider.action_verb == "Using"
    assert provider.read_only is False
    assert provider.risk is Risk.HIGH
    assert dict(provider.metadata) == {}


def test_declared_options_are_recorded() -> None:
    """Every keyword given to @tool is what the declaration and the provider report."""
    provider = ClassToolProvider(
        _declare_class(
            "Busy",
            name="busy",
            action_verb="Working",
            weight=2.5,
            read_only=True,
            risk=Risk.MEDIUM,
            metadata={"team": "search"},
        )
    )
    assert provider.weight == 2.5
    assert provider.action_verb == "Working"
    assert provider.read_only is True
    assert provider.risk is Risk.MEDIUM
    assert provider.metadata == {"team": "search"}


@pytest.mark.parametrize(("given", "risk"), [("low", Risk.LOW), ("high", Risk.HIGH)])
def test_a_risk_may_be_given_as_its_string(given: str, risk: Risk) -> None:
    """risk='low' is the same declaration as risk=Risk.LOW."""
    assert ClassToolProvider(_declare_class("Risky", risk=given)).risk is risk


def test_declared_metadata_cannot_be_changed_through_the_provider() -> None:
    """The metadata a provider exposes is read-only."""
    metadata = ClassToolProvider(_declare_class("Meta", metadata={"a": 1})).metadata
    with pytest.raises(TypeError):
        metadata["a"] = 2  # type: ignore[index]


# -- description ---------------------------------------------------------------------------------


def test_a_function_description_is_its_docstring_without_the_sections() -> None:
    """The Args, Returns and Raises sections are stripped; the summary and body remain."""

    @tool
    def count_words(text: str, minimum: int = 1) -> int:
        """Count the words in a text.

        Words shorter than the minimum
        are not counted.

        Args:
            text: The text to count in.
            minimum: The shortest word that counts.

        Returns:
            The number of words.

        Raises:
            ValueError: Never, in fact.
        """
        return len(text.split())

    description = FunctionToolProvider(count_words).description
    assert description == (
        "Count the words in a text.\n\nWords shorter than the minimum\nare not counted."
    )


def test_a_function_docstring_without_sections_is_used_whole() -> None:
    """A plain docstring is the description, dedented."""

    @tool
    def shout(text: str) -> str:
        """Shout the text.

        Loudly.
        """
        return text.upper()

    assert FunctionToolProvider(shout).description == "Shout the text.\n\nLoudly."


def test_a_class_description_is_its_dedented_docstring() -> None:
    """A class tool's docstring, dedented, is its description."""

    @tool
    class Whisper(Tool[TextInput, str]):
        """Whisper the text.

        Quietly.
        """

        def run(self, input: TextInput) -> str:
            return input.text.lower()

    assert ClassToolProvider(Whisper).description == "Whisper the text.\n\nQuietly."


def test_an_explicit_description_wins_over_the_docstring() -> None:
    """description=... replaces the docstring as the description."""

    @tool(description="Say it.")
    def say(text: str) -> str:
        """The docstring, for developers."""
        return text

    assert FunctionToolProvider(say).description == "Say it."


# -- the decorator itself ------------------------------------------------------------------------


def test_the_decorator_returns_the_function_unchanged() -> None:
    """A declared function is the same object, still callable with the same signature."""

    def double(value: int) -> int:
        """Double a value."""
        return value * 2

    signature = inspect.signature(double)
    assert tool(double) is double
    assert double(4) == 8
    assert inspect.signature(double) == signature


def test_the_decorator_returns_the_class_unchanged() -> None:
    """A declared class is the same class."""
    cls = _tool_class("Same")
    assert tool(cls) is cls


def test_declaration_of_reads_the_declaration() -> None:
    """declaration_of returns what @tool recorded, and None for anything undeclared."""
    cls = _declare_class("Recorded", name="recorded")
    declaration = declaration_of(cls)
    assert isinstance(declaration, ToolDeclaration)
    assert declaration.name == "recorded"
    assert declaration_of(len) is None
    assert declaration_of(lambda: None) is None
    assert declaration_of(object()) is None


def test_a_subclass_of_a_declared_class_has_no_declaration() -> None:
    """Inheriting from a declared class does not inherit the declaration."""
    parent = _declare_class("Parent")
    child = _tool_class("Child", (parent,))
    assert declaration_of(parent) is not None
    assert declaration_of(child) is None


def test_a_subclass_may_be_declared_in_its_own_right() -> None:
    """A subclass of a declared class can carry its own declaration."""
    parent = _declare_class("Parent", name="parent")
    child = tool(name="child")(_tool_class("Child", (parent,)))
    assert ClassToolProvider(child).name == "child"
    assert ClassToolProvider(parent).name == "parent"
