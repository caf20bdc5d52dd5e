"""`Skill`: a packaged set of instructions in the Agent Skills layout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["Skill"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """One skill: a folder holding ``SKILL.md`` (YAML front matter, then instructions).

    Attributes:
        name: The skill's name (the front matter's ``name``, equal to its folder's name).
        description: What the skill is for and when to use it (front matter).
        instructions: The Markdown body of ``SKILL.md``, below the front matter.
        bundle: The bundle id: the dotted name of the package (or folder) holding the skill,
            which `SkillSelector` prefixes match (one prefix offers a whole skilljar).
        allowed_tools: The tools the skill's procedure may use, or ``None`` when it names none;
            when the skill is attached these become a restriction on the palette.
        license: The front matter's ``license``, if any.
        compatibility: The front matter's ``compatibility``, if any.
        metadata: The front matter's ``metadata`` mapping (strings to strings).
        location: Where the skill was read from (a path, or a package resource), for messages.
    """

    name: str
    description: str
    instructions: str
    bundle: str = ""
    allowed_tools: tuple[str, ...] | None = None
    license: str | None = None
    compatibility: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    location: str = ""

    @property
    def qualified_name(self) -> str:
        """``<bundle>.<name>``, or just the name for a skill outside any bundle."""
        return f"{self.bundle}.{self.name}" if self.bundle else self.name
