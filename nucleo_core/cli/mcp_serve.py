"""``nucleo mcp serve``: nucleo as a governed MCP gateway for any MCP client.

``nucleo mcp serve --profile NAME`` serves the profile over stdio (what Claude Desktop, Claude
Code and Cursor launch); ``--http`` serves streamable HTTP on 127.0.0.1 with a bearer token.
``--print-config`` prints the ``mcpServers`` entry that launches it. The profile's thinker
decides what the client sees; every call passes nucleo's door and guard and is recorded in the
project's audit log; approvals are asked through elicitation or left pending for ``nucleo
approvals``. See `nucleo_core.gateway`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli.command_error import CommandError

if TYPE_CHECKING:
    from nucleo_core.gateway.profile import GatewayProfile

__all__ = ["client_config", "serve"]

#: The port ``--http`` listens on unless told.
DEFAULT_PORT = 8765


@click.command("serve")
@click.option(
    "--profile",
    "profile_name",
    required=True,
    metavar="NAME",
    help=(
        "The profile to serve: a name declared in [tool.nucleo.gateway.profiles] "
        "(pyproject.toml) or [gateway.profiles] (nucleo.toml), or a thinker class's import "
        "path (package.module:ClassName)."
    ),
)
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The HTTP host.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="The HTTP port (0: any free port, printed on stderr).",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a --host that is not a loopback address (the bearer token is still required).",
)
@click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The project folder to serve from (its configuration, audit log and approvals).",
)
@click.option(
    "--print-config",
    is_flag=True,
    help="Print the mcpServers entry that launches this gateway (Claude Desktop style), and exit.",
)
def serve(
    profile_name: str,
    http: bool,
    host: str,
    port: int,
    allow_remote: bool,
    project: Path | None,
    print_config: bool,
) -> None:
    """Serve a profile's tools to MCP clients, each call governed by nucleo.

    The client sees the tools of the profile's thinker (a large catalog through search_tools);
    every call passes nucleo's call door and permission guard and is recorded in the audit
    log with the client's name. A call that needs an approval is asked of the client's user
    (MCP elicitation) or left pending: `nucleo approvals approve ID`, then the same call again.
    Over stdio it serves until the client closes; with --http, until interrupted.
    """
    from nucleo_core.gateway.errors import GatewayError
    from nucleo_core.gateway.profile import discover_profile

    if project is not None:
        os.chdir(project)
    try:
        profile = discover_profile(profile_name)
    except GatewayError as exc:
        raise CommandError(str(exc)) from exc
    if print_config:
        click.echo(json.dumps(client_config(profile, http=http, host=host, port=port), indent=2))
        return
    try:
        _serve(profile, http=http, host=host, port=port, allow_remote=allow_remote)
    except GatewayError as exc:
        raise CommandError(str(exc)) from exc


def client_config(
    profile: GatewayProfile,
    *,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
) -> dict[str, Any]:
    """The ``mcpServers`` entry a client is configured with to reach this gateway."""
    key = "nucleo-" + "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in profile.name)
    if http:
        shown = f"[{host}]" if ":" in host else host
        entry: dict[str, Any] = {
            "type": "http",
            "url": f"http://{shown}:{port}/mcp",
            "headers": {"Authorization": "Bearer ${NUCLEO_API_TOKEN}"},
        }
    else:
        script = Path(sys.executable).with_name("nucleo")
        if script.is_file():
            command, args = str(script), []
        else:
            command, args = sys.executable, ["-m", "nucleo_core.cli"]
        entry = {
            "command": command,
            "args": [
                *args,
                "mcp",
                "serve",
                "--profile",
                profile.name,
                "--project",
                str(Path.cwd()),
            ],
        }
    return {"mcpServers": {key: entry}}


def _serve(
    profile: GatewayProfile, *, http: bool, host: str, port: int, allow_remote: bool
) -> None:
    from nucleo_core._version import __version__
    from nucleo_core.cli.approval_store import approvals_store
    from nucleo_core.cli.governance import guard_the_hub
    from nucleo_core.cli.hub import loaded_hub
    from nucleo_core.cli.mcp_survey import require_sdk
    from nucleo_core.cli.thinker_class import load_thinker_class
    from nucleo_core.gateway.http import check_host
    from nucleo_core.gateway.runtime import profile_servers, run_gateway
    from nucleo_core.gateway.server import Gateway
    from nucleo_core.gateway.token import BearerToken
    from nucleo_core.guard.audit.errors import AuditConfigError
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.mcp import MCPConfigError, discover_servers

    require_sdk()
    if http:
        check_host(host, allow_remote=allow_remote)
    thinker_class = load_thinker_class(profile.thinker)
    _check_buildable(thinker_class, profile)
    try:
        configs = profile_servers(discover_servers(), profile.servers)
    except MCPConfigError as exc:
        raise CommandError(str(exc)) from exc
    token = BearerToken.load() if http else None
    _log_to_stderr()
    hub = loaded_hub()
    guard_the_hub(hub, only_if_configured=True)
    try:
        hub.audit = AuditLog.open()
    except AuditConfigError as exc:
        hub.close()
        raise CommandError(str(exc)) from exc
    if profile.offer is not None:
        hub.tool_offer = profile.offer
    # Where `nucleo approvals` reads them, so that what the gateway files is what it decides.
    store = approvals_store(None, must_exist=False)
    gateway = Gateway(hub, thinker_class, profile, approvals=store, version=__version__)
    try:
        asyncio.run(run_gateway(gateway, configs, http=http, host=host, port=port, token=token))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass  # stopped by a signal: every server was closed on the way out
    finally:
        store.close()
        if hub.audit is not None:
            hub.audit.close()


def _check_buildable(thinker_class: type[Any], profile: GatewayProfile) -> None:
    """Refuse, before serving, a class the gateway cannot build for each client.

    The gateway builds the thinker with ``hub=`` alone (and ``read_only=True`` for a read-only
    profile), as ``nucleo catalog`` does; a class that needs more fails here, not at a
    client's first request.
    """
    import inspect

    arguments: dict[str, Any] = {"hub": None}
    if profile.read_only:
        arguments["read_only"] = True
    try:
        inspect.signature(thinker_class).bind(**arguments)
    except TypeError as exc:
        raise CommandError(
            f"the gateway cannot build '{profile.thinker}' with {', '.join(arguments)}= alone: "
            f"{exc}; give its other parameters defaults"
        ) from exc
    except ValueError:
        pass  # no signature to read: building it at the first request says what is wrong


def _log_to_stderr() -> None:
    """Warnings of nucleo go to stderr: stdout is the MCP channel over stdio."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("nucleo gateway: %(levelname)s: %(message)s"))
    logging.getLogger("nucleo").addHandler(handler)
