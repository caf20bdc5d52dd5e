"""Folders given as paths or as package resources, and how to name them in messages."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    # Only a type here: importlib.resources costs ~6 ms at `import nucleo_core`.
    from importlib.resources.abc import Traversable

__all__ = ["FolderLike", "as_traversable", "describe"]

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
