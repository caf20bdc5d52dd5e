"""A function tool's signature: its parameters (with their descriptions) and output type.

Resolved once per function, when its schema is first needed; the model-seat parameter is set
apart, since the framework fills it in and the model never sees it.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.tools.declaration import describe_target
from nucleo_core.tools.docstrings import parameter_docs
from nucleo_core.tools.seat import ModelSeat, SeatGrade

__all__ = ["FunctionParameter", "FunctionSignature", "function_signature"]


@dataclass(frozen=True, slots=True)
class FunctionParameter:
    """One parameter of a function tool, as its input model declares it.

    Attributes:
        name: The parameter's name, which is also its name on the wire.
        field_name: The model field holding it (differs only for names pydantic reserves).
        annotation: The resolved annotation (plain-string ``Annotated`` metadata removed).
        default: The default value, or ``...`` when the parameter is required.
        description: From ``Annotated[T, "..."]`` or the docstring's ``Args`` section.
    """

    name: str
    field_name: str
    annotation: object
    default: Any
    description: str | None


@dataclass(frozen=True, slots=True)
class FunctionSignature:
    """A function tool's parameters and output type, resolved once.

    Attributes:
        parameters: In declaration order (the model-seat parameter is not one of them).
        output_type: The declared return type, or ``None`` when unannotated.
        seat: ``(parameter, grade)`` of the parameter annotated ``ModelSeat``, which the
            framework fills in and the published schema leaves out; ``None`` when there is none.
    """

    parameters: tuple[FunctionParameter, ...]
    output_type: object
    seat: tuple[str, str | None] | None = None

    @property
    def arguments(self) -> tuple[tuple[str, str], ...]:
        """``(parameter, field)`` pairs: the function gets ``parameter=validated.field``."""
        return tuple((p.name, p.field_name) for p in self.parameters)


def function_signature(fn: Callable[..., Any]) -> FunctionSignature:
    """Resolve a function tool's annotations, defaults and parameter descriptions.

    Raises:
        ToolDeclarationError: An annotation cannot be resolved.
    """
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:  # NameError, TypeError: an annotation that cannot be evaluated
        raise ToolDeclarationError(
            describe_target(fn),
            [
                f"an annotation cannot be resolved ({type(exc).__name__}: {exc}); import the types "
                "it names at module level"
            ],
        ) from exc
    param_docs = parameter_docs(fn.__doc__, describe_target(fn))
    reserved = _reserved_names()
    parameters: list[FunctionParameter] = []
    seat: tuple[str, str | None] | None = None
    for parameter in _signature_parameters(fn):
        found = _seat_parameter(fn, parameter.name, hints[parameter.name])
        if found is not None:  # filled in by the framework, never described to the model
            if seat is not None:
                raise ToolDeclarationError(
                    describe_target(fn),
                    [f"parameters {seat[0]!r} and {found[0]!r} both take a ModelSeat: keep one"],
                )
            seat = found
            continue
        annotation, annotated_description = _plain_string_metadata(hints[parameter.name])
        description = annotated_description or param_docs.get(parameter.name)
        field_name = parameter.name
        if field_name.startswith("_") or field_name in reserved:
            # pydantic reserves these names; the parameter's own name stays on the wire (alias).
            field_name = f"param_{field_name.lstrip('_')}"
        parameters.append(
            FunctionParameter(
                name=parameter.name,
                field_name=field_name,
                annotation=annotation,
                default=parameter.default,
                description=description,
            )
        )
    return FunctionSignature(
        parameters=tuple(parameters), output_type=hints.get("return"), seat=seat
    )


@dataclass(frozen=True, slots=True)
class _Parameter:
    name: str
    default: Any  # ``...`` when the parameter has none


def _signature_parameters(fn: Callable[..., Any]) -> list[_Parameter]:
    """``fn``'s parameters in order with their defaults, as `inspect.signature` gives them.

    A catalog resolves thousands of signatures and `inspect.signature` is a sixth of that
    work, so a plain function (no ``*args``/``**kwargs``, not wrapped, no ``__signature__``) is
    read from its code object and defaults directly; anything else asks `inspect.signature`.
    """
    code = getattr(fn, "__code__", None)
    if (
        type(fn) is not types.FunctionType
        or code is None
        or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        or "__wrapped__" in fn.__dict__
        or "__signature__" in fn.__dict__
    ):
        return [
            _Parameter(p.name, ... if p.default is p.empty else p.default)
            for p in inspect.signature(fn).parameters.values()
        ]
    positional, keyword_only = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[: positional + keyword_only]
    defaults = fn.__defaults__ or ()
    keyword_defaults = fn.__kwdefaults__ or {}
    first_default = positional - len(defaults)
    parameters = [
        _Parameter(name, defaults[index - first_default] if index >= first_default else ...)
        for index, name in enumerate(names[:positional])
    ]
    parameters += [_Parameter(name, keyword_defaults.get(name, ...)) for name in names[positional:]]
    return parameters


def _plain_string_metadata(annotation: object) -> tuple[object, str | None]:
    """Read ``Annotated[T, "description"]``: a plain string is taken as the description."""
    if get_origin(annotation) is not Annotated:
        return annotation, None
    base, *extras = get_args(annotation)
    strings = [extra for extra in extras if isinstance(extra, str)]
    if not strings:
        return annotation, None
    others = [extra for extra in extras if not isinstance(extra, str)]
    rebuilt = Annotated[(base, *others)] if others else base
    return rebuilt, strings[0]


def _seat_parameter(
    fn: Callable[..., Any], name: str, annotation: object
) -> tuple[str, str | None] | None:
    """``(name, declared grade or None)`` for a ``ModelSeat`` parameter, ``None`` for another.

    Raises:
        ToolDeclarationError: ``ModelSeat`` is part of a wider annotation (``ModelSeat | None``),
            which the framework could neither fill in nor describe.
    """
    base: object = annotation
    extras: tuple[object, ...] = ()
    if get_origin(annotation) is Annotated:
        base, *rest = get_args(annotation)
        extras = tuple(rest)
    if base is ModelSeat:
        grades = [extra.grade for extra in extras if isinstance(extra, SeatGrade)]
        return (name, grades[0] if grades else None)
    if ModelSeat in get_args(base):
        raise ToolDeclarationError(
            describe_target(fn),
            [
                f"parameter {name!r}: annotate a model seat as plain ModelSeat (or "
                "Annotated[ModelSeat, SeatGrade(...)]); the framework always fills it in"
            ],
        )
    return None


@functools.cache
def _reserved_names() -> frozenset[str]:
    from pydantic import BaseModel

    return frozenset(dir(BaseModel))
