"""`quick_init`: a faster ``__init__`` for the frozen, slotted dataclasses of the call path.

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__`` (the
class refuses plain assignment), which checks the call against the instance's type every time;
a dataclass built on every tool call (`ToolCall`, `CallOutcome`, ...) spends most of its
construction there. The ``__init__`` made here sets each slot through the slot's own
descriptor instead. The class stays what ``@dataclass`` made it: frozen (assignment raises
``FrozenInstanceError``), with the same parameters, defaults and default factories.
"""

from __future__ import annotations

import dataclasses
from types import MemberDescriptorType
from typing import Any, TypeVar

__all__ = ["quick_init"]

ClassT = TypeVar("ClassT", bound=type)


class _Factory:
    """The default of a field with a default factory (shown as the dataclass shows it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_MISSING = _Factory()


def quick_init(cls: ClassT) -> ClassT:
    """Give the frozen, slotted dataclass ``cls`` an ``__init__`` that sets slots directly.

    Apply it after ``@dataclass(frozen=True, slots=True)``. Every field must be an ``__init__``
    parameter, and the class must have no ``__post_init__`` (neither is supported here).

    Raises:
        TypeError: ``cls`` is not such a dataclass.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or not params.init or "__slots__" not in vars(cls):
        raise TypeError(f"{cls.__qualname__} is not a frozen, slotted dataclass with an __init__")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__qualname__} has a __post_init__, which quick_init does not run")
    namespace: dict[str, Any] = {"_MISSING": _MISSING}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for field in dataclasses.fields(cls):
        name = field.name
        if not field.init:
            raise TypeError(f"{cls.__qualname__}.{name} is not an __init__ parameter")
        descriptor = _slot(cls, name)
        namespace[f"_set_{name}"] = descriptor.__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = field.default
            parameter = f"{name}=_default_{name}"
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = field.default_factory
            parameter = f"{name}=_MISSING"
            body.append(f"    if {name} is _MISSING:\n        {name} = _factory_{name}()")
        else:
            parameter = name
        (keyword if field.kw_only else positional).append(parameter)
        body.append(f"    _set_{name}(self, {name})")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({signature}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # built from the dataclass's own field names
    init = namespace["__init__"]
    original = vars(cls)["__init__"]
    init.__qualname__ = original.__qualname__
    init.__module__ = original.__module__
    init.__annotations__ = dict(getattr(original, "__annotations__", {}))
    type.__setattr__(cls, "__init__", init)
    return cls


def _slot(cls: type, name: str) -> MemberDescriptorType:
    for klass in cls.__mro__:
        descriptor = vars(klass).get(name)
        if isinstance(descriptor, MemberDescriptorType):
            return descriptor
    raise TypeError(f"{cls.__qualname__}.{name} is not a slot")
