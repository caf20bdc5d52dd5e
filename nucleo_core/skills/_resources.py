"""Folders given as paths or as package resources, and how to name them in messages."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, cast

if TYPE_CHECKING:
    # Only a type here: importlib.resources costs ~6 ms at `import nucleo_core`.
    from importlib.resources.abc import Traversable

__all__ = ["RESOURCE_LIMIT", "FolderLike", "as_traversable", "describe", "resource_files"]

#: The most files a skill's folder lists (a folder holding more lists its first ones).
RESOURCE_LIMIT = 500
#: Folders never listed: caches and version-control data, not the skill's material.
_SKIPPED = frozenset({"__pycache__", ".git", ".hg", ".svn", "node_modules"})

#: A folder as a caller may give it: a path, or a resource of an installed package (which may
#: live inside a wheel or a zip, where no filesystem path exists).
FolderLike: TypeAlias = "Traversable | os.PathLike[str] | str"


def as_traversable(folder: FolderLike) -> Traversable:
    """``folder`` as something to traverse: paths become `Path`, resources stay as they are."""
    if isinstance(folder, str | os.PathLike):
        path = Path(folder)
        # Path(".").name is "", and a skill's name is checked against its folder's name.
        return path if path.name else path.resolve()
    return folder


def describe(resource: Traversable) -> str:
    """A readable location for messages: the path, or the resource's own description."""
    if isinstance(resource, os.PathLike):
        return os.fsdecode(os.fspath(resource))
    return str(resource)


def resource_files(root: Traversable) -> list[str]:
    """The files under ``root``, as ``/``-joined relative paths, sorted; at most `RESOURCE_LIMIT`.

    Hidden entries (a name starting with ``.``) and caches are left out. On a filesystem, an
    entry that is a symbolic link leading out of ``root`` is left out too, so listing never
    points outside the skill's folder.
    """
    base = Path(os.fspath(root)).resolve() if isinstance(root, os.PathLike) else None
    found: list[str] = []
    pending: list[tuple[Traversable, str]] = [(root, "")]
    while pending and len(found) < RESOURCE_LIMIT:
        folder, prefix = pending.pop()
        for entry in sorted(folder.iterdir(), key=lambda item: item.name):
            name = entry.name
            if name.startswith(".") or name in _SKIPPED:
                continue
            if base is not None and not _inside(base, entry):
                continue
            relative = f"{prefix}{name}"
            if entry.is_dir():
                pending.append((entry, relative + "/"))
            elif entry.is_file():
                found.append(relative)
    return sorted(found)[:RESOURCE_LIMIT]


def _inside(base: Path, entry: Traversable) -> bool:
    """Whether ``entry`` (a filesystem entry) resolves inside ``base``: no link leads out."""
    try:
        return Path(os.fspath(cast("os.PathLike[str]", entry))).resolve().is_relative_to(base)
    except (OSError, TypeError):
        return False
