"""A table of the project's nucleo configuration: ``pyproject.toml`` or ``nucleo.toml``.

nucleo's settings live in ``[tool.nucleo.<section>]`` of a ``pyproject.toml`` or in
``[<section>]`` of a ``nucleo.toml``. Each layer that has settings (skills, the guard, models,
MCP servers) reads its table the same way (`read_table`) and finds the project's file the same
way (`nearest_config`): going up from the working directory, in each folder a ``nucleo.toml``
wins, and a ``pyproject.toml`` counts when it holds the table.

Every layer reads its settings this way, and ``stores.url`` the store's URL, so the reading
lives in the foundation.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["NUCLEO_TOML", "PYPROJECT_TOML", "nearest_config", "read_table", "table_keys"]

#: nucleo's own configuration file: its tables sit at the top (``[skills]``).
NUCLEO_TOML = "nucleo.toml"
#: A Python project's file: nucleo's tables sit under ``[tool.nucleo]``.
PYPROJECT_TOML = "pyproject.toml"

_T = TypeVar("_T")


def table_keys(file: Path, section: str | tuple[str, ...]) -> tuple[str, ...]:
    """The keys leading to ``section``'s table in ``file``: under ``tool.nucleo`` in a pyproject."""
    keys = (section,) if isinstance(section, str) else section
    return ("tool", "nucleo", *keys) if file.name == PYPROJECT_TOML else keys


def read_table(
    path: str | os.PathLike[str],
    section: str | tuple[str, ...],
    error: Callable[[str], Exception],
) -> tuple[dict[str, Any] | None, str]:
    """``section``'s table in one ``pyproject.toml`` or ``nucleo.toml``, and where it was read.

    Args:
        path: The file.
        section: The table's name below nucleo's (``"skills"``, or ``("guard", "audit")``).
        error: Makes the exception raised, from its message.

    Returns:
        The table (``None`` when the file has none) and its origin, as messages name it:
        ``<file> [tool.nucleo.skills]``.

    Raises:
        Exception: Made by ``error``: the file is not valid TOML, or a key on the way to the
            table holds something other than a table.
    """
    file = Path(path)
    try:
        document = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{file}: not valid TOML ({exc})") from exc
    keys = table_keys(file, section)
    origin = f"{file} [{'.'.join(keys)}]"
    table: Any = document
    for depth, key in enumerate(keys):
        if key not in table:
            return None, origin
        table = table[key]
        if not isinstance(table, dict):
            raise error(f"{file}: {'.'.join(keys[: depth + 1])} must be a table")
    return table, origin


def nearest_config(
    start: str | os.PathLike[str] | None, read: Callable[[Path], _T | None]
) -> tuple[_T | None, Path | None]:
    """What ``read`` makes of the project file nearest to ``start``, and that file.

    Going up from ``start`` (the working directory when ``None``), in each folder a
    ``nucleo.toml`` wins: what ``read`` makes of it is the answer, ``None`` (it has no such
    table) included. Else a ``pyproject.toml`` counts when ``read`` makes something of it.

    Returns:
        The configuration read and the file it was read from; ``(None, nucleo_toml)`` for a
        ``nucleo.toml`` without the table, ``(None, None)`` when no file has it.
    """
    directory = Path(start) if start is not None else Path.cwd()
    for folder in (directory, *directory.resolve().parents):
        nucleo_toml = folder / NUCLEO_TOML
        if nucleo_toml.is_file():
            return read(nucleo_toml), nucleo_toml
        pyproject = folder / PYPROJECT_TOML
        if pyproject.is_file():
            found = read(pyproject)
            if found is not None:
                return found, pyproject
    return None, None
