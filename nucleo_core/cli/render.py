"""What the command line prints: rich tables for people, JSON for machines.

JSON output is written with the standard library, never through rich, so that it is never
wrapped, coloured or truncated to the terminal's width. rich is imported only to print for
people.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import click

from nucleo_core.cli.columns import Column, Layout, plan_layout
from nucleo_core.tools import ToolProvider, render_tools

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from nucleo_core.tools import ToolFormat

__all__ = [
    "TOOL_COLUMNS",
    "TableGroup",
    "console",
    "counted",
    "first_line",
    "print_empty",
    "print_grouped_table",
    "print_json",
    "print_listing",
    "print_tool_detail",
    "print_tool_table",
    "rendered_for",
    "risk_label",
    "tool_schemas",
    "tool_summary",
]

_RISK_STYLES = {"low": "green", "medium": "yellow", "high": "red"}
# A tool's name is what the listing is for; its source id is left out first on a narrow line
# (the name and the group's title say most of it, `--json` says all), then its description.
TOOL_COLUMNS = (
    Column("Name", "key"),
    Column("Source", "key", drop_rank=1),
    Column("Read-only", "value"),
    Column("Risk", "value"),
    Column("Description", "text", drop_rank=2),
)

#: A titled run of rows (``None``: no title line), each row one `Text` per column.
TableGroup: TypeAlias = "tuple[str | None, Sequence[Sequence[Text]]]"

_Item = TypeVar("_Item")


def first_line(text: str) -> str:
    """The first non-blank line of ``text`` (a description's summary), or ``""``."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def counted(count: int, noun: str) -> str:
    """``1 entry point``, ``3 entry points``: a count and its noun, plural when it must be."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def risk_label(provider: ToolProvider) -> str:
    """The risk as people read it: ``high (undeclared)`` when no risk was declared."""
    risk = provider.risk.value
    return risk if provider.risk_declared else f"{risk} (undeclared)"


def tool_summary(provider: ToolProvider) -> dict[str, Any]:
    """One tool as a JSON object, keys in a stable order (the description in full)."""
    return {
        "name": provider.name,
        "source": provider.source,
        "read_only": provider.read_only,
        "risk": provider.risk.value,
        "risk_declared": provider.risk_declared,
        "description": provider.description,
        "display_name": provider.display_name,
    }


def tool_schemas(provider: ToolProvider) -> dict[str, Any]:
    """The input schema and the output schema (``None`` for text), as `tool_summary` keys."""
    return {"input_schema": provider.input_schema, "output_schema": provider.output_schema}


def rendered_for(provider: ToolProvider, format: ToolFormat) -> dict[str, Any]:
    """The tool's definition exactly as ``format``'s model provider is sent it."""
    return render_tools([provider.spec()], format)[0]


def print_json(data: object) -> None:
    """Print ``data`` as indented JSON, keys in the order they were built."""
    click.echo(json.dumps(data, indent=2))


def print_listing(
    items: Sequence[_Item],
    *,
    as_json: bool,
    summary: Callable[[_Item], object],
    table: Callable[[Sequence[_Item]], None],
    empty: Sequence[str],
) -> None:
    """Print a command's listing: JSON for machines, else a table, else why there is none.

    Args:
        items: What to list, in order.
        as_json: Print the JSON array of each item's ``summary`` (``[]`` when there is none).
        summary: One item as a JSON object.
        table: Prints the items for people.
        empty: The lines said instead of an empty table: that there is nothing, and how to
            get some.
    """
    if as_json:
        print_json([summary(item) for item in items])
    elif not items:
        for line in empty:
            click.echo(line)
    else:
        table(items)


def print_tool_table(
    providers: Sequence[ToolProvider], origins: Sequence[str] | None = None
) -> None:
    """Print one row per tool: name, source, read-only, risk, the description's first line.

    Args:
        providers: The tools, in the order to list them.
        origins: Where each tool comes from (same order as ``providers``): consecutive tools
            of one origin are listed under it as a title. ``None`` prints no titles.
    """
    from rich.text import Text

    groups: list[tuple[str | None, list[list[Text]]]] = []
    for index, provider in enumerate(providers):
        title = origins[index] if origins is not None else None
        if not groups or groups[-1][0] != title:
            groups.append((title, []))
        # Every cell is a Text: a plain str would be parsed as rich markup, and a description
        # such as "returns [list] of ids" must print as written, not fail or lose its brackets.
        groups[-1][1].append(
            [
                Text(provider.name),
                Text(provider.source),
                Text("yes" if provider.read_only else "no"),
                _styled_risk(provider),
                Text(first_line(provider.description)),
            ]
        )
    print_grouped_table(TOOL_COLUMNS, groups)


def print_grouped_table(columns: Sequence[Column], groups: Sequence[TableGroup]) -> None:
    """Print one table, its rows in titled groups, every column aligned across the groups.

    The header and the rule under it come once; each group's title (if any) is a bold line
    above its rows, and a blank line separates groups. rich cannot span a cell over several
    columns, so each group is a table of its own, every column given the same width in all of
    them (`plan_layout`): names and ids are never cut; on a narrow line the text wraps and the
    columns marked droppable are left out, which a line under the table names. On a line too
    narrow even for the names, each group gets its own header, and rich lays it out alone,
    folding what does not fit.
    """
    from rich.text import Text

    output = console()
    cells = [[cell.plain for cell in row] for _, rows in groups for row in rows]
    layout = plan_layout(columns, cells, output.width)
    if layout.widths is not None:
        output.print(_table(columns, layout, show_header=True))
    for index, (title, rows) in enumerate(groups):
        if index:
            output.print()
        if title is not None:
            # Not wrapped: a title is often a path, which must stay whole to be copied.
            output.print(Text(title, style="bold"), soft_wrap=True)
        table = _table(columns, layout, show_header=layout.widths is None)
        for row in rows:
            table.add_row(*(row[shown] for shown in layout.shown))
        output.print(table)
    if layout.dropped:
        output.print()
        output.print(
            Text(
                f"Not shown at {output.width} columns: {', '.join(layout.dropped)}; "
                "--json shows all.",
                style="dim",
            )
        )


def print_tool_detail(provider: ToolProvider, origin: str | None = None) -> None:
    """Print one tool for people: its declarations, full description and schemas."""
    from rich.json import JSON
    from rich.text import Text

    output = console()
    output.print(Text(provider.name, style="bold"))
    for label, value in _facts(provider, origin):
        output.print(Text(f"  {label + ':':<14}").append_text(value))
    output.print()
    output.print(Text(provider.description))
    output.print()
    output.print(Text("Input schema", style="bold"))
    output.print(JSON(json.dumps(provider.input_schema)))
    output_schema = provider.output_schema
    output.print()
    if output_schema is None:
        output.print(Text("Output: text (no output schema)", style="bold"))
    else:
        output.print(Text("Output schema", style="bold"))
        output.print(JSON(json.dumps(output_schema)))


def print_empty(sources: Sequence[str], *, packs_not_loaded: int = 0) -> None:
    """Say that there are no tools to list, and how to get some.

    Args:
        sources: The ``--from`` sources given (they define no tool).
        packs_not_loaded: How many installed tool packs were not loaded (failed, blocked or
            switched off), so that the message does not claim none is installed.
    """
    if sources:
        click.echo(f"No tools found in {', '.join(sources)}.")
        click.echo(
            "A tool is a function or a Tool subclass decorated with @tool, defined in the module "
            "itself (a tool it imports is listed with the module that defines it)."
        )
        return
    click.echo("No tools are registered in this process.")
    if packs_not_loaded:
        verb = "was" if packs_not_loaded == 1 else "were"
        click.echo(
            f"{counted(packs_not_loaded, 'installed tool pack')} {verb} not loaded; "
            "`nucleo plugins` says why."
        )
    else:
        click.echo(
            "Install a tool pack to add some: a distribution with a nucleo.tools entry point."
        )
    click.echo("List the tools a module defines with --from, a .py file or a module name:")
    click.echo("  nucleo tools --from my_tools.py")
    click.echo("  nucleo tools --from my_package.tools")


def console() -> Console:
    """A rich console writing to the current ``sys.stdout``, without highlighting."""
    from rich.console import Console

    # Built per call, so it writes to whatever sys.stdout is now (click's test runner swaps it).
    return Console(highlight=False)


def _facts(provider: ToolProvider, origin: str | None) -> Iterable[tuple[str, Text]]:
    from rich.text import Text

    yield "display name", Text(provider.display_name)
    yield "source", Text(provider.source)
    if origin is not None:
        yield "origin", Text(origin)
    yield "read-only", Text("yes" if provider.read_only else "no")
    yield "risk", _styled_risk(provider)
    yield "weight", Text(f"{provider.weight:g}")
    metadata: Mapping[str, Any] = provider.metadata
    if metadata:
        yield "metadata", Text(json.dumps(dict(metadata), default=_jsonable))


def _jsonable(value: object) -> object:
    """A metadata value JSON cannot take: a read-only mapping as a dict, else its repr."""
    return dict(value) if isinstance(value, Mapping) else repr(value)


def _styled_risk(provider: ToolProvider) -> Text:
    from rich.text import Text

    return Text(risk_label(provider), style=_RISK_STYLES.get(provider.risk.value, ""))


def _table(columns: Sequence[Column], layout: Layout, *, show_header: bool) -> Table:
    from rich import box
    from rich.table import Table

    # One rule under the header and no frame: rows read like `pip list`, and copy cleanly.
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        header_style="bold",
        show_header=show_header,
    )
    for position, index in enumerate(layout.shown):
        column = columns[index]
        table.add_column(
            column.heading,
            width=None if layout.widths is None else layout.widths[position],
            # A name cut in two cannot be copied; and nothing is ever cut with an ellipsis:
            # what does not fit on a line too narrow to plan is folded onto the next.
            no_wrap=column.kind == "key" and layout.widths is not None,
            overflow="fold",
        )
    return table
