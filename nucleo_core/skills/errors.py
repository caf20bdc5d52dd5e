"""The skills layer's errors: a malformed skill folder, a name claimed twice, a bad table.

All are developer errors (`MisuseError`)::

    MisuseError
    ├── SkillFormatError     a skill folder does not follow the Agent Skills layout
    ├── SkillCollisionError  two bundles claim one skill name
    └── SkillsConfigError    the [tool.nucleo.skills] / [skills] table is malformed
"""

from __future__ import annotations

from nucleo_core._error_details import keeps_details
from nucleo_core.errors import MisuseError

__all__ = ["SkillCollisionError", "SkillFormatError", "SkillsConfigError"]


@keeps_details
class SkillFormatError(MisuseError):
    """A skill folder does not follow the Agent Skills layout.

    Attributes:
        location: The file (``SKILL.md``) or folder at fault, as a path or a package resource.
        reason: What is wrong and how to fix it, in one or two sentences.
    """

    location: str
    reason: str

    def __post_init__(self) -> None:
        super().__init__(f"{self.location} is not a valid skill: {self.reason}")


@keeps_details
class SkillCollisionError(MisuseError):
    """A skill name already registered from one bundle is registered again from another.

    Attributes:
        name: The contested skill name.
        existing_bundle: The bundle of the skill already registered (``""`` for none).
        incoming_bundle: The bundle of the skill that was refused (``""`` for none).
    """

    name: str
    existing_bundle: str
    incoming_bundle: str

    def __post_init__(self) -> None:
        super().__init__(
            f"Skill name '{self.name}' is already registered from "
            f"{_describe(self.existing_bundle)}; the skill of the same name from "
            f"{_describe(self.incoming_bundle)} cannot take it. "
            "Rename one of the skills (its folder and its front matter 'name'), or register "
            "with shadow=True to replace the existing skill deliberately."
        )


class SkillsConfigError(MisuseError):
    """The skills configuration (``[tool.nucleo.skills]`` or ``[skills]``) is malformed."""


def _describe(bundle: str) -> str:
    return f"bundle '{bundle}'" if bundle else "outside any bundle"
