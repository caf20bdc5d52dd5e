"""``nucleo mcp``: the MCP servers configured for this project, and the tools each one lists.

``nucleo mcp`` reads the configuration from the working directory upward (see
`discover_servers`), starts every server at once (each within its ``startup_timeout``) and
prints one row per server: its id, its transport (the stdio command or the HTTP URL, marked
for a server configured ``sessions = "conversation"``), its status, how many tools it lists,
and its last error with the last line of its stderr. A server that does not start is shown,
not fatal: the command exits 0. ``nucleo mcp tools SERVER``
starts one server and lists its tools as ``nucleo tools`` does; an id that is not configured
exits 2 (naming the ids that are), a server that does not start exits 1 (with the reason, its
command and the tail of its stderr). A configuration that cannot be read exits 2.
A tool withheld because its definition changed since it was pinned is shown under the table
with its diff; ``nucleo mcp pins`` lists the pins and the quarantined tools without starting
any server, and ``nucleo mcp pins accept SERVER TOOL`` accepts a quarantined definition.
`configured_mcp_tools` gives ``nucleo tools`` the same servers' tools, and
`connect_configured_servers` binds them to the hub of ``nucleo run`` and ``nucleo chat``.

Every server is closed before the command returns, so no server process outlives it. What the
MCP layer logs meanwhile is the command's to say: the table, or ``Warning:`` lines on stderr.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from nucleo_core.cli import render
from nucleo_core.cli.columns import Column
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.links import docs_page
from nucleo_core.cli.mcp_pins import mcp_pins, print_quarantined
from nucleo_core.cli.mcp_serve import serve
from nucleo_core.cli.mcp_survey import (
    ServerReport,
    configured_servers,
    mcp_origin,
    require_sdk,
    server_summary,
    survey,
)

if TYPE_CHECKING:
    from rich.text import Text

    from nucleo_core.mcp import MCPProblem, MCPServerConfig, MCPServerUnavailable

__all__ = ["mcp"]

# On a narrow line the transport goes (it is as configured, so known); never the status, the
# tool count nor the last error, which are what the check is for.
_COLUMNS = (
    Column("Server", "key"),
    Column("Transport", "text", drop_rank=1),
    Column("Status", "value"),
    Column("Tools", "value"),
    Column("Last error", "text"),
)
_STATE_STYLES = {
    "ready": "green",
    "failed": "red",
    "restarting": "yellow",
    "starting": "yellow",
    "disabled": "dim",
}

_HOW_TO_CONFIGURE = f"""\
Declare a server in pyproject.toml, in this folder or one above it:

  [tool.nucleo.mcp.servers.time]
  command = "uvx"
  args = ["mcp-server-time"]
  risk = "low"

