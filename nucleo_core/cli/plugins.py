"""``nucleo plugins``: every nucleo entry point installed, and what became of it.

A report, not a check: it exits 0 whatever it finds, unless ``--strict`` asks it to fail
(exit code 2) when a plugin failed, the way a plugin author's CI would want.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, get_args

import click

from nucleo_core.cli import render
from nucleo_core.cli.columns import Column
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.hub import loaded_hub, shipped_by
from nucleo_core.plugins import ENTRY_POINT_GROUPS, PluginRecord, PluginStatus

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["plugin_summary", "plugins"]

# On a narrow line the group goes first (the name and its details say what it is), then the
# distribution; never the status nor the details, which are what the report is for.
_COLUMNS = (
    Column("Name", "key"),
    Column("Group", "key", drop_rank=1),
    Column("Distribution", "value", drop_rank=2),
    Column("Status", "value"),
    Column("Details", "text"),
)
_STATUS_STYLES = {"loaded": "green", "failed": "red", "blocked": "yellow", "disabled": "yellow"}


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.option(
    "--strict",
    is_flag=True,
    help="Exit with code 2 if a plugin failed to load, or one of its hooks failed.",
)
def plugins(as_json: bool, strict: bool) -> None:
    """List every nucleo plugin installed, and what became of it.

    One row per entry point in nucleo.tools (tool packs), nucleo.skills (skilljars) and
    nucleo.plugins (hooks): its name, group, distribution and version, and its status:
    loaded (with what it contributed), failed (with the reason), blocked, disabled or
    duplicate (with why). A pack that brings plugins of its own (the llm bridge's llm
    packs) has a row per plugin right below it, in the same form; --strict fails on them
    too. Then a line naming nucleo's builtin plugins (builtin:NAME, switched off by
    NUCLEO_PLUGINS_BLOCK). NUCLEO_DISABLE_PLUGIN_AUTOLOAD, NUCLEO_PLUGINS_ALLOW and
    NUCLEO_PLUGINS_BLOCK select plugins here as in any process.
    """
    host = loaded_hub(warn_about_plugins=False).plugins
    records = host.records
    render.print_listing(
        records,
        as_json=as_json,
        summary=plugin_summary,
        table=_print_plugin_table,
        empty=(
            "No nucleo plugins are installed.",
            "A plugin is a distribution with an entry point in one of the groups "
            f"{', '.join(ENTRY_POINT_GROUPS)}.",
        ),
    )
    if not as_json:
        _print_builtins(host.builtins)
    failed = [plugin for record in records for plugin in _failed(record)]
    if strict and failed:
        raise CommandError(f"{render.counted(len(failed), 'plugin')} failed: {', '.join(failed)}")


def builtin_line(builtins: Sequence[PluginRecord]) -> str:
    """One line naming nucleo's builtin plugins and which of them are switched off."""
    loaded = [
        record.name.removeprefix("builtin:") for record in builtins if record.status == "loaded"
    ]
    off = [record.name.removeprefix("builtin:") for record in builtins if record.status != "loaded"]
    line = f"Builtin plugins: {', '.join(loaded) or 'none'} loaded"
    if off:
        line += f"; {', '.join(off)} blocked"
    return line + "."


def _print_builtins(builtins: Sequence[PluginRecord]) -> None:
    from rich.text import Text

    render.console().print(Text(builtin_line(builtins)))  # wrapped at the terminal's width


def plugin_summary(record: PluginRecord) -> dict[str, Any]:
    """One plugin record as a JSON object, keys in a stable order."""
    return {
        "name": record.name,
        "group": record.group,
        "value": record.value,
        "distribution": record.distribution,
        "version": record.version,
        "status": record.status,
        "contributed": list(record.contributed),
        "error": record.error,
        "note": record.note,
        "hook_errors": list(record.hook_errors),
        "subplugins": [plugin_summary(subplugin) for subplugin in record.subplugins],
    }


def _failed(record: PluginRecord) -> Iterator[str]:
    """The names of ``record``'s plugin and sub-plugins that failed, or had a hook fail."""
    if record.status == "failed" or record.hook_errors:
        yield record.plugin
    for subplugin in record.subplugins:
        yield from _failed(subplugin)


def _print_plugin_table(records: Sequence[PluginRecord]) -> None:

    rows = []
    for record in records:
        rows.append(_row(record, record.name))
        # A pack's own plugins (an llm pack under the llm bridge) right below it.
        rows += [_row(subplugin, f"└ {subplugin.name}") for subplugin in record.subplugins]
    render.print_grouped_table(_COLUMNS, [(None, rows)])
    click.echo()
    click.echo(f"{render.counted(len(records), 'entry point')}: {_tally(records)}.")
    subplugins = [subplugin for record in records for subplugin in record.subplugins]
    if subplugins:
        counted = render.counted(len(subplugins), "plugin")
        click.echo(f"{counted} brought by them: {_tally(subplugins)}.")


def _row(record: PluginRecord, name: str) -> list[Text]:
    from rich.text import Text

    return [
        Text(name),
        Text(record.group or "(registered)"),
        Text(shipped_by(record) or "(unknown)"),
        Text(record.status, style=_STATUS_STYLES.get(record.status, "")),
        _details(record),
    ]


def _tally(records: Sequence[PluginRecord]) -> str:
    counts = dict.fromkeys(get_args(PluginStatus), 0)
    for record in records:
        counts[record.status] += 1
    return ", ".join(f"{count} {status}" for status, count in counts.items() if count)


def _details(record: PluginRecord) -> Text:
    from rich.text import Text

    details = Text()
    lines: list[tuple[str, str]] = []
    if record.error is not None:
        lines.append((record.error, "red"))
    if record.note is not None:
        lines.append((record.note, ""))
    # A pack's tools that its sub-plugins brought are listed on their rows, not twice.
    theirs = {entry for subplugin in record.subplugins for entry in subplugin.contributed}
    own = [entry for entry in record.contributed if entry not in theirs]
    lines += [(line, "") for line in _contributions(own)]
    if record.subplugins:
        lines.append((f"plugins of its own: {len(record.subplugins)} (below)", ""))
    lines += [(error, "red") for error in record.hook_errors]
    if not lines and record.status == "loaded":
        lines.append(("nothing", ""))
    for index, (line, style) in enumerate(lines):
        details.append(("\n" if index else "") + line, style=style)
    return details


def _contributions(contributed: Sequence[str]) -> Iterator[str]:
    """``tool: a``, ``tool: b`` as one ``tools: a, b`` line; every other entry as it is."""
    tools = [entry.removeprefix("tool: ") for entry in contributed if entry.startswith("tool: ")]
    if tools:
        yield f"{'tools' if len(tools) > 1 else 'tool'}: {', '.join(tools)}"
    yield from (entry for entry in contributed if not entry.startswith("tool: "))
