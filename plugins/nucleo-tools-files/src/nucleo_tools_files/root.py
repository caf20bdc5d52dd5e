"""The root folder the file tools are confined to, and the check that keeps them inside it.

The root is, first found wins:

1. the ``NUCLEO_FILES_ROOT`` environment variable (a relative path is taken from the working
   directory);
2. ``root`` in the ``[files]`` table of the nearest ``nucleo.toml``, or in the
   ``[tool.nucleo.files]`` table of the nearest ``pyproject.toml`` that has one, looking from
   the working directory upward (a relative path is taken from that file's folder); in each
   folder a ``nucleo.toml`` wins, as it does for nucleo's own model catalog;
3. the working directory.

It is looked up at every call, so a change of the variable or the file takes effect at once.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from nucleo_core import CorrectableError, MisuseError

__all__ = [
    "CONFIG_KEYS",
    "ROOT_ENVIRONMENT_VARIABLE",
    "FileToolError",
    "FilesConfigError",
    "PathOutsideRoot",
    "files_root",
    "inside_root",
]

#: Names the root folder; wins over any configuration file.
ROOT_ENVIRONMENT_VARIABLE = "NUCLEO_FILES_ROOT"

#: The keys the ``[tool.nucleo.files]`` / ``[files]`` table may hold.
CONFIG_KEYS = ("root",)


class FilesConfigError(MisuseError):
    """The files root is configured wrongly (a developer's mistake, not the model's)."""


class FileToolError(CorrectableError):
    """A file tool cannot do what it was asked; the message is written for the model.

    Like every correctable error, it says what is wrong and what to do, and never repeats
    the path the model sent.
    """


class PathOutsideRoot(FileToolError):
    """A path leads outside the root folder."""

    def __init__(self) -> None:
        super().__init__(
            "That path leads outside the folder these file tools are confined to. Give a path "
            "relative to that folder (list_directory with path '.' shows its top level), "
            "without '..' segments or links that climb out of it."
        )


def _table_in(file: Path) -> dict[str, Any] | None:
    """The files table of ``file`` (``None`` when it has none).

    Raises:
        FilesConfigError: The file is not valid TOML, or the table is not a table.
    """
    try:
        document = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise FilesConfigError(f"{file}: not valid TOML ({exc})") from exc
    keys = ("tool", "nucleo", "files") if file.name == "pyproject.toml" else ("files",)
    table: dict[str, Any] = document
    for depth, key in enumerate(keys):
        if key not in table:
            return None
        found = table[key]
        if not isinstance(found, dict):
            raise FilesConfigError(f"{file}: {'.'.join(keys[: depth + 1])} must be a table")
        table = found
    return table


def _configured_root(start: Path) -> tuple[Path, str] | None:
    """The root named by the nearest configuration file, and where it is named; if any.

    Raises:
        FilesConfigError: The nearest configuration is malformed.
    """
    for folder in (start, *start.parents):
        for file_name in ("nucleo.toml", "pyproject.toml"):
            file = folder / file_name
            if not file.is_file():
                continue
            table = _table_in(file)
            if table is None and file_name == "pyproject.toml":
                continue
            if table is None:
                return None  # a nucleo.toml without [files]: its folder's configuration wins
            origin = f"{file} [{'tool.nucleo.files' if file_name == 'pyproject.toml' else 'files'}]"
            unknown = sorted(set(table) - set(CONFIG_KEYS))
            if unknown:
                raise FilesConfigError(
                    f"{origin}: unknown key(s) {', '.join(unknown)}; allowed: "
                    + ", ".join(CONFIG_KEYS)
                )
            root = table.get("root")
            if root is None:
                return None
            if not isinstance(root, str) or not root.strip():
                raise FilesConfigError(
                    f'{origin}: root must be a folder path as a string, e.g. root = "data"'
                )
            return folder / Path(root).expanduser(), origin
    return None


def files_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The root folder the file tools are confined to, resolved (links followed).

    Args:
        start: Where to start looking for configuration files; the working directory when
            omitted.

    Raises:
        FilesConfigError: The configuration is malformed, or the root is not an existing
            folder.
    """
    directory = Path(start) if start is not None else Path.cwd()
    variable = os.environ.get(ROOT_ENVIRONMENT_VARIABLE, "").strip()
    if variable:
        root, origin = Path(variable).expanduser(), f"{ROOT_ENVIRONMENT_VARIABLE}={variable}"
        if not root.is_absolute():
            root = directory / root
    else:
        configured = _configured_root(directory.resolve())
        root, origin = configured if configured is not None else (directory, "")
    resolved = root.resolve()
    if not resolved.is_dir():
        named = f" ({origin})" if origin else ""
        raise FilesConfigError(
            f"the files root {resolved}{named} is not an existing folder; create it or point "
            f"{ROOT_ENVIRONMENT_VARIABLE} or [tool.nucleo.files] root at one"
        )
    return resolved


def inside_root(root: Path, path: str) -> Path:
    """``path`` (relative to ``root``, or absolute) resolved, if it stays inside ``root``.

    Links are followed before the check, so a link inside the root that points out of it is
    refused too. This keeps a model's mistakes inside the root; it is not a sandbox against a
    hostile process changing the folder between the check and the use.

    Args:
        root: The resolved root folder (`files_root`).
        path: The path the model gave.

    Raises:
        PathOutsideRoot: The path leads outside ``root``.
        FileToolError: The path is not a path at all (it holds a NUL character).
    """
    if "\x00" in path:
        raise FileToolError("A path cannot hold a NUL character; give a plain relative path.")
    candidate = Path(path).expanduser() if path.startswith("~") else Path(path)
    resolved = (root / candidate).resolve()  # an absolute candidate replaces root here
    if not resolved.is_relative_to(root):
        raise PathOutsideRoot()
    return resolved
