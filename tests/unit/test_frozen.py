"""`quick_init`: the faster ``__init__`` keeps a frozen dataclass what ``@dataclass`` made it."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from typing import Any

import pytest

from nucleo_core._frozen import quick_init
from nucleo_core.hub.call_door import ClearedCall
from nucleo_core.thinking._execution_report import CallOutcome, ExecutionReport
from nucleo_core.thinking.response import ThinkingResponse
from nucleo_core.thinking.tool_call import ToolCall


def _pair(**options: Any) -> tuple[type[Any], type[Any]]:
    """The same dataclass twice: as ``@dataclass`` made it, and with `quick_init` applied."""

    def make() -> type[Any]:
        @dataclasses.dataclass(frozen=True, slots=True, **options)
        class Sample:
            first: str
            second: int = 2
            items: list[int] = dataclasses.field(default_factory=list)
            last: tuple[int, ...] = dataclasses.field(default=(), kw_only=True)

        return Sample

    return make(), quick_init(make())


def _shown(cls: type[Any]) -> list[tuple[str, Any, str]]:
    return [(p.name, p.kind, repr(p.default)) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("kw_only", [False, True])
def test_same_parameters_defaults_and_values(kw_only: bool) -> None:
    plain, quick = _pair(kw_only=kw_only)
    assert _shown(quick) == _shown(plain)
    args: dict[str, Any] = {"first": "a", "last": (1,)}
    made, expected = quick(**args), plain(**args)
    assert dataclasses.astuple(made) == dataclasses.astuple(expected) == ("a", 2, [], (1,))
    assert quick(**args).items is not made.items  # a fresh default per instance
    given = quick(first="b", second=5, items=[7], last=(3,))
    assert dataclasses.astuple(given) == ("b", 5, [7], (3,))
    if not kw_only:
        assert dataclasses.astuple(quick("c", 9)) == ("c", 9, [], ())
    with pytest.raises(TypeError):
        quick()  # a required field is still required
    with pytest.raises(TypeError):
        quick(first="a", unknown=1)


def test_still_frozen_replaceable_picklable() -> None:
    _, quick = _pair()
    made = quick(first="a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.first = "b"
    assert dataclasses.replace(made, second=3) == quick(first="a", second=3)
    assert repr(made).endswith("Sample(first='a', second=2, items=[], last=())")
    call = ToolCall(id="call_1", name="add", raw_input={"a": 1})
    assert pickle.loads(pickle.dumps(call)) == call


def test_refuses_what_it_does_not_support() -> None:
    @dataclasses.dataclass(slots=True)
    class NotFrozen:
        value: int

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        value: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class PostInit:
        value: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class NotInInit:
        value: int = dataclasses.field(default=0, init=False)

    for cls in (NotFrozen, NoSlots, PostInit, NotInInit, int):
        with pytest.raises(TypeError):
            quick_init(cls)


@pytest.mark.parametrize(
    "cls", [ToolCall, ThinkingResponse, CallOutcome, ExecutionReport, ClearedCall]
)
def test_the_call_path_classes_keep_their_fields(cls: type[Any]) -> None:
    """Each class the call path builds per call has every field as an __init__ parameter."""
    names = [field.name for field in dataclasses.fields(cls)]
    assert list(inspect.signature(cls).parameters) == names
    assert cls.__dataclass_params__.frozen
