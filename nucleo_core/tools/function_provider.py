"""`FunctionToolProvider`: the provider of a plain function declared with ``@tool``."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, final

from nucleo_core.tools._simple_schema import simple_input_model, simple_input_schema
from nucleo_core.tools.declaration import STATE_PARAMETER, describe_target, required_declaration
from nucleo_core.tools.declared import DeclaredToolProvider
from nucleo_core.tools.docstrings import docstring_description
from nucleo_core.tools.function_signature import FunctionSignature, function_signature
from nucleo_core.tools.schema import function_input_model
from nucleo_core.tools.seat import ModelSeat
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["FunctionTool", "FunctionToolProvider"]


class FunctionTool(Tool["BaseModel", Any]):
    """The tool a function provider builds per call: calls the function with validated input."""

    __slots__ = ("_arguments", "_seat", "function")

    def __init__(
        self,
        function: Callable[..., Any],
        arguments: tuple[tuple[str, str], ...] | None,
        parent: object | None = None,
        *,
        seat: tuple[str, ModelSeat] | None = None,
    ) -> None:
        # Built once per call, so kept to plain assignments (Tool.__init__ only sets parent).
        self.parent = parent
        self.function = function
        # ``None`` when every field is named after its parameter: the validated model's own
        # __dict__ is then the keyword mapping (pydantic keeps exactly the fields there).
        self._arguments = arguments
        # The ModelSeat parameter's name and the seat it is given, for a model-dependent tool.
        self._seat = seat

    def run(self, input: BaseModel) -> Any:
        """Call the function with the validated input's fields as keyword arguments."""
        if self._seat is not None:
            name, seat = self._seat
            fields = input.__dict__ if self._arguments is None else self._fields(input)
            return self.function(**fields, **{name: seat})
        if self._arguments is None:
            return self.function(**input.__dict__)
        return self.function(**self._fields(input))

    def _fields(self, input: BaseModel) -> dict[str, Any]:
        return {p: getattr(input, f) for p, f in self._arguments or ()}


class _AsyncFunctionTool(FunctionTool):
    is_async: ClassVar[bool] = True


class _SyncFunctionTool(FunctionTool):
    is_async: ClassVar[bool] = False


#: What ``create`` needs, resolved once: the tool class (sync or async), the argument map and
#: the model-seat parameter with its declared grade.
_CallPlan: TypeAlias = (
    "tuple[type[FunctionTool], tuple[tuple[str, str], ...] | None, tuple[str, str | None] | None]"
)


@final
class FunctionToolProvider(DeclaredToolProvider):
    """Wraps a ``@tool``-declared function; equality is by function.

    The input model is built from the parameters' annotations on first need; parameter
    descriptions come from the docstring's ``Args`` section or ``Annotated`` metadata. A
    parameter annotated `ModelSeat` is not part of the input: ``create(parent)`` fills it in with
    the parent thinker's seat (on its ``SeatGrade`` if declared). Nor is, for a function
    declared with ``state=``, its ``state`` parameter: each call is given the state of its
    conversation there.
    """

    __slots__ = ("_call_plan", "_last", "_signature", "function")

    def __init__(self, function: Callable[..., Any]) -> None:
        super().__init__(required_declaration(function, "@tool"))
        self.function = function
        self._signature: FunctionSignature | None = None
        self._call_plan: _CallPlan | None = None
        self._last: FunctionTool | None = None

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """The tool that calls the function, for ``parent``.

        A function tool keeps no state between calls, so the instance made for a parent is
        reused for that parent's next call (concurrent calls share it safely); one declared
        with ``state=`` is made per call, bound to the state of the call's conversation.
        """
        stateful = self.declaration.states is not None
        last = self._last
        if last is not None and last.parent is parent and not stateful:
            return last
        kind, arguments, seat = self._call_plan or self._resolve_call_plan()
        given = (
            None if seat is None else (seat[0], ModelSeat.of(parent, grade=seat[1], tool=self.name))
        )
        function = self.function
        if stateful:  # the state of this call's conversation, which can change between calls
            function = functools.partial(function, **{STATE_PARAMETER: self._state_for(parent)})
            return kind(function, arguments, parent, seat=given)
        self._last = made = kind(function, arguments, parent, seat=given)
        return made

    def _resolve_call_plan(self) -> _CallPlan:
        signature = self._signature or self._resolve_signature()
        pairs = signature.arguments
        arguments = None if all(p == f for p, f in pairs) else pairs
        is_async = inspect.iscoroutinefunction(self.function)
        kind = _AsyncFunctionTool if is_async else _SyncFunctionTool
        self._call_plan = (kind, arguments, signature.seat)
        return self._call_plan

    def _resolve_signature(self) -> FunctionSignature:
        if self._signature is None:
            signature = function_signature(self.function)
            if self.declaration.states is not None:  # the state is given, never described
                kept = tuple(p for p in signature.parameters if p.name != STATE_PARAMETER)
                signature = dataclasses.replace(signature, parameters=kept)
            self._signature = signature
        return self._signature

    def _model_name(self) -> str:
        return "".join(part[:1].upper() + part[1:] for part in self.name.split("_")) + "Input"

    def _input_model(self) -> Any:
        signature = self._signature or self._resolve_signature()
        name = self._model_name()
        simple = simple_input_model(signature, name)
        return simple or function_input_model(self.function, signature, name)

    def _generated_schema(self) -> dict[str, Any]:
        signature = self._signature or self._resolve_signature()
        simple = simple_input_schema(signature, self._model_name())
        return simple if simple is not None else super()._generated_schema()

    def _output_type(self) -> object:
        return (self._signature or self._resolve_signature()).output_type

    def _docstring_description(self) -> str:
        return docstring_description(self.function.__doc__, describe_target(self.function))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FunctionToolProvider) and other.function is self.function

    def __hash__(self) -> int:
        return hash((FunctionToolProvider, self.function))
