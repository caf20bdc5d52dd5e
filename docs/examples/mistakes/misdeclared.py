"""A tool module with two mistakes in one tool, to show how nucleo reports them (docs/cli.md)."""

from nucleo_core import tool


@tool(risk="low")
def convert(amount, currency: str) -> float:  # no docstring, and `amount` has no type
    return 0.0
