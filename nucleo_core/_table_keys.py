"""`reject_unknown_keys`: a configuration table holds only the keys it may, or the error says so.

The tables of the project's configuration that share these words (the guard's and its rules',
the MCP servers' and their sampling's) refuse a key they do not know with one message::

    pyproject.toml [tool.nucleo.guard]: unknown key(s) colour; allowed: default, rules, ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["reject_unknown_keys"]


def reject_unknown_keys(
    table: Mapping[Any, Any],
    allowed: Sequence[str],
    where: str,
    error: Callable[[str], Exception],
    *,
    inside: str = "",
) -> None:
    """Raise ``error`` when ``table`` holds a key ``allowed`` does not list.

    Args:
        table: The table as read.
        allowed: The keys it may hold, in the order the message lists them.
        where: What the message starts with: the file and table, or the entry.
        error: Makes the exception raised, from its message.
        inside: The table's name, when the message names it after the keys
            (``unknown key(s) extra in the mcp table``).

    Raises:
        Exception: Made by ``error``, naming the unknown keys (sorted) and the allowed ones.
    """
    unknown = sorted(map(str, set(table) - set(allowed)))
    if unknown:
        named = f" in {inside}" if inside else ""
        raise error(
            f"{where}: unknown key(s) {', '.join(unknown)}{named}; allowed: {', '.join(allowed)}"
        )
