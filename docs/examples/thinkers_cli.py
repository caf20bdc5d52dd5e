"""Thinkers to run from the command line, with `nucleo run` and `nucleo chat`."""

from pydantic import BaseModel

from nucleo_core import AnswerSize, ThinkerDeclaration, tool
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


@tool(read_only=True, risk="low")
def forecast(city: str) -> str:
    """Forecast tomorrow's weather in a city."""
    return f"{city}: sunny, 24 °C"


class Trip(BaseModel):
    """What TripAdvisor is asked about."""

    city: str
    days: int = 2


class Advice(BaseModel):
    """What TripAdvisor answers."""

    go: bool
    reason: str


class Greeter(SingleObjectiveThinker[str, str]):
    """Answers in one friendly sentence. No declaration: the standard grade, a medium answer."""


class TripAdvisor(SingleObjectiveThinker[Trip, Advice]):
    """Says whether a trip is worth it, with the forecast at hand."""

    declaration = ThinkerDeclaration("fast", AnswerSize.SHORT)

    @classmethod
    def declare_default_tools(cls):
        """In the palette from the first turn."""
        return [forecast]


class Companion(ChatThinker):
    """Chats about the weather, one durable conversation at a time."""

    declaration = ThinkerDeclaration("fast", AnswerSize.SHORT)

    @classmethod
    def declare_default_tools(cls):
        """In the palette from the first turn."""
        return [forecast]
