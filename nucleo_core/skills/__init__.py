"""The skills layer: skills in the Agent Skills layout, skill folders, skilljars, selection.

A skill is a folder holding ``SKILL.md``: YAML front matter (``name``, ``description`` and
optional fields), then Markdown instructions. A skilljar is a wheel whose ``nucleo.skills``
entry point names a package holding skill folders; `skills_in_package` reads one, from a
wheel or a zip as well as from a source tree. Importing this package does no I/O and does not
import PyYAML, which is imported when the first ``SKILL.md`` is read.
"""

from nucleo_core.skills.errors import SkillCollisionError, SkillFormatError
from nucleo_core.skills.loading import SKILL_FILE_NAME, load_skill, skills_in, skills_in_package
from nucleo_core.skills.naming import SKILL_NAME_MAX_LENGTH, SKILL_NAME_PATTERN, skill_name_problem
from nucleo_core.skills.registry import SkillRegistry
from nucleo_core.skills.scan import SkillProblem, SkillScan
from nucleo_core.skills.selector import SkillSelector
from nucleo_core.skills.skill import Skill

__all__ = [
    "SKILL_FILE_NAME",
    "SKILL_NAME_MAX_LENGTH",
    "SKILL_NAME_PATTERN",
    "Skill",
    "SkillCollisionError",
    "SkillFormatError",
    "SkillProblem",
    "SkillRegistry",
    "SkillScan",
    "SkillSelector",
    "load_skill",
    "skill_name_problem",
    "skills_in",
    "skills_in_package",
]
