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

import importlib.util
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.columns import Column
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.links import docs_page
from nucleo_core.mcp import (
    MCPConfigError,
    MCPProblem,
    MCPServerConfig,
    MCPServers,
    MCPServerStatus,
    MCPServerUnavailable,
    MCPToolProvider,
    discover_servers,
)
from nucleo_core.mcp.errors import MISSING_SDK, MCPPinError, MCPPinStoreError
from nucleo_core.mcp.pins import PinStore, Quarantine, pin_store_path, printable, short_digest

if TYPE_CHECKING:
    from rich.text import Text

    from nucleo_core.hub import ToolHub

__all__ = [
    "ServerReport",
    "Survey",
    "configured_mcp_tools",
    "connect_configured_servers",
    "mcp",
    "mcp_origin",
    "server_summary",
    "survey",
]

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
#: The logger the MCP layer reports on.
_MCP_LOGGER = "nucleo.mcp"

_HOW_TO_CONFIGURE = f"""\
Declare a server in pyproject.toml, in this folder or one above it:

  [tool.nucleo.mcp.servers.time]
  command = "uvx"
  args = ["mcp-server-time"]
  risk = "low"

nucleo.toml ([mcp.servers.<id>]) and a project's .mcp.json ("mcpServers") are read too.
`nucleo mcp --help` says more; every setting is explained at
{docs_page("mcp")}"""


