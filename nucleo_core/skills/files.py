"""An attached skill's own files: listed in its preamble, read with ``read_skill_file``.

Published skills lean on the files beside their ``SKILL.md`` (``scripts/``, ``references/``,
``assets/``). The preamble an attached skill adds to the system text lists them
(`skill_preamble`), and the builtin plugin ``builtin:skill_files`` offers ``read_skill_file``
while an attached skill has any: a read-only tool that reads one of them as text, from a folder
on disk or a package inside a wheel or a zip (``importlib.resources``).

It reads nothing else: the skill must be attached to the conversation, and the path must be
one of the files its folder lists (relative, ``/``-separated, no ``..``), so neither an
absolute path, a ``..`` segment nor a link leading out of the folder reaches anything. Its
errors say what to fix and never repeat the path the model sent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nucleo_core.errors import CorrectableError
from nucleo_core.tools.builtin_provider import BuiltinToolProvider
from nucleo_core.tools.provider import RawInput
from nucleo_core.tools.reserved import READ_SKILL_FILE
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from nucleo_core.skills.skill import Skill

__all__ = [
    "READ_LIMIT",
    "READ_SKILL_FILE",
    "SkillFileError",
    "SkillFilesProvider",
    "skill_preamble",
]

#: The most bytes one read returns; a longer file is cut, and the text says so.
READ_LIMIT = 262_144

#: The most file paths a preamble lists.
_LISTED = 100


class SkillFileError(CorrectableError):
    """``read_skill_file`` cannot read what it was asked; the message is written for the model.

    It says what is wrong and what to do, and never repeats the path the model sent.
    """


def skill_preamble(skill: Skill) -> str:
    """The system text an attached skill adds: a heading, its instructions, then its files.

    A skill with files beside its ``SKILL.md`` lists them, so the model knows to read them
    with ``read_skill_file``.
    """
    text = f"# Skill: {skill.name}\n\n{skill.instructions}"
    if not skill.resources:
        return text
    listed = [f"- {path}" for path in skill.resources[:_LISTED]]
    more = len(skill.resources) - _LISTED
    if more > 0:
        listed.append(f"- ... and {more} more")
    return (
        f"{text}\n\nThis skill's files (read one with {READ_SKILL_FILE}, giving skill "
        f'"{skill.name}" and the path as listed):\n' + "\n".join(listed)
    )


class SkillFilesProvider(BuiltinToolProvider):
    """``read_skill_file``: read one file of an attached skill, as text.

    Built per turn over the attached skills that have files (their names are the only values
    its ``skill`` field accepts). Read-only and low risk; restricting, so a skill whose
    ``allowed-tools`` narrow the palette can still read its own files. Two instances are the
    same registry entry (equality by type), so re-registration every turn replaces it.

    Args:
        skills: The attached skills with files, each with its folder (`Skill.root`).
    """

    __slots__ = ("_schema", "_skills")

    def __init__(self, skills: Sequence[Skill]) -> None:
        super().__init__()
        self._skills: Mapping[str, Skill] = {skill.name: skill for skill in skills}
        self._schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                "skill": {
                    "oneOf": [
                        {"const": skill.name, "description": skill.description} for skill in skills
                    ],
                    "description": "The attached skill whose file to read.",
                },
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "The file's path inside the skill's folder, as the skill's file list "
                        "gives it (such as references/guide.md)."
                    ),
                },
            },
            "required": ["skill", "path"],
            "additionalProperties": False,
        }

    @property
    def name(self) -> str:
        """``read_skill_file``."""
        return READ_SKILL_FILE

    @property
    def description(self) -> str:
        """What the model reads about the tool."""
        return (
            "Read one file of a skill you have loaded (its scripts, references or assets), "
            "as text. The files are listed under each skill's instructions."
        )

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """The turn's schema: the attached skills with files, and a path."""
        return self._schema

    @property
    def skills(self) -> tuple[str, ...]:
        """The names of the skills whose files it reads."""
        return tuple(self._skills)

    @property
    def read_only(self) -> bool:
        """``True``: it only reads the skill's own files."""
        return True

    @property
    def restricting(self) -> bool:
        """``True``: a skill's ``allowed-tools`` never hide its own files from the model."""
        return True

    def parse_input(self, raw: RawInput) -> Any:
        """Validate against this turn's schema: ``(skill, path)``."""
        data = self.checked_input(raw)
        return (data["skill"], data["path"])

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """The tool reading the files of the skills ``parent`` (the thinker) has attached."""
        return _ReadSkillFile(parent, self._skills)


