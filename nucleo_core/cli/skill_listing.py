"""Skills as the commands list them: a JSON object each, or a table of one row each.

``nucleo skills`` and ``nucleo catalog`` show skills the same way: `skill_summary` for
``--json``, `print_skill_table` for people.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nucleo_core.cli import render
from nucleo_core.cli.columns import Column

if TYPE_CHECKING:
    from nucleo_core.skills import Skill

__all__ = ["allowed_tools_label", "print_skill_table", "skill_summary"]

# On a narrow line the bundle goes first, then the description; never the tools a skill
# allows, each a name to stay whole.
_COLUMNS = (
    Column("Name", "key"),
    Column("Bundle", "key", drop_rank=1),
    Column("Allowed tools", "value"),
    Column("Description", "text", drop_rank=2),
)


def skill_summary(skill: Skill) -> dict[str, Any]:
    """One skill as a JSON object, keys in a stable order (the description in full)."""
    return {
        "name": skill.name,
        "bundle": skill.bundle,
        "description": skill.description,
        "allowed_tools": None if skill.allowed_tools is None else list(skill.allowed_tools),
        "license": skill.license,
        "compatibility": skill.compatibility,
        "metadata": dict(skill.metadata),
        "location": skill.location,
        "disable_model_invocation": skill.disable_model_invocation,
        "extra": dict(skill.extra),
        "resources": list(skill.resources),
        "unresolved_tools": list(skill.unresolved_tools),
    }


def allowed_tools_label(skill: Skill) -> str:
    """The tools a skill allows, as people read them: ``any`` when it names none."""
    if skill.allowed_tools is None:
        return "any"
    return ", ".join(skill.allowed_tools) or "none"


def print_skill_table(found: Sequence[Skill]) -> None:
    """Print one row per skill: name, bundle, allowed tools, the description's first line."""
    from rich.text import Text

    rows = [
        [
            Text(skill.name),
            Text(skill.bundle or "(none)"),
            Text(allowed_tools_label(skill)),
            Text(render.first_line(skill.description)),
        ]
        for skill in found
    ]
    render.print_grouped_table(_COLUMNS, [(None, rows)])
