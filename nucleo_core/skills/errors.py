"""The skills layer's errors: a malformed skill folder, a name claimed twice, a bad table.

All are developer errors (`MisuseError`)::

    MisuseError
    ├── SkillFormatError     a skill folder does not follow the Agent Skills layout
    ├── SkillCollisionError  two bundles claim one skill name
    └── SkillsConfigError    the [tool.nucleo.skills] / [skills] table is malformed
"""

from __future__ import annotations

from nucleo_core.errors import MisuseError

__all__ = ["SkillCollisionError", "SkillFormatError", "SkillsConfigError"]


class SkillFormatError(MisuseError):
    """A skill folder does not follow the Agent Skills layout.

    Attributes:
        location: The file (``SKILL.md``) or folder at fault, as a path or a package resource.
        reason: What is wrong and how to fix it, in one or two sentences.
    """

    def __init__(self, location: str, reason: str) -> None:
        self.location = location
        self.reason = reason
        super().__init__(f"{location} is not a valid skill: {reason}")


class SkillCollisionError(MisuseError):
    """A skill name already registered from one bundle is registered again from another.

    Attributes:
        name: The contested skill name.
        existing_bundle: The bundle of the skill already registered (``""`` for none).
        incoming_bundle: The bundle of the skill that was refused (``""`` for none).
    """

    def __init__(self, name: str, existing_bundle: str, incoming_bundle: str) -> None:
        self.name = name
        self.existing_bundle = existing_bundle
        self.incoming_bundle = incoming_bundle
        super().__init__(
            f"Skill name '{name}' is already registered from {_describe(existing_bundle)}; "
            f"the skill of the same name from {_describe(incoming_bundle)} cannot take it. "
            "Rename one of the skills (its folder and its front matter 'name'), or register "
            "with shadow=True to replace the existing skill deliberately."
        )


class SkillsConfigError(MisuseError):
    """The skills configuration (``[tool.nucleo.skills]`` or ``[skills]``) is malformed."""


def _describe(bundle: str) -> str:
    return f"bundle '{bundle}'" if bundle else "outside any bundle"