class _ReadSkillFile(Tool[Any, str]):
    def __init__(self, parent: object | None, skills: Mapping[str, Skill]) -> None:
        super().__init__(parent)
        self._skills = skills

    def run(self, input: Any) -> str:
        name, path = input
        skill = self._skills.get(name)
        attached = getattr(self.parent, "skills", None)
        if skill is None or (attached is not None and all(held.name != name for held in attached)):
            raise SkillFileError(
                "That skill is not loaded in this conversation; read files only of the skills "
                f"{READ_SKILL_FILE}'s schema lists."
            )
        return read_skill_file(skill, path)


def read_skill_file(skill: Skill, path: str) -> str:
    """The text of the file ``path`` (as `Skill.resources` lists it) of ``skill``'s folder.

    Raises:
        SkillFileError: The path is not one of the skill's files, or the file is not text.
    """
    relative = _checked_path(path)
    if skill.root is None or relative not in skill.resources:
        raise SkillFileError(
            "No file of that path is among the skill's files; give one of the paths listed "
            "under the skill's instructions, exactly as written there."
        )
    entry = _entry(skill.root, relative)
    try:
        with entry.open("rb") as stream:
            data = stream.read(READ_LIMIT + 1)
    except OSError as exc:
        raise SkillFileError(
            "That file of the skill could not be read; try another of its files."
        ) from exc
    cut = len(data) > READ_LIMIT
    try:
        text = _decoded(data[:READ_LIMIT], cut=cut)
    except UnicodeDecodeError as exc:
        raise SkillFileError(
            "That file is not UTF-8 text (an image or other binary asset), so it cannot be "
            "read as text; use the skill's text files."
        ) from exc
    if cut:
        text += f"\n[cut: the file is longer than {READ_LIMIT} bytes]"
    return text


def _decoded(data: bytes, *, cut: bool) -> str:
    """``data`` as UTF-8; a cut file may end inside a character, which is then dropped."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not cut or exc.start < len(data) - 3:
            raise
        return data[: exc.start].decode("utf-8")


def _checked_path(path: str) -> str:
    """``path`` normalized (``./`` and doubled ``/`` dropped), or a refusal saying why."""
    refusal = SkillFileError(
        "The path must be relative to the skill's folder, with '/' between names and no '..' "
        "segment; give one of the paths listed under the skill's instructions."
    )
    if not path or "\\" in path or "\x00" in path or path.startswith("/"):
        raise refusal
    if len(path) > 1 and path[1] == ":":  # a Windows drive
        raise refusal
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if not parts or any(part == ".." for part in parts):
        raise refusal
    return "/".join(parts)


def _entry(root: Traversable, relative: str) -> Traversable:
    """The entry of ``root`` at ``relative``, checked again on a filesystem: no link leads out."""
    entry = root
    for part in relative.split("/"):
        entry = entry.joinpath(part)
    if isinstance(root, os.PathLike) and isinstance(entry, os.PathLike):
        base = Path(os.fspath(root)).resolve()
        if not Path(os.fspath(entry)).resolve().is_relative_to(base):
            raise SkillFileError(
                "That file leads out of the skill's folder, so it is not read; use the "
                "skill's other files."
            )
    if not entry.is_file():
        raise SkillFileError(
            "No file of that path is among the skill's files; give one of the paths listed "
            "under the skill's instructions, exactly as written there."
        )
    return entry