nucleo.toml ([mcp.servers.<id>]) and a project's .mcp.json ("mcpServers") are read too.
`nucleo mcp --help` says more; every setting is explained at
{docs_page("mcp")}"""


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def mcp(ctx: click.Context, as_json: bool) -> None:
    """List the MCP servers configured for this project, each one started and checked.

    The configuration is read from the working directory upward: [tool.nucleo.mcp.servers.ID]
    in pyproject.toml, [mcp.servers.ID] in nucleo.toml, and a project's .mcp.json. Each row
    shows the server's id, its transport (the stdio command or the HTTP URL), its status, how
    many tools it lists, and its last error with the last line of its stderr. A server that
    does not start is shown, not fatal. Every server is stopped before the command ends.
    `nucleo mcp tools SERVER` lists one server's tools. A tool whose definition changed since it
    was pinned is withheld and shown below the table with its diff; `nucleo mcp pins` lists the
    pins, and `nucleo mcp pins accept SERVER TOOL` accepts a reviewed definition.
    """
    if ctx.invoked_subcommand is not None:
        return  # the subcommand reads --json from this context
    configs = configured_servers()
    if not configs:
        if as_json:
            render.print_json([])
        else:
            click.echo("No MCP servers are configured for this project.")
            click.echo(_HOW_TO_CONFIGURE)
        return
    require_sdk()
    found = survey(configs)
    if as_json:
        render.print_json([server_summary(report) for report in found.servers])
    else:
        _print_server_table(found.servers)
        print_quarantined([q for report in found.servers for q in report.quarantined])
    # A quarantine is part of the report (with its diff), not a warning besides it.
    _warn([problem for problem in found.problems if problem.kind != "quarantined"])


@mcp.command("tools")
@click.argument("server")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def mcp_tools(ctx: click.Context, server: str, as_json: bool) -> None:
    """List the tools of one configured MCP server, starting it to ask.

    Each row shows the tool's name (with the server's prefix, if it has one), its source
    mcp:SERVER:TOOL, whether it is read-only and its risk, both as the configuration declares
    them, and the first line of its description. SERVER is the server's configured id.
    """
    group = ctx.parent.params if ctx.parent is not None else {}
    as_json = as_json or bool(group.get("as_json", False))
    configs = configured_servers()
    if not configs:
        raise CommandError(
            f"no MCP server named '{server}': no MCP servers are configured for this project.\n"
            + _HOW_TO_CONFIGURE
        )
    ids = [config.name for config in configs]
    if server not in ids:
        raise CommandError(f"no MCP server named '{server}'. Configured servers: {', '.join(ids)}")
    require_sdk()
    found = survey(configs, [server])
    (report,) = found.servers
    if report.unavailable is not None:
        raise click.ClickException(_unavailable_message(report.unavailable))
    _warn(found.problems)
    origin = mcp_origin(server)
    if as_json:
        render.print_json(
            [
                {
                    **render.tool_summary(provider),
                    "origin": origin,
                    "annotations": dict(provider.annotations),
                }
                for provider in report.providers
            ]
        )
        return
    if not report.providers:
        click.echo(f"MCP server '{server}' lists no tools.")
        return
    render.print_tool_table(report.providers)
    note = _trust_note(report)
    if note:
        click.echo()
        click.echo(note)


mcp.add_command(serve)
mcp.add_command(mcp_pins)


def _print_server_table(reports: Sequence[ServerReport]) -> None:
    from rich.text import Text

    rows = [
        [
            Text(report.config.name),
            # Folded, not cut: a command line or a URL must stay whole to be copied.
            Text(_transport(report.config), overflow="fold"),
            Text(report.status.state, style=_STATE_STYLES.get(report.status.state, "")),
            _tool_count(report),
            _last_error(report),
        ]
        for report in reports
    ]
    render.print_grouped_table(_COLUMNS, [(None, rows)])
    counts: dict[str, int] = {}
    for report in reports:
        counts[report.status.state] = counts.get(report.status.state, 0) + 1
    tally = ", ".join(f"{count} {state}" for state, count in counts.items())
    origins = ", ".join(dict.fromkeys(_shown_origin(r.config.origin) for r in reports))
    click.echo()
    click.echo(f"{render.counted(len(reports), 'MCP server')} ({origins}): {tally}.")
    if any(report.unavailable is None for report in reports):
        click.echo("`nucleo mcp tools SERVER` lists the tools of one.")


def _tool_count(report: ServerReport) -> Text:
    """How many tools the server offers, and how many more it lists that are quarantined."""
    from rich.text import Text

    listed = report.status.tools
    if listed is None:
        return Text("-")
    held = len(report.quarantined)
    if not held:
        return Text(str(listed))
    return Text(f"{listed - held}, {held} quarantined", style="red")


def _transport(config: MCPServerConfig) -> str:
    shown = f"stdio: {config.describe()}" if config.transport == "stdio" else f"http: {config.url}"
    if config.sessions == "conversation":  # a server started once per conversation too
        shown += " (a session per conversation)"
    return shown


def _last_error(report: ServerReport) -> Text:
    from rich.text import Text

    unavailable = report.unavailable
    reason = unavailable.reason if unavailable is not None else report.status.error
    tail = unavailable.stderr_tail if unavailable is not None else report.status.stderr_tail
    text = Text()
    if reason:
        text.append(reason, style="red")
    last = next((line.strip() for line in reversed(tail.splitlines()) if line.strip()), "")
    if last:
        text.append(("\n" if reason else "") + f"stderr: {last}")
    return text


def _shown_origin(origin: str) -> str:
    """A configuration's origin with its file relative to the working directory."""
    path, bracket, table = origin.partition(" [")
    if not Path(path).is_absolute():
        return origin
    try:
        shown = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        shown = path
    return f"{shown}{bracket}{table}"


def _trust_note(report: ServerReport) -> str:
    """What the server's hints counted for, when its tools carry any; else ``""``."""
    hinted = any(
        key in provider.annotations
        for provider in report.providers
        for key in ("readOnlyHint", "destructiveHint")
    )
    name = report.config.name
    if not hinted:
        return ""
    if report.config.trust_annotations:
        return (
            f"'{name}' is trusted (trust_annotations = true): its readOnlyHint makes a tool "
            "read-only unless the configuration says otherwise."
        )
    return (
        f"Read-only is as configured: the hints of '{name}' are not trusted "
        "(trust_annotations = false)."
    )


def _unavailable_message(error: MCPServerUnavailable) -> str:
    message = f"MCP server '{error.server}' did not start: {error.reason}"
    message += f" (command: {error.command})"
    if error.stderr_tail:
        message += "\n--- its stderr, last lines ---\n" + error.stderr_tail
    return message


def _warn(problems: Sequence[MCPProblem]) -> None:
    for problem in problems:
        click.echo(f"Warning: {problem.message}", err=True)
