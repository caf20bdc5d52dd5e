"""``nucleo skills``: the skills installed skilljars and plugins bring; ``show`` shows one."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.columns import Column
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.hub import loaded_hub

if TYPE_CHECKING:
    from nucleo_core.skills import Skill

__all__ = ["allowed_tools_label", "print_skill_table", "skill_summary", "skills"]

# On a narrow line the bundle goes first, then the description; never the tools a skill
# allows, each a name to stay whole.
_COLUMNS = (
    Column("Name", "key"),
    Column("Bundle", "key", drop_rank=1),
    Column("Allowed tools", "value"),
    Column("Description", "text", drop_rank=2),
)


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def skills(ctx: click.Context, as_json: bool) -> None:
    """List the skills this process has: those of every installed skilljar and plugin.

    Each row shows the skill's name, its bundle (the package holding it), the tools its
    instructions may use ("any" when it names none) and the first line of its description.
    `nucleo skills show NAME` shows one skill in full.
    """
    if ctx.invoked_subcommand is not None:
        return  # the subcommand reads --json from this context
    found = loaded_hub().skills.skills()
    if as_json:
        render.print_json([skill_summary(skill) for skill in found])
    elif not found:
        click.echo("No skills are registered in this process.")
        click.echo(
            "Install a skilljar to add some: a distribution with a nucleo.skills entry point "
            "naming a package of skill folders."
        )
    else:
        print_skill_table(found)


@skills.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def show(ctx: click.Context, name: str, as_json: bool) -> None:
    """Show one skill in full: its SKILL.md front matter fields and its instructions."""
    registry = loaded_hub().skills
    skill = registry.get(name)
    if skill is None:
        available = registry.names()
        if not available:
            raise CommandError(
                f"no skill named '{name}': no skills are registered (install a skilljar)"
            )
        raise CommandError(f"no skill named '{name}'. Available skills: {', '.join(available)}")
    group = ctx.parent.params if ctx.parent is not None else {}
    if as_json or group.get("as_json", False):
        render.print_json({**skill_summary(skill), "instructions": skill.instructions})
    else:
        _print_skill_detail(skill)


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


def _print_skill_detail(skill: Skill) -> None:
    from rich.text import Text

    output = render.console()
    output.print(Text(skill.name, style="bold"))
    for label, value in _facts(skill):
        output.print(Text(f"  {label + ':':<15}{value}"))
    output.print()
    output.print(Text(skill.description))
    output.print()
    output.print(Text("Instructions", style="bold"))
    output.print(Text(skill.instructions))


def _facts(skill: Skill) -> Iterator[tuple[str, str]]:
    yield "bundle", skill.bundle or "(none)"
    yield "allowed-tools", allowed_tools_label(skill)
    if skill.license is not None:
        yield "license", skill.license
    if skill.compatibility is not None:
        yield "compatibility", skill.compatibility
    if skill.metadata:
        yield "metadata", json.dumps(dict(skill.metadata))
    yield "location", skill.location
