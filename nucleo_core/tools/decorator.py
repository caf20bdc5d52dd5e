"""`@tool`: the one decorator that declares a tool, on a `Tool` subclass or a plain function."""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from types import FunctionType, MappingProxyType
from typing import Any, TypedDict, TypeVar, Unpack, overload

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.tools.declaration import (
    DECLARATION_ATTRIBUTE,
    STATE_PARAMETER,
    SchemaRefiner,
    ToolDeclaration,
    check_common,
    declaration_of,
    describe_target,
)
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.state import ConversationStates
from nucleo_core.tools.tool import Tool, io_types

__all__ = ["STRICT_ENVIRONMENT_VARIABLE", "declaration_of", "describe_target", "tool"]

#: Set to ``1`` (in a plugin author's CI, say) to make every ``@tool`` build and check its
#: schemas at decoration time, as ``@tool(strict=True)`` does for one tool.
STRICT_ENVIRONMENT_VARIABLE = "NUCLEO_STRICT_TOOLS"

_Target = TypeVar("_Target")

_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


class _ToolOptions(TypedDict, total=False):
    """`tool`'s keyword arguments, each described there; `_declare` holds their defaults."""

    name: str | None
    description: str | None
    display_name: str | None
    action_verb: str | None
    weight: float
    read_only: bool
    risk: Risk | str | None
    refiner: SchemaRefiner | None
    metadata: Mapping[str, Any] | None
    guardrails: Sequence[Callable[[Any], Any]]
    state: Callable[[], Any] | None
    strict: bool


@overload
def tool(target: _Target, /) -> _Target: ...


@overload
def tool(**options: Unpack[_ToolOptions]) -> Callable[[_Target], _Target]: ...


def tool(target: Any = None, /, **options: Unpack[_ToolOptions]) -> Any:
    """Declare a tool: a `Tool` subclass, or a plain typed function.

    Usable bare (``@tool``) or with arguments (``@tool(name=..., risk="low")``). The decorated
    object is returned unchanged, so a function stays callable and typed as before.

    Declaration makes the cheap checks at once (name, description, annotations, the input type)
    and raises one `ToolDeclarationError` listing every problem. Schemas are built when first
    needed; ``strict=True`` (or ``NUCLEO_STRICT_TOOLS=1`` in the environment) builds and checks
    them at once.

    Args:
        target: The class or function, when used bare.
        name: The tool's name; defaults to the function's name, or the class name in snake_case.
        description: What the tool does, for the model; defaults to the docstring.
        display_name: A human-readable name; derived from the name when omitted.
        action_verb: What a UI shows while the tool runs.
        weight: A relative cost hint (finite, >= 0).
        read_only: ``True`` only when the tool changes nothing; defaults to ``False``.
        risk: ``"low"``, ``"medium"`` or ``"high"``; undeclared counts as ``"high"``.
        refiner: Narrows the generated input schema before it is published.
        metadata: An open mapping for the host; nucleo never reads it.
        guardrails: Admission guardrail factories the tool declares itself: each is called
            with the requesting thinker and returns an object whose ``check(provider)``
            returns a ``Verdict``. They run with the hub's rules whenever the tool is requested.
        state: Makes the tool's per-conversation state (a class, or a callable taking no
            argument): one object per conversation, made at the tool's first call in it, whose
            ``carried_state()`` is carried across a compaction and whose
            ``forget_conversation_state()`` is called when the conversation ends (both
            optional; see `nucleo_core.tools.state`). A class tool reads it as ``self.state``;
            a function tool takes it in a parameter named ``state``, which is not part of the
            tool's input.
        strict: Build and check every schema now rather than on first use.

    Returns:
        The decorated class or function itself, or a decorator when called with arguments.
    """
    unknown = [key for key in options if key not in _ToolOptions.__optional_keys__]
    if unknown:  # at once, as for a keyword the signature lists, not when the decorator applies
        raise TypeError(f"tool() got an unexpected keyword argument {unknown[0]!r}")

    def declare(subject: _Target) -> _Target:
        _declare(subject, **options)
        return subject

    if target is None:
        return declare
    return declare(target)


