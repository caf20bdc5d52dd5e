"""A module whose tool `_scan_sample` imports: not `_scan_sample`'s own."""

from nucleo_core import tool


@tool(read_only=True, risk="low")
def borrowed(text: str) -> str:
    """A tool defined here and imported by the sample module."""
    return text
