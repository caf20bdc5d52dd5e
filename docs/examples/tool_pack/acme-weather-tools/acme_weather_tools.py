"""Acme's weather tools, shipped as a nucleo tool pack."""

from typing import Annotated

from pydantic import Field

from nucleo_core import tool

# Subscriptions by city. A real pack would keep these in a database.
SUBSCRIPTIONS: dict[str, list[str]] = {}


@tool(read_only=True, risk="low")
def current_weather(city: str) -> str:
    """Say what the weather is like in a city right now.

    Args:
        city: The city's name, e.g. "Lisbon".
    """
    return f"{city}: 21°C, sunny"


@tool(read_only=True, risk="low")
def forecast(city: str, days: Annotated[int, Field(ge=1, le=7)] = 3) -> str:
    """Forecast the weather for a city.

    Args:
        city: The city's name, e.g. "Lisbon".
        days: How many days ahead, from 1 to 7.
    """
    return f"{city}: sunny for the next {days} days"


@tool(risk="medium")
def subscribe_alerts(city: str, email: str) -> str:
    """Send weather alerts for a city to an email address.

    Args:
        city: The city to watch.
        email: Where to send the alerts.
    """
    SUBSCRIPTIONS.setdefault(city, []).append(email)
    return f"{email} will hear about storms in {city}"