def _declare(
    subject: object,
    *,
    name: str | None = None,
    description: str | None = None,
    display_name: str | None = None,
    action_verb: str | None = None,
    weight: float = 1.0,
    read_only: bool = False,
    risk: Risk | str | None = None,
    refiner: SchemaRefiner | None = None,
    metadata: Mapping[str, Any] | None = None,
    guardrails: Sequence[Callable[[Any], Any]] = (),
    state: Callable[[], Any] | None = None,
    strict: bool = False,
) -> None:
    problems: list[str] = []
    if isinstance(subject, type):
        default_name = _snake_case(subject.__name__)
        has_doc = bool((subject.__dict__.get("__doc__") or "").strip())
        _check_class(subject, problems)
    elif isinstance(subject, FunctionType):
        default_name = subject.__name__
        has_doc = bool((subject.__doc__ or "").strip())
        _check_function(subject, problems)
    else:
        raise ToolDeclarationError(
            repr(subject),
            ["@tool declares a Tool subclass or a plain function (def or async def)"],
        )
    tool_name = default_name if name is None else name
    if description is None and not has_doc:
        problems.append("missing description: write a docstring or pass description='...' to @tool")
    declared_risk = check_common(
        name=tool_name,
        description=description,
        display_name=display_name,
        action_verb=action_verb,
        weight=weight,
        read_only=read_only,
        risk=risk,
        refiner=refiner,
        metadata=metadata,
        problems=problems,
    )
    given: object = guardrails  # checked at run time: callers need not be type-checked
    if not isinstance(given, list | tuple) or not all(callable(g) for g in given):
        problems.append(
            "guardrails must be a sequence of factories, each called with the requesting "
            "thinker and returning a guardrail"
        )
    _check_state(subject, state, problems)
    if problems:
        raise ToolDeclarationError(describe_target(subject), problems)
    declaration = ToolDeclaration(
        name=tool_name,
        description=description,
        display_name=display_name,
        action_verb=action_verb,
        weight=float(weight),
        read_only=read_only,
        risk=declared_risk,
        refiner=refiner,
        metadata=MappingProxyType(dict(metadata)) if metadata else MappingProxyType({}),
        guardrails=tuple(guardrails),
        state=state,
        states=None if state is None else ConversationStates(state, tool=tool_name),
    )
    setattr(subject, DECLARATION_ATTRIBUTE, declaration)
    if strict or os.environ.get(STRICT_ENVIRONMENT_VARIABLE) == "1":
        from nucleo_core.tools.providers import provider_for

        provider_for(subject).check()


def _check_class(cls: type[Any], problems: list[str]) -> None:
    if not issubclass(cls, Tool):
        problems.append(
            "a tool class must subclass nucleo_core.Tool[InputModel, Output]; "
            "to declare a function, decorate the function itself"
        )
        return
    input_type, _ = io_types(cls)
    if input_type is None:
        problems.append(
            f"no input type: declare it as class {cls.__name__}(Tool[MyInput, MyOutput]) "
            "where MyInput is a pydantic BaseModel"
        )
    else:
        # A pydantic model can only exist once pydantic is imported, so `import nucleo_core`
        # need not import pydantic itself to make this check.
        pydantic = sys.modules.get("pydantic")
        if not (
            isinstance(input_type, type)
            and pydantic is not None
            and issubclass(input_type, pydantic.BaseModel)
        ):
            problems.append(
                f"input type {_type_label(input_type)} is not a pydantic model: "
                "subclass pydantic.BaseModel for the tool's input"
            )
    if "run" in getattr(cls, "__abstractmethods__", ()):
        problems.append("define run(self, input) (plain or async) on the tool class")


def _check_function(fn: FunctionType, problems: list[str]) -> None:
    code = fn.__code__
    if code.co_flags & (_CO_VARARGS | _CO_VARKEYWORDS):
        problems.append(
            "*args and **kwargs cannot be described to a model: declare each parameter by name"
        )
    if code.co_posonlyargcount:
        problems.append("positional-only parameters are not supported: remove the '/'")
    parameters = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    annotations = fn.__annotations__
    unannotated = [parameter for parameter in parameters if parameter not in annotations]
    if unannotated:
        listed = ", ".join(unannotated)
        problems.append(f"unannotated parameter(s) {listed}: annotate each parameter with its type")


def _check_state(subject: object, state: object, problems: list[str]) -> None:
    if state is None:
        return
    if not callable(state):
        problems.append(
            "state must be a class (or a callable taking no argument) that makes the tool's "
            "per-conversation state"
        )
        return
    if isinstance(subject, FunctionType):
        code = subject.__code__
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if STATE_PARAMETER not in names[code.co_posonlyargcount :]:
            problems.append(
                f"a function tool declared with state= receives it in a parameter named "
                f"'{STATE_PARAMETER}': add '{STATE_PARAMETER}: YourState' to its parameters"
            )


def _snake_case(name: str) -> str:
    return _CAMEL_BOUNDARY.sub("_", name).lower()


def _type_label(value: object) -> str:
    return getattr(value, "__qualname__", None) or repr(value)
