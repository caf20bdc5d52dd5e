"""The ``files`` tool pack: read, list, write and delete text files inside one root folder.

This module is what the ``nucleo.tools`` entry point ``files`` names: nucleo registers the
``@tool`` functions defined here, and a thinker selects them with
``ToolSelector().add_pack("files")``. Every path is taken relative to the root folder
(`nucleo_tools_files.root.files_root`) and refused if it leads out of it.

Each tool declares what it does to the world: the two readers are read-only and low risk,
writing is medium risk (it can overwrite a file) and deleting is high risk.

The module is also a hook plugin: `nucleo_skill_tool_aliases` maps the tool names skills
written for Claude Code use in ``allowed-tools`` (`SKILL_TOOL_ALIASES`) onto these tools, so
such a skill, attached, keeps them.
"""

from __future__ import annotations

import codecs
import fnmatch
from pathlib import Path
from typing import Annotated

from pydantic import Field

from nucleo_core import hookimpl, tool
from nucleo_tools_files.root import FileToolError, files_root, inside_root

__all__ = [
    "SKILL_TOOL_ALIASES",
    "delete_file",
    "list_directory",
    "nucleo_skill_tool_aliases",
    "read_text_file",
    "write_text_file",
]

#: Claude Code's file tools, as skills name them in ``allowed-tools``, and the tools of this
#: pack standing for each. ``Edit`` changes a file, which here is writing it whole; ``Grep``
#: searches files, which here is listing them and reading them. ``delete_file`` stands for
#: none: no Claude Code file tool deletes.
SKILL_TOOL_ALIASES: dict[str, list[str]] = {
    "Read": ["read_text_file"],
    "Write": ["write_text_file"],
    "Edit": ["write_text_file"],
    "MultiEdit": ["write_text_file"],
    "Glob": ["list_directory"],
    "LS": ["list_directory"],
    "Grep": ["list_directory", "read_text_file"],
}

#: The most a single read returns, whatever ``max_bytes`` asks for.
READ_LIMIT = 1_048_576

#: The most entries one listing returns; the rest are counted in a last line.
LIST_LIMIT = 500


def _relative(root: Path, path: Path) -> str:
    """``path`` as the model should refer to it: relative to ``root``, with ``/``."""
    return path.relative_to(root).as_posix() or "."


@tool(read_only=True, risk="low", action_verb="Reading")
def read_text_file(
    path: str,
    max_bytes: Annotated[int, Field(ge=1, le=READ_LIMIT)] = 65_536,
) -> str:
    """Read a UTF-8 text file inside the files root.

    A file longer than max_bytes is cut, and the text ends with a line saying so.

    Args:
        path: The file's path, relative to the files root.
        max_bytes: Read at most this many bytes of the file.
    """
    file = inside_root(files_root(), path)
    if file.is_dir():
        raise FileToolError(
            "That path is a folder, not a file; use list_directory to see what it holds."
        )
    if not file.is_file():
        raise FileToolError(
            "No file exists at that path; use list_directory to see which files exist."
        )
    size = file.stat().st_size
    with file.open("rb") as stream:
        data = stream.read(max_bytes)
    try:
        # A cut may fall inside a multi-byte character: decode only the complete ones.
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=len(data) >= size)
    except UnicodeDecodeError:
        raise FileToolError(
            "That file is not UTF-8 text (it may be binary); only text files can be read."
        ) from None
    if len(data) < size:
        text += f"\n[cut: showed the first {len(data)} of {size} bytes; raise max_bytes to read on]"
    return text


@tool(read_only=True, risk="low", action_verb="Listing")
def list_directory(path: str = ".", pattern: str = "*") -> list[str]:
    """List the entries of a folder inside the files root, sorted by name.

    Folders are listed with a trailing '/'. Only the folder's own entries are listed, not
    those of its sub-folders.

    Args:
        path: The folder's path, relative to the files root ('.' is the root itself).
        pattern: A shell-style pattern the entries' names must match, such as '*.py'.
    """
    folder = inside_root(files_root(), path)
    if not folder.is_dir():
        raise FileToolError(
            "No folder exists at that path; list the folder above it to see what exists."
        )
    entries = sorted(
        entry.name + ("/" if entry.is_dir() else "")
        for entry in folder.iterdir()
        if fnmatch.fnmatchcase(entry.name, pattern)
    )
    if len(entries) > LIST_LIMIT:
        more = len(entries) - LIST_LIMIT
        entries = [*entries[:LIST_LIMIT], f"[{more} more entries; narrow the pattern]"]
    return entries


@tool(risk="medium", action_verb="Writing")
def write_text_file(path: str, text: str) -> str:
    """Write text to a file inside the files root, as UTF-8, replacing what it held.

    Folders on the way that do not exist yet are created.

    Args:
        path: The file's path, relative to the files root.
        text: The file's whole new content.
    """
    root = files_root()
    file = inside_root(root, path)
    if file == root or file.is_dir():
        raise FileToolError("That path is a folder; give the path of a file to write.")
    file.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    file.write_bytes(data)
    return f"wrote {len(data)} bytes to {_relative(root, file)}"


@tool(risk="high", action_verb="Deleting")
def delete_file(path: str) -> str:
    """Delete one file inside the files root. Folders are never deleted.

    Args:
        path: The file's path, relative to the files root.
    """
    root = files_root()
    file = inside_root(root, path)
    if file.is_dir():
        raise FileToolError("That path is a folder; only single files can be deleted.")
    if not file.is_file():
        raise FileToolError(
            "No file exists at that path; use list_directory to see which files exist."
        )
    file.unlink()
    return f"deleted {_relative(root, file)}"


@hookimpl
def nucleo_skill_tool_aliases() -> dict[str, list[str]]:
    """The Claude Code tool names this pack's tools stand for (`SKILL_TOOL_ALIASES`)."""
    return {alias: list(targets) for alias, targets in SKILL_TOOL_ALIASES.items()}