@dataclass(frozen=True, kw_only=True)
class ServerReport:
    """One configured server as the command found it.

    Attributes:
        config: Its configuration.
        status: Its session state once started (before it was closed).
        unavailable: Why it did not start, when it did not.
        providers: Its tools, as registered (without any skipped or colliding tool).
        quarantined: Its tools withheld by their pins (`nucleo_core.mcp.pins`), with diffs.
    """

    config: MCPServerConfig
    status: MCPServerStatus
    unavailable: MCPServerUnavailable | None
    providers: tuple[MCPToolProvider, ...]
    quarantined: tuple[Quarantine, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Survey:
    """Every server asked for, started at once and closed again.

    Attributes:
        servers: One report per server, in configuration order.
        problems: What the MCP layer reported besides: invalid tools, name collisions.
    """

    servers: tuple[ServerReport, ...]
    problems: tuple[MCPProblem, ...]


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
    configs = _configured()
    if not configs:
        if as_json:
            render.print_json([])
        else:
            click.echo("No MCP servers are configured for this project.")
            click.echo(_HOW_TO_CONFIGURE)
        return
    _require_sdk()
    found = survey(configs)
    if as_json:
        render.print_json([server_summary(report) for report in found.servers])
    else:
        _print_server_table(found.servers)
        _print_quarantined([q for report in found.servers for q in report.quarantined])
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
    configs = _configured()
    if not configs:
        raise CommandError(
            f"no MCP server named '{server}': no MCP servers are configured for this project.\n"
            + _HOW_TO_CONFIGURE
        )
    ids = [config.name for config in configs]
    if server not in ids:
        raise CommandError(f"no MCP server named '{server}'. Configured servers: {', '.join(ids)}")
    _require_sdk()
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


def _register_serve() -> None:
    from nucleo_core.cli.mcp_serve import serve

    mcp.add_command(serve)


_register_serve()


def mcp_origin(server: str) -> str:
    """Where an MCP server's tools come from, as ``nucleo tools`` titles them."""
    return f"mcp server {server}"


def configured_mcp_tools(
    start: str | os.PathLike[str] | None = None,
) -> tuple[list[tuple[MCPToolProvider, str]], list[str]]:
    """The tools of the MCP servers configured for the project at ``start`` (the cwd).

    Every server is started at once and closed again; the providers are kept for listing
    (calling them needs servers that are running).

    Returns:
        Each tool with its origin (``mcp server ID``), in configuration order; and a warning
        per server that did not start, per problem reported, or for a configuration that
        cannot be read. No servers configured gives nothing.
    """
    try:
        configs = discover_servers(start)
    except MCPConfigError as exc:
        return [], [f"the tools of MCP servers are not listed: {exc}"]
    if not configs:
        return [], []
    if not _sdk_installed():
        return [], [f"the tools of MCP servers are not listed: {MISSING_SDK}"]
    found = survey(configs)
    tools: list[tuple[MCPToolProvider, str]] = []
    warnings: list[str] = []
    for report in found.servers:
        name = report.config.name
        if report.unavailable is not None:
            warnings.append(
                f"the tools of MCP server '{name}' are not listed: "
                f"{report.unavailable.reason}; `nucleo mcp` shows its status"
            )
        tools += [(provider, mcp_origin(name)) for provider in report.providers]
    warnings += [problem.message for problem in found.problems]
    return tools, warnings


def connect_configured_servers(
    hub: ToolHub, start: str | os.PathLike[str] | None = None
) -> list[str]:
    """Bind the MCP servers configured for the project at ``start`` (the cwd) to ``hub``.

    Their tools join the palettes as the configuration says (`MCPServers.connect_to_hub`);
    closing the hub closes them. A server's elicitation requests are asked on the terminal
    when stdin and stderr are one (`TerminalAnswerer`), and declined otherwise; its sampling
    requests, where its configuration enables them, are served by the project's model
    catalog.

    Returns:
        A warning per problem reported (a server that did not start, a collision, an unusable
        tool), or for a configuration that cannot be read; nothing when none is configured.
    """
    try:
        configs = discover_servers(start)
    except MCPConfigError as exc:
        return [f"the MCP servers are not connected: {exc}"]
    if not configs:
        return []
    from nucleo_core.mcp.elicitation import TerminalAnswerer

    # Asked on the terminal only when someone is there to answer; else declined (fail closed).
    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    with _mcp_logs_held():
        servers = MCPServers(
            configs, elicitation=TerminalAnswerer() if interactive else None
        ).connect_to_hub(hub)
    return [problem.message for problem in servers.problems]


def survey(configs: Sequence[MCPServerConfig], names: Sequence[str] | None = None) -> Survey:
    """Start the servers ``names`` (every one by default) at once, report them, and close.

    Nothing the MCP layer logs meanwhile is printed: what it says is in the report.
    """
    wanted = [config.name for config in configs] if names is None else list(names)
    disabled = {config.name for config in configs if config.disabled}
    with _mcp_logs_held():
        servers = MCPServers(configs)
        try:
            outcomes: dict[str, Any] = dict.fromkeys(disabled & set(wanted))
            outcomes |= servers.pool.start_all([name for name in wanted if name not in disabled])
            reports = []
            for name in wanted:
                outcome = outcomes[name]
                providers: tuple[MCPToolProvider, ...] = ()
                if name in disabled:  # configured, never started: listed as disabled
                    pass
                elif not isinstance(outcome, MCPServerUnavailable):
                    try:
                        providers = servers.start(name)  # started: registers its listing
                    except MCPServerUnavailable as exc:  # it stopped in between
                        outcome = exc
                reports.append(
                    ServerReport(
                        config=servers.pool.config(name),
                        status=servers.pool.status(name),
                        unavailable=outcome if isinstance(outcome, MCPServerUnavailable) else None,
                        providers=providers,
                        quarantined=servers.quarantined(name),
                    )
                )
            problems = tuple(p for p in servers.problems if p.kind != "unavailable")
        finally:
            servers.close()
    return Survey(servers=tuple(reports), problems=problems)


def server_summary(report: ServerReport) -> dict[str, Any]:
    """One server as a JSON object, keys in a stable order."""
    config, status, unavailable = report.config, report.status, report.unavailable
    return {
        "name": config.name,
        "transport": config.transport,
        "command": config.describe() if config.transport == "stdio" else None,
        "url": config.url,
        "origin": config.origin,
        "status": status.state,
        "tools": status.tools,
        "restarts": status.restarts,
        "protocol_version": status.protocol_version,
        "error": unavailable.reason if unavailable is not None else status.error,
        "stderr_tail": unavailable.stderr_tail if unavailable is not None else status.stderr_tail,
        "sessions": config.sessions,
        "risk_policy": None if config.risk_policy is None else dict(config.risk_policy),
        "disabled": config.disabled,
        "roots": list(config.root_uris()),
        "sampling": None if config.sampling is None else config.sampling.model,
        "pin": config.pin,
        "new_tools": config.new_tools,
        "quarantined": [quarantine.to_json() for quarantine in report.quarantined],
    }


# -- pins ---------------------------------------------------------------------------------------


@mcp.group("pins", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def mcp_pins(ctx: click.Context, as_json: bool) -> None:
    """List the pinned tool definitions of the configured servers, and the quarantined tools.

    The first time a server's tool is seen, its definition (name, title, description, input
    and output schemas, annotations) is pinned. A tool whose server later publishes another
    definition is quarantined: withheld from every catalog until accepted with
    `nucleo mcp pins accept SERVER TOOL`. Each quarantined tool is shown with the diff of its
    pinned and published definitions. No server is started: this reads the pin store.
    """
    if ctx.invoked_subcommand is not None:
        return
    group = ctx.parent.params if ctx.parent is not None else {}
    as_json = as_json or bool(group.get("as_json", False))
    configs = _configured()
    pinned = [config for config in configs if config.pin]
    entries: list[dict[str, Any]] = []
    held: list[Quarantine] = []
    stores: dict[str, PinStore] = {}
    for config in pinned:
        store = stores.setdefault(str(pin_store_path(config)), PinStore(pin_store_path(config)))
        try:
            pins = store.pins(config.name)
            quarantined = store.quarantined(config.name)
        except MCPPinStoreError as exc:
            raise click.ClickException(str(exc)) from exc
        held += quarantined
        waiting = {quarantine.tool: quarantine for quarantine in quarantined}
        entries += [
            {
                "server": pin.server,
                "tool": pin.tool,
                "state": "quarantined" if pin.tool in waiting else "pinned",
                "digest": pin.digest,
                "pinned_at": pin.pinned_at,
            }
            for pin in pins
        ]
        entries += [
            {
                "server": quarantine.server,
                "tool": quarantine.tool,
                "state": "quarantined",
                "digest": None,
                "pinned_at": None,
            }
            for quarantine in quarantined
            if quarantine.pinned is None  # new: no pin of its own to list it by
        ]
    unpinned = [config.name for config in configs if not config.pin]
    if as_json:
        render.print_json(
            {
                "stores": list(stores),
                "pins": entries,
                "quarantined": [quarantine.to_json() for quarantine in held],
                "unpinned": unpinned,
            }
        )
        return
    if not configs:
        click.echo("No MCP servers are configured for this project.")
        return
    if entries:
        _print_pin_table(entries)
    else:
        click.echo(
            "No tool definitions are pinned yet: they are pinned the first time each server's "
            "tools are listed (`nucleo mcp` lists them)."
        )
    if unpinned:
        click.echo(f"Not pinned (pin = false): {', '.join(unpinned)}.")
    click.echo(f"Pin store: {', '.join(stores) or '-'}")
    _print_quarantined(held)


@mcp_pins.command("accept")
@click.argument("server")
@click.argument("tool")
@click.option(
    "--digest",
    default=None,
    help="Accept only if the quarantined definition has this digest (as `nucleo mcp pins` "
    "shows it): what was reviewed is what is pinned.",
)
def mcp_pins_accept(server: str, tool: str, digest: str | None) -> None:
    """Accept the quarantined definition of TOOL on SERVER: pin it, and offer the tool again.

    What is pinned is the definition shown by `nucleo mcp pins` (recorded when the tool was
    quarantined), never whatever the server publishes at this moment: a definition that
    changed again since is quarantined again. A running process (a thinker, the gateway)
    offers the tool at the server's next listing, or when it connects again.
    """
    configs = {config.name: config for config in _configured()}
    config = configs.get(server)
    if config is None:
        known = ", ".join(configs) or "none"
        raise CommandError(f"no MCP server named '{server}'. Configured servers: {known}")
    if not config.pin:
        raise CommandError(
            f"MCP server '{server}' is not pinned (pin = false): its tools are never quarantined"
        )
    store = PinStore(pin_store_path(config))
    try:
        pin = store.accept(server, tool, digest=digest)
    except MCPPinError as exc:
        raise CommandError(str(exc)) from exc
    except MCPPinStoreError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(
        f"Accepted '{tool}' on MCP server '{server}': pinned {short_digest(pin.digest)} in "
        f"{store.path}. It is offered again from the server's next listing."
    )


# -- internals ----------------------------------------------------------------------------------


def _configured() -> list[MCPServerConfig]:
    try:
        return discover_servers()
    except MCPConfigError as exc:
        raise CommandError(str(exc)) from exc


def _sdk_installed() -> bool:
    return importlib.util.find_spec("mcp") is not None


def _require_sdk() -> None:
    if not _sdk_installed():
        raise click.ClickException(MISSING_SDK)


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


def _print_pin_table(entries: Sequence[dict[str, Any]]) -> None:
    from rich.text import Text

    columns = (
        Column("Server", "key"),
        Column("Tool", "key"),
        Column("State", "value"),
        Column("Digest", "value"),
        Column("Pinned at", "text", drop_rank=1),
    )
    rows = [
        [
            Text(entry["server"]),
            Text(entry["tool"]),
            Text(entry["state"], style="red" if entry["state"] == "quarantined" else "green"),
            Text(short_digest(entry["digest"]) if entry["digest"] else "-"),
            Text(entry["pinned_at"] or "-"),
        ]
        for entry in entries
    ]
    render.print_grouped_table(columns, [(None, rows)])


def _print_quarantined(held: Sequence[Quarantine]) -> None:
    """Each quarantined tool: why, the diff of its definitions, and the command that accepts it."""
    if not held:
        return
    click.echo()
    click.echo(
        f"{render.counted(len(held), 'tool')} quarantined, withheld from every catalog until "
        "accepted:"
    )
    for quarantine in held:
        click.echo()
        click.echo(f"{quarantine.server}/{printable(quarantine.tool)}: {_why(quarantine)}")
        if quarantine.pinned_digest is not None:
            click.echo(
                f"pinned {short_digest(quarantine.pinned_digest)}; now "
                f"{short_digest(quarantine.digest)}, first seen {quarantine.seen_at}"
            )
        if quarantine.diff:
            click.echo(quarantine.diff)
        if quarantine.reason != "unverified":
            click.echo(
                f"Accept it once reviewed: {quarantine.accept_command} --digest "
                f"{short_digest(quarantine.digest)}"
            )


def _why(quarantine: Quarantine) -> str:
    if quarantine.reason == "unverified":
        return f"the pin store {quarantine.store} cannot be read; `nucleo mcp pins` says why"
    if quarantine.reason == "new":
        return 'new on a server whose tools are pinned (new_tools = "quarantine")'
    return f"its definition changed since it was pinned ({', '.join(quarantine.fields)})"


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


@contextmanager
def _mcp_logs_held() -> Iterator[None]:
    """Keep what the MCP layer logs from being printed bare; the command reports it instead.

    A handler on the ``nucleo.mcp`` logger keeps the logging module's last-resort handler
    from printing its records; records still reach any handler the user configured.
    """
    logger = logging.getLogger(_MCP_LOGGER)
    handler = logging.NullHandler()
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
