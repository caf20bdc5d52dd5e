"""`provider_for`: turn whatever a user registers into a `ToolProvider`."""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any, TypeAlias

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.tools.class_provider import ClassToolProvider
from nucleo_core.tools.function_provider import FunctionToolProvider
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.tool import Tool

__all__ = ["ToolLike", "provider_for"]

#: What registries and selectors accept: a provider, a declared Tool class, a declared function.
ToolLike: TypeAlias = "ToolProvider | type[Tool[Any, Any]] | Callable[..., Any]"


def provider_for(subject: object) -> ToolProvider:
    """The provider of a ``@tool``-declared class or function; a provider is returned as is.

    Raises:
        ToolDeclarationError: ``subject`` is not declared with ``@tool``, or is not a tool at all.
    """
    if isinstance(subject, ToolProvider):
        return subject
    if isinstance(subject, type) and issubclass(subject, Tool):
        return ClassToolProvider(subject)
    if isinstance(subject, FunctionType):
        return FunctionToolProvider(subject)
    raise ToolDeclarationError(
        repr(subject),
        ["expected a ToolProvider, a @tool-declared Tool subclass or a @tool-declared function"],
    )
