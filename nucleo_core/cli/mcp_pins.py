"""``nucleo mcp pins``: the pinned tool definitions, the quarantined tools, and accepting one.

A tool withheld because its definition changed since it was pinned is listed with its diff
(`print_quarantined`, which ``nucleo mcp`` prints under its table too); ``nucleo mcp pins
accept SERVER TOOL`` accepts a quarantined definition. No server is started: this reads the
pin store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.columns import Column
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.mcp_survey import configured_servers
from nucleo_core.mcp.errors import MCPPinError, MCPPinStoreError
from nucleo_core.mcp.pins import PinStore, Quarantine, pin_store_path, printable, short_digest

__all__ = ["mcp_pins", "mcp_pins_accept", "print_quarantined"]


@click.group("pins", invoke_without_command=True)
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
    configs = configured_servers()
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
    print_quarantined(held)


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
    configs = {config.name: config for config in configured_servers()}
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


def print_quarantined(held: Sequence[Quarantine]) -> None:
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
