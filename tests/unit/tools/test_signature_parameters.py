"""The fast read of a plain function's parameters agrees with `inspect.signature`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from nucleo_core.tools.function_signature import _signature_parameters


def _plain(a: int, b: str = "x", *, c: float, d: bool = True) -> None: ...


def _positional_only(a: int, /, b: int = 2, *, c: int = 3) -> None: ...


def _none() -> None: ...


def _variadic(a: int, *rest: int, **named: int) -> None: ...


def _ellipsis_default(a: Any = ...) -> None: ...


@functools.wraps(_plain)
def _wrapped(*args: Any, **kwargs: Any) -> None: ...


def _with_signature(a: int) -> None: ...


_with_signature.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("z", inspect.Parameter.KEYWORD_ONLY, default=5)]
)


def _closure() -> Callable[..., None]:
    captured = 1

    def inner(a: int, b: int = captured) -> None:
        local = a + b
        del local

    return inner


@pytest.mark.parametrize(
    "fn",
    [
        _plain,
        _positional_only,
        _none,
        _variadic,
        _ellipsis_default,
        _wrapped,
        _with_signature,
        _closure(),
        functools.partial(_plain, 1),
        lambda q, r=0: None,
    ],
)
def test_the_parameters_are_those_inspect_signature_gives(fn: Callable[..., Any]) -> None:
    expected = [
        (p.name, ... if p.default is p.empty else p.default)
        for p in inspect.signature(fn).parameters.values()
    ]
    assert [(p.name, p.default) for p in _signature_parameters(fn)] == expected
