"""`SkillScan`, `SkillProblem`: what reading a folder of skill folders found."""

from __future__ import annotations

from dataclasses import dataclass

from nucleo_core.skills.skill import Skill

__all__ = ["SkillProblem", "SkillScan"]


@dataclass(frozen=True, slots=True)
class SkillProblem:
    """A skill folder a scan skipped, and why.

    Attributes:
        location: The file or folder at fault.
        reason: What is wrong and how to fix it.
    """

    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillScan:
    """What a scan found: the skills read, and the problems of the folders it skipped.

    Attributes:
        skills: The skills read, sorted by folder name so that every scan has the same order.
        problems: One entry per folder that could not be read as a skill, in the same order.
    """

    skills: tuple[Skill, ...] = ()
    problems: tuple[SkillProblem, ...] = ()
