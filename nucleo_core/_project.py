"""The project folder: where nucleo looks for its configuration and keeps its state.

Going up from the working directory, the first folder that holds a ``nucleo.toml``, a
``pyproject.toml`` or a ``.nucleo`` folder; without one, the working directory itself. The
audit's settings, the store URL and the MCP pins all read their configuration there, and keep
their files in its ``.nucleo`` folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

__all__ = ["PROJECT_FOLDER_NAME", "project_folder"]

#: The folder of a project where nucleo keeps its state.
PROJECT_FOLDER_NAME: Final = ".nucleo"


def project_folder(start: str | os.PathLike[str] | None = None) -> Path:
    """The project folder nearest to ``start`` (the working directory), going up.

    The first folder holding a ``nucleo.toml``, a ``pyproject.toml`` or a ``.nucleo`` folder;
    ``start`` itself when none does.
    """
    directory = Path(start) if start is not None else Path.cwd()
    for folder in (directory, *directory.resolve().parents):
        if (
            (folder / "nucleo.toml").is_file()
            or (folder / "pyproject.toml").is_file()
            or (folder / PROJECT_FOLDER_NAME).is_dir()
        ):
            return folder
    return directory
