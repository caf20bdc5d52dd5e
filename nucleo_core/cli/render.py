"""What the command line prints: rich tables for people, JSON for machines.

JSON output is written with the standard library, never through rich, so that it is never
wrapped, coloured or truncated to the terminal's width. rich is imported only to print for
people.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.tools import ToolProvider, render_tools

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from nucleo_core.tools import ToolFormat

__all__ = [
    "first_line",
    "print_empty",
    "print_json",
    "print_tool_detail",
    "print_tool_table",
    "rendered_for",
    "risk_label",
    "tool_detail",
    "tool_summary",
]

_RISK_STYLES = {"low": "green", "medium": "yellow", "high": "red"}


def first_line(text: str) -> str:
    """The first non-blank line of ``text`` (a description's summary), or ``""``."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


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


def tool_detail(provider: ToolProvider) -> dict[str, Any]:
    """`tool_summary` plus the input schema and the output schema (``None`` for text)."""
    return {
        **tool_summary(provider),
        "input_schema": provider.input_schema,
        "output_schema": provider.output_schema,
    }


def rendered_for(provider: ToolProvider, format: ToolFormat) -> dict[str, Any]:
    """The tool's definition exactly as ``format``'s model provider is sent it."""
    return render_tools([provider.spec()], format)[0]


def print_json(data: object) -> None:
    """Print ``data`` as indented JSON, keys in the order they were built."""
    click.echo(json.dumps(data, indent=2))


def print_tool_table(providers: Sequence[ToolProvider]) -> None:
    """Print one row per tool: name, source, read-only, risk, the description's first line."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    # One rule under the header and no frame: rows read like `pip list`, and copy cleanly.
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for heading in ("Name", "Source", "Read-only"):
        table.add_column(heading, no_wrap=True)
    table.add_column("Risk")
    table.add_column("Description")
    for provider in providers:
        # Every cell is a Text: a plain str would be parsed as rich markup, and a description
        # such as "returns [list] of ids" must print as written, not fail or lose its brackets.
        table.add_row(
            Text(provider.name),
            Text(provider.source),
            Text("yes" if provider.read_only else "no"),
            _styled_risk(provider),
            Text(first_line(provider.description)),
        )
    _console().print(table)


def print_tool_detail(provider: ToolProvider) -> None:
    """Print one tool for people: its declarations, full description and schemas."""
    from rich.json import JSON
    from rich.text import Text

    console = _console()
    console.print(Text(provider.name, style="bold"))
    for label, value in _facts(provider):
        console.print(Text(f"  {label + ':':<14}").append_text(value))
    console.print()
    console.print(Text(provider.description))
    console.print()
    console.print(Text("Input schema", style="bold"))
    console.print(JSON(json.dumps(provider.input_schema)))
    output_schema = provider.output_schema
    console.print()
    if output_schema is None:
        console.print(Text("Output: text (no output schema)", style="bold"))
    else:
        console.print(Text("Output schema", style="bold"))
        console.print(JSON(json.dumps(output_schema)))


def print_empty(sources: Sequence[str]) -> None:
    """Say that there are no tools to list, and how to get some."""
    if sources:
        click.echo(f"No tools found in {', '.join(sources)}.")
        click.echo(
            "A tool is a function or a Tool subclass decorated with @tool, defined in the module "
            "itself (a tool it imports is listed with the module that defines it)."
        )
    else:
        click.echo("No tools are registered in this process.")
        click.echo("List the tools a module defines with --from, a .py file or a module name:")
        click.echo("  nucleo tools --from my_tools.py")
        click.echo("  nucleo tools --from my_package.tools")


def _facts(provider: ToolProvider) -> Iterable[tuple[str, Text]]:
    from rich.text import Text

    yield "display name", Text(provider.display_name)
    yield "source", Text(provider.source)
    yield "read-only", Text("yes" if provider.read_only else "no")
    yield "risk", _styled_risk(provider)
    yield "weight", Text(f"{provider.weight:g}")
    metadata: Mapping[str, Any] = provider.metadata
    if metadata:
        yield "metadata", Text(json.dumps(dict(metadata), default=repr))


def _styled_risk(provider: ToolProvider) -> Text:
    from rich.text import Text

    return Text(risk_label(provider), style=_RISK_STYLES.get(provider.risk.value, ""))


def _console() -> Console:
    from rich.console import Console

    # Built per call, so it writes to whatever sys.stdout is now (click's test runner swaps it).
    return Console(highlight=False)
