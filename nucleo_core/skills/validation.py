"""`validate_skill_folder`: a skill folder checked against the Agent Skills specification.

What ``nucleo skills validate PATH`` runs. Loading a skill stops at its first problem and
tolerates what other agents write (Claude Code's fields, commas in ``allowed-tools``); this
check reports every problem the specification names, each with what to fix, and tells apart
what breaks the specification (an error) from what only departs from its style (a warning).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nucleo_core.skills._front_matter import SPEC_FIELDS, _Checker, _load_yaml, _split
from nucleo_core.skills._resources import FolderLike, as_traversable, describe
from nucleo_core.skills.errors import SkillFormatError

__all__ = ["SkillValidation", "validate_skill_folder"]

_SKILL_FILE = "SKILL.md"

#: Fields other agents define, with what nucleo does with them, for the fix the error gives.
_KNOWN_EXTENSIONS = {
    "disable-model-invocation": "nucleo reads it (the skill is never offered to the model)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillValidation:
    """What checking one skill folder found.

    Attributes:
        location: The folder checked.
        errors: What breaks the specification, each with what to fix.
        warnings: What departs from the specification's style, each with what to do.
    """

    location: str
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        """Whether the folder follows the specification (warnings allowed)."""
        return not self.errors


def validate_skill_folder(folder: FolderLike) -> SkillValidation:
    """Check ``folder`` against the Agent Skills specification; never raises for its content.

    Checked: the folder holds ``SKILL.md`` (UTF-8) opening with YAML front matter; ``name``
    follows the naming rules (1 to 64 lowercase letters, digits and single hyphens) and equals
    the folder's name; ``description`` is there, non-empty, at most 1024 characters;
    ``compatibility`` at most 500; ``license`` text; ``metadata`` a mapping of strings to
    strings; ``allowed-tools`` a space-separated string (a list is accepted); and no field
    but those the specification defines.
    """
    root = as_traversable(folder)
    where = describe(root)
    if not root.is_dir():
        return SkillValidation(
            location=where, errors=("it is not a folder; a skill is a folder holding SKILL.md",)
        )
    skill_file = root.joinpath(_SKILL_FILE)
    if not skill_file.is_file():
        return SkillValidation(
            location=where,
            errors=(
                "the folder holds no SKILL.md; add one (upper case), starting with YAML front "
                "matter between '---' lines giving 'name' and 'description'",
            ),
        )
    try:
        text = skill_file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return SkillValidation(location=where, errors=("SKILL.md is not UTF-8; save it as UTF-8",))
    try:
        front_matter, _ = _split(text, where)
        fields = _load_yaml(front_matter, where)
    except SkillFormatError as exc:
        return SkillValidation(location=where, errors=(exc.reason,))
    checker = _Checker(fields, where)
    errors: list[str] = []
    checks: list[Callable[[], object]] = [
        lambda: checker.name(root.name),
        checker.description,
        checker.license,
        checker.compatibility,
        checker.metadata,
        checker.allowed_tools,
    ]
    for check in checks:
        try:
            check()
        except SkillFormatError as exc:
            errors.append(exc.reason)
    for key in fields:
        if key in SPEC_FIELDS:
            continue
        name = str(key)
        read = _KNOWN_EXTENSIONS.get(name, "nucleo keeps it in the skill's extra fields")
        errors.append(
            f"'{name}' is not a field of the Agent Skills specification (it allows "
            f"{', '.join(SPEC_FIELDS)}); {read}, but other agents may refuse the skill: move "
            f"it under 'metadata' as text, or keep it if the skill is meant for an agent that "
            "defines it"
        )
    warnings: list[str] = []
    if checker.commas_in_allowed_tools():
        warnings.append(
            "'allowed-tools' separates entries with commas (as Claude Code writes them); the "
            "specification separates them with spaces: 'allowed-tools: Read Grep'"
        )
    return SkillValidation(location=where, errors=tuple(errors), warnings=tuple(warnings))
