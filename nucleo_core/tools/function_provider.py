"""`FunctionToolProvider`: the provider of a plain function declared with ``@tool``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, final

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.tools.declared import DeclaredToolProvider
from nucleo_core.tools.decorator import declaration_of, describe_target
from nucleo_core.tools.schema import FunctionSignature, docstring_parts, function_signature
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["FunctionTool", "FunctionToolProvider"]


class FunctionTool(Tool["BaseModel", Any]):
    """The tool a function provider builds per call: calls the function with validated input."""

    def __init__(
        self,
        function: Callable[..., Any],
        arguments: tuple[tuple[str, str], ...],
        parent: object | None = None,
    ) -> None:
        super().__init__(parent)
        self.function = function
        # When every field is named after its parameter, the validated model's own __dict__
        # is the keyword mapping (pydantic keeps exactly the fields there).
        self._arguments = None if all(p == f for p, f in arguments) else arguments

    def run(self, input: BaseModel) -> Any:
        """Call the function with the validated input's fields as keyword arguments."""
        if self._arguments is None:
            return self.function(**input.__dict__)
        return self.function(**{p: getattr(input, f) for p, f in self._arguments})


class _AsyncFunctionTool(FunctionTool):
    is_async: ClassVar[bool] = True


class _SyncFunctionTool(FunctionTool):
    is_async: ClassVar[bool] = False


@final
class FunctionToolProvider(DeclaredToolProvider):
    """Wraps a ``@tool``-declared function; equality is by function.

    The input model is built from the parameters' annotations on first need; parameter
    descriptions come from the docstring's ``Args`` section or ``Annotated`` metadata.
    """

    __slots__ = ("_signature", "function")

    def __init__(self, function: Callable[..., Any]) -> None:
        declaration = declaration_of(function)
        if declaration is None:
            raise ToolDeclarationError(
                describe_target(function), ["it is not declared: decorate it with @tool"]
            )
        super().__init__(declaration)
        self.function = function
        self._signature: FunctionSignature | None = None

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """Build the tool that calls the function for one call."""
        signature = self._signature or self._signature_now()
        kind = (
            _AsyncFunctionTool
            if inspect.iscoroutinefunction(self.function)
            else (_SyncFunctionTool)
        )
        return kind(self.function, signature.arguments, parent)

    def _signature_now(self) -> FunctionSignature:
        if self._signature is None:
            model_name = "".join(part.capitalize() for part in self.name.split("_")) + "Input"
            self._signature = function_signature(self.function, model_name)
        return self._signature

    def _input_model(self) -> type[BaseModel]:
        return self._signature_now().model

    def _output_type(self) -> object:
        return self._signature_now().output_type

    def _docstring_description(self) -> str:
        description, _ = docstring_parts(self.function.__doc__)
        return description

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FunctionToolProvider) and other.function is self.function

    def __hash__(self) -> int:
        return hash((FunctionToolProvider, self.function))
