"""`ClassToolProvider`: the provider of a `Tool` subclass declared with ``@tool``."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, final

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.tools.declaration import describe_target, required_declaration
from nucleo_core.tools.declared import DeclaredToolProvider
from nucleo_core.tools.docstrings import docstring_description
from nucleo_core.tools.seat import ModelDependent, ModelSeat
from nucleo_core.tools.tool import Tool, io_types

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["ClassToolProvider"]


@final
class ClassToolProvider(DeclaredToolProvider):
    """Wraps a ``@tool``-declared `Tool` subclass.

    Equality is by wrapped class, so registering the same class twice is one registry entry.
    The input schema is generated once, from the input model, and narrowed by the declared
    refiner; the output schema is published only for a pydantic model, dataclass or TypedDict
    output. ``create(parent)`` builds the tool through ``__init__(self, parent)`` when the
    constructor takes a parent, and gives a `ModelDependent` tool its parent's seat (on the
    tool's declared grade, if any). A tool declared with ``state=`` gets the state of the
    call's conversation as ``self.state``.
    """

    __slots__ = ("_takes_parent", "tool_class")

    def __init__(self, tool_class: type[Tool[Any, Any]]) -> None:
        super().__init__(required_declaration(tool_class, "@tool(...)"))
        self.tool_class = tool_class
        self._takes_parent: bool | None = None

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """Build the tool for one call, passing ``parent`` when the constructor takes one."""
        if self._takes_parent is None:
            parameters = inspect.signature(self.tool_class).parameters.values()
            self._takes_parent = any(
                p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                for p in parameters
            )
        made = self.tool_class(parent) if self._takes_parent else self.tool_class()
        if isinstance(made, ModelDependent):
            made.seat = ModelSeat.of(parent, grade=type(made).grade, tool=self.name)
        if self.declaration.states is not None:  # declared with @tool(state=...)
            made.state = self._state_for(parent)  # type: ignore[attr-defined]  # declared state
        return made

    def check(self) -> None:
        """Build the schemas and check the tool can be constructed for a parent."""
        super().check()
        try:
            inspect.signature(self.tool_class).bind(None)
        except TypeError:
            try:
                inspect.signature(self.tool_class).bind()
            except TypeError as exc:
                raise ToolDeclarationError(
                    describe_target(self.tool_class),
                    [
                        "its constructor must take no argument or just the parent: "
                        "def __init__(self, parent=None)"
                    ],
                ) from exc

    def _input_model(self) -> type[BaseModel]:
        model, _ = io_types(self.tool_class)
        return model  # type: ignore[return-value]  # checked to be a BaseModel by @tool

    def _output_type(self) -> object:
        return io_types(self.tool_class)[1]

    def _docstring_description(self) -> str:
        return docstring_description(self.tool_class.__doc__, describe_target(self.tool_class))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassToolProvider) and other.tool_class is self.tool_class

    def __hash__(self) -> int:
        return hash((ClassToolProvider, self.tool_class))
