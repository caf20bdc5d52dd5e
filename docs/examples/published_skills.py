"""A skill written for Claude Code, used unchanged: aliases, the skill's files, the report."""

import logging
import sys
from pathlib import Path

from nucleo_core import Skill, SkillRegistry, SkillSelector, ThinkerBase, ToolHub, tool
from nucleo_core.skills import load_skill
from nucleo_core.skills.config import SkillsConfig
from nucleo_core.skills.files import read_skill_file


@tool(read_only=True, risk="low")
def read_notes(path: str) -> str:
    """Read a note."""
    return f"the note at {path}"


@tool(risk="medium")
def write_notes(path: str, text: str) -> str:
    """Write a note."""
    return "written"


# The warnings nucleo logs on nucleo.skills, printed here (a nucleo command prints them too).
warnings = logging.StreamHandler(sys.stdout)
warnings.setFormatter(logging.Formatter("warning: %(message)s"))
logging.getLogger("nucleo.skills").addHandler(warnings)

# What [tool.nucleo.skills.aliases] in pyproject.toml would say: Claude Code's Read and Grep
# are this project's read_notes. Bash(git diff:*) is mapped by nothing.
config = SkillsConfig(aliases={"Read": ("read_notes",), "Grep": ("read_notes",)})
folder = Path(__file__).parent / "published_skill" / "review-diff"
registry = SkillRegistry(config=config)
(skill,) = registry.register_loaded(
    [load_skill(folder, bundle="docs")], known_tools={"read_notes", "write_notes"}
)
print("allowed-tools:", skill.allowed_tools)
print("unresolved:", skill.unresolved_tools)
print("kept:", dict(skill.extra))
print("files:", skill.resources)


class Reviewer(ThinkerBase):
    """Always has both tools; may load the skill."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """Both note tools."""
        return [read_notes, write_notes]

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        """The published skill."""
        return SkillSelector("review-diff")


reviewer = Reviewer(hub=ToolHub(skills=registry))
reviewer.reconcile_tool_registry()
print(reviewer.request_skill("review-diff"))
print(reviewer.reconcile_tool_registry().available_names())
attached: Skill = reviewer.skills[0]
print(read_skill_file(attached, "references/checklist.md").splitlines()[0])
