"""Weather tools: a forecast, and alerts the user can set and clear.

List them with ``nucleo tools --from docs/examples/weather.py``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from nucleo_core import Tool, tool

# Alerts set by `set_alert`, by city. A real tool pack would keep these in a database.
ALERTS: dict[str, list[str]] = {}


@tool(read_only=True, risk="low")
def forecast(city: str, days: Annotated[int, Field(ge=1, le=7)] = 3) -> str:
    """Forecast the weather for a city.

    Args:
        city: The city's name, e.g. "Lisbon".
        days: How many days ahead, from 1 to 7.
    """
    outlook = ["sunny", "cloudy", "showers", "sunny", "windy", "sunny", "cloudy"]
    return "; ".join(f"day {day + 1}: {outlook[day]}" for day in range(days)) + f" in {city}"


class AlertInput(BaseModel):
    """When to alert, and about what."""

    city: str = Field(description="The city to watch.")
    condition: Literal["rain", "frost", "heat", "wind"] = Field(
        description="The forecast condition that triggers the alert."
    )


@tool(risk="medium", display_name="Set weather alert", action_verb="Setting an alert")
class SetAlert(Tool[AlertInput, str]):
    """Alert the user when a condition is forecast for a city."""

    def run(self, input: AlertInput) -> str:
        """Record the alert."""
        ALERTS.setdefault(input.city, []).append(input.condition)
        return f"Alert set: {input.condition} in {input.city}"


@tool
def clear_alerts(city: Annotated[str, "The city whose alerts are removed."]) -> int:
    """Remove every weather alert set for a city; returns how many were removed."""
    return len(ALERTS.pop(city, []))
