"""The demo's tools: two read-only look-ups, and one high-risk action no thinker gets to run.

The look-ups answer with fixed demo data (nothing is fetched), so every run tells the same
story. Each records when it starts and finishes in `ACTIVITY`, which is how the demo shows
that two calls of one turn ran side by side.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Annotated, TypeAlias

from nucleo_core import tool

__all__ = ["ACTIVITY", "LOOKUP_SECONDS", "forecast", "send_invitations", "sunset"]

#: ``("started" | "finished", tool name)`` for every look-up call, in the order they happen;
#: ``None`` (nothing recorded) outside a demo run. The executor runs each call in a task that
#: copies the context, so every call appends to the list the run set.
ACTIVITY: ContextVar[list[tuple[str, str]] | None] = ContextVar(
    "nucleo_demo_activity", default=None
)

#: How long a look-up pretends to wait for its service: long enough for two calls to overlap.
LOOKUP_SECONDS = 0.05


#: The look-ups' parameters, described once for both (``Annotated[T, "description"]``).
City: TypeAlias = Annotated[str, 'The city\'s name, e.g. "Lisbon".']
Day: TypeAlias = Annotated[str, 'Which day: "today" or "tomorrow".']


@tool(read_only=True, risk="low")
async def forecast(city: City, day: Day = "tomorrow") -> str:
    """Forecast the weather in a city."""
    async with _recorded("forecast"):
        return f"{city}, {day}: sunny, 24 °C, light wind (demo data)"


@tool(read_only=True, risk="low")
async def sunset(city: City, day: Day = "tomorrow") -> str:
    """Say when the sun sets in a city."""
    async with _recorded("sunset"):
        return f"{city}, {day}: sunset at 20:41 (demo data)"


@tool(risk="high")
def send_invitations(to: str, message: str) -> str:
    """Send an invitation to everyone on a team.

    Args:
        to: The team, e.g. "the design team".
        message: The invitation's text.
    """
    return f"Invitations sent to {to}."


@asynccontextmanager
async def _recorded(name: str) -> AsyncIterator[None]:
    activity = ACTIVITY.get()
    if activity is not None:
        activity.append(("started", name))
    try:
        await asyncio.sleep(LOOKUP_SECONDS)
        yield
    finally:
        if activity is not None:
            activity.append(("finished", name))
