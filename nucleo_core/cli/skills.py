"""``nucleo skills``: the skills installed skilljars and plugins bring.

``show`` shows one, with what its ``allowed-tools`` come to here; ``validate`` checks a skill
folder against the Agent Skills specification. The ``--skill`` option of ``nucleo run`` and
``nucleo chat`` (`nucleo_core.cli.skill_option`) attaches skills before the first turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.hub import loaded_hub
from nucleo_core.cli.skill_listing import allowed_tools_label, print_skill_table, skill_summary

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub
    from nucleo_core.skills import Skill
    from nucleo_core.skills.aliases import ToolResolution

__all__ = ["skills"]


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
    render.print_listing(
        loaded_hub().skills.skills(),
        as_json=as_json,
        summary=skill_summary,
        table=print_skill_table,
        empty=(
            "No skills are registered in this process.",
            "Install a skilljar to add some: a distribution with a nucleo.skills entry point "
            "naming a package of skill folders.",
        ),
    )


@skills.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def show(ctx: click.Context, name: str, as_json: bool) -> None:
    """Show one skill in full: its SKILL.md front matter fields and its instructions.

    Each allowed-tools entry is shown with the tools it grants here (by name, or through an
    alias of the configuration or of a tool pack), and an entry that grants none is marked
    unresolved with how to fix it: while the skill is attached, it allows nothing.
    """
    hub = loaded_hub()
    registry = hub.skills
    skill = registry.get(name)
    if skill is None:
        available = registry.names()
        if not available:
            raise CommandError(
                f"no skill named '{name}': no skills are registered (install a skilljar)"
            )
        raise CommandError(f"no skill named '{name}'. Available skills: {', '.join(available)}")
    resolution = registry.resolve_tools(skill, known=_known_tools(hub))
    group = ctx.parent.params if ctx.parent is not None else {}
    if as_json or group.get("as_json", False):
        render.print_json(
            {
                **skill_summary(skill),
                "tools": _resolution_summary(resolution),
                "instructions": skill.instructions,
            }
        )
    else:
        _print_skill_detail(skill, resolution if skill.allowed_tools is not None else None)


@skills.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def validate(ctx: click.Context, path: str, as_json: bool) -> None:
    """Check a skill folder against the Agent Skills specification.

    PATH is a skill folder (holding SKILL.md), or a folder of skill folders, each checked.
    Checked: the name rules, name equal to the folder's name, description (at most 1024
    characters), compatibility (at most 500), metadata, allowed-tools, and that no other
    front matter field is used. Every problem is printed with what to fix. Exit code 0 when
    every folder follows the specification (warnings allowed), 1 otherwise.
    """
    from pathlib import Path

    from nucleo_core.skills.validation import validate_skill_folder

    root = Path(path)
    folders = (
        [root]
        if (root / "SKILL.md").exists()
        else sorted(
            entry for entry in root.iterdir() if entry.is_dir() and (entry / "SKILL.md").exists()
        )
    )
    if not folders:
        folders = [root]  # reported as holding no SKILL.md
    results = [validate_skill_folder(folder) for folder in folders]
    group = ctx.parent.params if ctx.parent is not None else {}
    if as_json or group.get("as_json", False):
        render.print_json(
            [
                {
                    "location": result.location,
                    "valid": result.valid,
                    "errors": list(result.errors),
                    "warnings": list(result.warnings),
                }
                for result in results
            ]
        )
    else:
        for result in results:
            verdict = "follows the Agent Skills specification" if result.valid else "is invalid"
            click.echo(f"{result.location}: {verdict}")
            for error in result.errors:
                click.echo(f"  error: {error}")
            for warning in result.warnings:
                click.echo(f"  warning: {warning}")
    if not all(result.valid for result in results):
        ctx.exit(1)


def _known_tools(hub: ToolHub) -> set[str]:
    """The tools installed packs and plugins provide, by name and source id."""
    providers = [tool.provider for tool in hub.plugins.pack_tools()]
    providers += hub.system_wide_tools()
    return {name for provider in providers for name in (provider.name, provider.source)}


def _resolution_summary(resolution: ToolResolution) -> dict[str, Any]:
    return {
        "granted": sorted(resolution.names),
        "mapped": [
            {"entry": entry, "tools": list(tools), "by": origin}
            for entry, tools, origin in resolution.mapped
        ],
        "unresolved": list(resolution.unresolved),
    }


def _print_skill_detail(skill: Skill, resolution: ToolResolution | None) -> None:
    from rich.text import Text

    output = render.console()
    output.print(Text(skill.name, style="bold"))
    for label, value in _facts(skill):
        output.print(Text(f"  {label + ':':<15}{value}"))
    if resolution is not None:
        _print_resolution(resolution)
    output.print()
    output.print(Text(skill.description))
    output.print()
    output.print(Text("Instructions", style="bold"))
    output.print(Text(skill.instructions))


def _print_resolution(resolution: ToolResolution) -> None:
    from rich.text import Text

    output = render.console()
    unresolved = set(resolution.unresolved)
    for entry, tools, origin in resolution.mapped:
        if entry in unresolved:
            continue
        how = "" if origin == "name" else f" (alias: {origin})"
        output.print(Text(f"    {entry} -> {', '.join(tools)}{how}"))
    for entry in resolution.unresolved:
        output.print(Text(f"    {entry} -> unresolved: it allows nothing here", style="bold"))
    if resolution.unresolved:
        output.print(
            Text(
                "  While attached, the skill narrows the palette to what resolved (and the "
                "meta-tools). To keep a tool, map the entry under [tool.nucleo.skills.aliases] "
                "in pyproject.toml ([skills.aliases] in nucleo.toml), such as Read = "
                '"read_text_file"; an argument pattern (Bash(git diff:*)) is not enforced, '
                "its alias grants the tool whole."
            )
        )


def _facts(skill: Skill) -> Iterator[tuple[str, str]]:
    yield "bundle", skill.bundle or "(none)"
    yield "allowed-tools", allowed_tools_label(skill)
    if skill.disable_model_invocation:
        yield "model", "never offered to the model (disable-model-invocation: true)"
    if skill.license is not None:
        yield "license", skill.license
    if skill.compatibility is not None:
        yield "compatibility", skill.compatibility
    if skill.metadata:
        yield "metadata", json.dumps(dict(skill.metadata))
    for key, value in skill.extra.items():
        yield key, value if isinstance(value, str) else json.dumps(value)
    if skill.resources:
        yield "files", ", ".join(skill.resources)
    yield "location", skill.location
