"""Reading the replies a provider SDK builds without validating them: every field is checked.

The ``openai`` SDK builds its response objects leniently, so that a server's additions survive;
a field may be missing, ``None`` or of another type. These readers never raise: a field is read
as an attribute or a key, or is ``None``; a string that is not one reads ``""``; a count that
is not one reads ``0``.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["count_of", "field_of", "text_of"]


def field_of(value: object, name: str) -> object:
    """``value.name`` or ``value[name]``, or ``None``: the SDK does not validate replies."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def text_of(value: object) -> str:
    """``value`` when it is a string, else ``""``."""
    return value if isinstance(value, str) else ""


def count_of(value: object) -> int:
    """``value`` when it is an integer (not a boolean), else ``0``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
