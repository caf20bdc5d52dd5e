"""`ExecutionPolicy`: how long a turn's tools may run, and how many at once."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["ExecutionPolicy"]


def _check_timeout(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number of seconds or None")
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{what} must be a positive, finite number of seconds or None")
    return float(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionPolicy:
    """How a turn's tool calls run.

    Attributes:
        timeout: Seconds each call may run, counted from when it starts running (waiting for a
            concurrency slot does not count); ``None`` for no limit. A synchronous tool's
            worker thread cannot be stopped: past its timeout its result is abandoned, and the
            thread runs on outside the concurrency cap until the tool returns.
        per_tool_timeouts: Timeouts by tool name, overriding ``timeout`` (``None`` there lifts
            the limit for that tool).
        max_concurrency: How many calls of a turn may run at once.

    Raises:
        TypeError: A value is not a number (booleans are not numbers here).
        ValueError: A timeout is not positive and finite, or ``max_concurrency`` is below 1.
    """

    timeout: float | None = 60.0
    per_tool_timeouts: Mapping[str, float | None] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )
    max_concurrency: int = 8

    def __post_init__(self) -> None:
        object.__setattr__(self, "timeout", _check_timeout(self.timeout, "timeout"))
        per_tool = {
            str(name): _check_timeout(seconds, f"the timeout of tool '{name}'")
            for name, seconds in dict(self.per_tool_timeouts).items()
        }
        object.__setattr__(self, "per_tool_timeouts", MappingProxyType(per_tool))
        cap = self.max_concurrency
        if isinstance(cap, bool) or not isinstance(cap, int):
            raise TypeError("max_concurrency must be an int")
        if cap < 1:
            raise ValueError("max_concurrency must be at least 1")

    def timeout_for(self, tool: str) -> float | None:
        """The timeout of a call to ``tool``: its own when it has one, else ``timeout``."""
        if tool in self.per_tool_timeouts:
            return self.per_tool_timeouts[tool]
        return self.timeout
