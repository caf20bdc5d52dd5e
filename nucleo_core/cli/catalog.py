"""``nucleo catalog THINKER``: what one thinker class is offered, as the hub resolves it.

The class is imported by its import path, built with only ``hub=`` (a hub with the installed
plugins loaded and the project's MCP servers bound, as ``nucleo run`` binds them), and its
palette assembled as before a turn; then its palette, its tool
catalog and its skills are printed. Nothing calls a model.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.hub import loaded_hub
from nucleo_core.cli.skill_listing import print_skill_table, skill_summary
from nucleo_core.cli.thinker_class import load_thinker_class
from nucleo_core.hub import ThinkerBase

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub
    from nucleo_core.skills import Skill
    from nucleo_core.tools import ToolProvider, ToolRegistry

__all__ = ["catalog"]


@click.command()
@click.argument("thinker")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
def catalog(thinker: str, as_json: bool) -> None:
    """Show what a thinker class is offered: its palette, its catalog and its skills.

    THINKER is the class's import path, package.module:ClassName or package.module.ClassName
    (found as `python -m` finds a module, with the current directory first on sys.path), or
    path/to/file.py:ClassName. The class must subclass nucleo_core.ThinkerBase; it is built
    with only hub= (a hub with the installed plugins loaded and the project's MCP servers
    bound, as for `nucleo run`) and its palette is assembled as before a turn.
    """
    thinker_class = load_thinker_class(thinker)
    # The project's MCP servers are bound as `nucleo run` binds them, so their tools show
    # where a run would offer them; closing the hub stops the servers it started.
    hub = loaded_hub(mcp_servers=True)
    try:
        instance = _build(thinker_class, hub, thinker)
        try:
            palette = instance.reconcile_tool_registry()
            tool_catalog = instance.tool_catalog()
            skill_catalog = instance.skill_catalog()
        except Exception as exc:  # the class's own declarations and hooks run here
            raise CommandError(
                f"assembling the palette of '{thinker}' raised {type(exc).__name__}: {exc}"
            ) from exc
    finally:
        hub.close()
    attached = list(instance.skills)
    if as_json:
        render.print_json(
            {
                "thinker": f"{thinker_class.__module__}.{thinker_class.__qualname__}",
                "palette": [_palette_entry(provider, palette) for provider in palette],
                "catalog": [render.tool_summary(provider) for provider in tool_catalog],
                "skills": [skill_summary(skill) for skill in attached],
                "skill_catalog": [skill_summary(skill) for skill in skill_catalog],
            }
        )
        return
    _print_catalog(thinker_class, palette, tool_catalog, attached, skill_catalog)


def _build(thinker_class: type[ThinkerBase], hub: ToolHub, path: str) -> ThinkerBase:
    try:
        inspect.signature(thinker_class).bind(hub=hub)
    except TypeError as exc:
        raise CommandError(
            f"cannot build '{path}' with only hub=...: {exc}. nucleo catalog builds a thinker "
            "with hub= alone; give its other parameters defaults to inspect it"
        ) from exc
    except ValueError:
        pass  # no signature to read (a builtin's): building it says what is wrong, if anything
    try:
        return thinker_class(hub=hub)
    except Exception as exc:
        raise CommandError(
            f"building '{path}' with hub=... raised {type(exc).__name__}: {exc}"
        ) from exc


def _palette_entry(provider: ToolProvider, palette: ToolRegistry) -> dict[str, Any]:
    return {
        **render.tool_summary(provider),
        "available": palette.available(provider.name) is not None,
    }


def _print_catalog(
    thinker_class: type[ThinkerBase],
    palette: ToolRegistry,
    tool_catalog: Sequence[ToolProvider],
    attached: Sequence[Skill],
    skill_catalog: Sequence[Skill],
) -> None:
    from rich.text import Text

    output = render.console()
    output.print(Text(f"{thinker_class.__module__}.{thinker_class.__qualname__}", style="bold"))
    tools = palette.providers()
    if _heading("Palette: the tools the model is offered this turn, in order", tools):
        render.print_tool_table(tools)
    outside = [provider.name for provider in tools if palette.available(provider.name) is None]
    if outside:
        output.print(
            Text("Not available while the attached skills restrict it: " + ", ".join(outside))
        )
    if _heading("Catalog: the tools it may ask for with request_tools", tool_catalog):
        render.print_tool_table(tool_catalog)
    if _heading("Skills attached: the skills it runs with", attached):
        print_skill_table(attached)
    if _heading("Skill catalog: the skills it may pull in with request_skill", skill_catalog):
        print_skill_table(skill_catalog)


def _heading(heading: str, items: Sequence[object]) -> bool:
    """Print a section's heading, and ``none`` under it when it is empty; whether it is not."""
    from rich.text import Text

    output = render.console()
    output.print()
    output.print(Text(heading, style="bold"))
    if not items:
        output.print("  none")
    return bool(items)
