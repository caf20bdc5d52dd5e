"""Unit tests of `provider_for`."""

from typing import Any

import pytest
from pydantic import BaseModel

from nucleo_core import (
    ClassToolProvider,
    FunctionToolProvider,
    Tool,
    ToolDeclarationError,
    provider_for,
    tool,
)


class TextInput(BaseModel):
    text: str


@tool
class Shout(Tool[TextInput, str]):
    """Shout the text."""

    def run(self, input: TextInput) -> str:
        return input.text.upper()


@tool
def whisper(text: str) -> str:
    """Whisper the text."""
    return text.lower()


class Undeclared(Tool[TextInput, str]):
    """Never declared."""

    def run(self, input: TextInput) -> str:
        return input.text


def undeclared_function(text: str) -> str:
    """Never declared."""
    return text


def test_a_provider_is_returned_as_is() -> None:
    """provider_for of a provider is that provider."""
    provider = FunctionToolProvider(whisper)
    assert provider_for(provider) is provider


def test_a_declared_class_becomes_a_class_tool_provider() -> None:
    """A @tool class is wrapped in a ClassToolProvider."""
    assert provider_for(Shout) == ClassToolProvider(Shout)


def test_a_declared_function_becomes_a_function_tool_provider() -> None:
    """A @tool function is wrapped in a FunctionToolProvider."""
    assert provider_for(whisper) == FunctionToolProvider(whisper)


@pytest.mark.parametrize(
    "subject", [Undeclared, undeclared_function, 42, "whisper", None, len, object()]
)
def test_anything_else_is_a_declaration_error(subject: Any) -> None:
    """An undeclared class or function, or something that is no tool at all, is refused."""
    with pytest.raises(ToolDeclarationError):
        provider_for(subject)
