"""Run every one of several actions, even when one raises, and raise the failures together."""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["run_all"]


def run_all(actions: Iterable[Callable[[], object]], failure: str) -> None:
    """Call each of ``actions`` in order; every one is called even when an earlier one raises.

    Raises:
        ExceptionGroup: Some actions raised; ``failure`` is its message, the exceptions (in
            the order raised) its members.
    """
    failures: list[Exception] = []
    for action in actions:
        try:
            action()
        except Exception as exc:
            failures.append(exc)
    if failures:
        raise ExceptionGroup(failure, failures)
