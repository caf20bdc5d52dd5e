"""``nucleo serve``: the HTTP API over this project's tools, approvals and audit record.

The server's libraries (FastAPI, uvicorn: the ``server`` extra) are imported only when the
command runs. It serves the tools ``nucleo tools`` lists (installed packs, system-wide tools,
the project's MCP servers, bound as ``nucleo run`` binds them) and the ``--from`` sources'; the
``--thinker`` classes' palettes and catalogs are shown and their tools served. Calls pass the
project's permission guard (``[guard]``) and go on the project's audit record (``nucleo
audit`` reads it); approvals are those ``nucleo approvals`` decides.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.repeatable_option import CommandT, repeatable_option

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub
    from nucleo_core.tools import ToolProvider

__all__ = ["serve"]

#: The server's requirements, as the ``server`` extra of pyproject.toml pins them.
_SERVER_REQUIREMENTS = "fastapi>=0.115 uvicorn>=0.30"

#: The server's limits, in the order of the help: each sets the `ServerSettings` field it is
#: keyed by (its option is the field's name in kebab case), with the field's default (written
#: again here: ``nucleo_core.server`` imports FastAPI, which ``nucleo --help`` must not wait for).
_LIMITS: dict[str, tuple[click.ParamType[Any], float, str]] = {
    "max_body_bytes": (
        click.IntRange(min=1024),
        1024 * 1024,
        "The largest request body accepted; larger ones are answered 413.",
    ),
    "stream_seconds": (
        click.FloatRange(min=0.1),
        300.0,
        "How long one audit stream response lasts (EventSource reconnects by itself).",
    ),
    "settle_seconds": (
        click.FloatRange(min=0),
        2.0,
        "How often calls approved in another process (nucleo approvals approve) are run; "
        "0: only when GET /api/executions/ID reads them.",
    ),
}


def _limit_options(command: CommandT) -> CommandT:
    """``command`` with an option for each of the server's limits (`_LIMITS`)."""
    for field, (value_type, default, help_text) in reversed(_LIMITS.items()):
        flag = "--" + field.replace("_", "-")
        option = click.option(
            flag, type=value_type, default=default, show_default=True, help=help_text
        )
        command = option(command)
    return command


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on. Anything but a loopback address needs --allow-remote.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--allow-remote",
    is_flag=True,
    help=(
        "Allow a --host other machines can reach; needs a token configured beforehand "
        "($NUCLEO_API_TOKEN or .nucleo/api-token). Put a TLS proxy in front."
    ),
)
@repeatable_option(
    "--from",
    "sources",
    "MODULE_OR_PATH",
    "Also serve the tools a module defines (as for `nucleo tools --from`). Repeatable.",
)
@repeatable_option(
    "--thinker",
    "thinkers",
    "THINKER",
    "A thinker class (as for `nucleo catalog`) whose palette and catalog the listing shows; "
    "its tools are served too. Repeatable.",
)
@_limit_options
@click.option(
    "--print-openapi",
    is_flag=True,
    help="Print the API's OpenAPI schema as JSON and exit (serves nothing).",
)
@click.option(
    "--print-reference",
    is_flag=True,
    help="Print the API reference (Markdown, from the OpenAPI schema) and exit.",
)
def serve(
    sources: tuple[str, ...],
    thinkers: tuple[str, ...],
    print_openapi: bool,
    print_reference: bool,
    **options: Any,
) -> None:
    """Serve the HTTP API: the tools, the pending approvals, the audit record.

    Every endpoint but GET /api/health needs the header Authorization: Bearer TOKEN. The
    token is $NUCLEO_API_TOKEN, else the file .nucleo/api-token in the project folder,
    generated on first start, readable only by you. The server listens on 127.0.0.1 unless
    --host and --allow-remote say otherwise.
    """
    _require_server_extra()
    from nucleo_core.server import ServerSettings

    # The other options are the settings' fields by name: --host, --port, --allow-remote and
    # the limits.
    settings = ServerSettings(**options)
    if print_openapi or print_reference:
        _print_schema(settings, reference=print_reference)
        return
    _serve(settings, sources, thinkers)


def _require_server_extra() -> None:
    import importlib.util

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):  # blocked (None in sys.modules), or no __spec__
            return True

    missing = [name for name in ("fastapi", "uvicorn") if absent(name)]
    if missing:
        requirements = " ".join(f"'{part}'" for part in _SERVER_REQUIREMENTS.split())
        raise CommandError(
            f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed, so "
            f"`nucleo serve` cannot run; install the server extra: python3 -m pip install "
            f"{requirements} (or, in a checkout of nucleo: python3 -m pip install '.[server]')"
        )


def _print_schema(settings: Any, *, reference: bool) -> None:
    from nucleo_core.guard.approval_store import MemoryApprovalStore
    from nucleo_core.hub import ToolHub
    from nucleo_core.server import ApiService, ApiToken, create_app
    from nucleo_core.server.reference import api_reference

    # The schema depends on the routes alone: an empty service makes the same one.
    service = ApiService.build(
        hub=ToolHub(),
        tools=[],
        thinkers=[],
        approvals=MemoryApprovalStore(),
        token=ApiToken("-" * 32, "environment"),
        settings=settings,
    )
    schema = create_app(service).openapi()
    if reference:
        click.echo(api_reference(schema), nl=False)  # it ends with its own newline
    else:
        click.echo(json.dumps(schema, indent=2))


def _serve(settings: Any, sources: tuple[str, ...], thinker_paths: tuple[str, ...]) -> None:
    import uvicorn

    from nucleo_core.cli.approval_store import approvals_path
    from nucleo_core.cli.governance import guard_the_hub
    from nucleo_core.cli.hub import loaded_hub
    from nucleo_core.cli.thinker_class import load_thinker_class
    from nucleo_core.guard.approval_store import SQLiteApprovalStore
    from nucleo_core.guard.audit import AuditError, AuditLog, project_folder
    from nucleo_core.server import ApiService, ServerConfigError, check_bind, create_app
    from nucleo_core.server.settings import is_loopback
    from nucleo_core.server.token import load_token

    if not is_loopback(settings.host) and not settings.allow_remote:
        try:
            check_bind(settings, _no_token())
        except ServerConfigError as exc:
            raise CommandError(str(exc)) from exc
    try:
        token = load_token(project_folder())
        check_bind(settings, token)
    except ServerConfigError as exc:
        raise CommandError(str(exc)) from exc
    classes = [load_thinker_class(path) for path in thinker_paths]
    hub = loaded_hub(mcp_servers=True)
    approvals = SQLiteApprovalStore(approvals_path(None))
    try:
        guard_the_hub(hub)  # the project's [guard], else the defaults
        try:
            hub.audit = AuditLog.open()
        except AuditError as exc:
            raise CommandError(str(exc)) from exc
        service = ApiService.build(
            hub=hub,
            tools=_served_tools(hub, sources),
            thinkers=classes,
            approvals=approvals,
            token=token,
            settings=settings,
        )
        app = create_app(service)
        _announce(settings, token)
        uvicorn.run(
            app,
            host=settings.host,
            port=settings.port,
            log_level="info",
            # The real client address is what the access log shows; no proxy is trusted.
            proxy_headers=False,
            server_header=False,
        )
    finally:
        hub.close()
        if hub.audit is not None:
            hub.audit.close()
        approvals.close()


def _no_token() -> Any:
    from nucleo_core.server import ApiToken

    return ApiToken("-" * 32, "environment")  # only the address is judged before a token


def _served_tools(hub: ToolHub, sources: tuple[str, ...]) -> list[tuple[ToolProvider, str]]:
    """The tools ``nucleo tools --from SOURCES`` lists, with their origins, in its order."""
    from nucleo_core.cli.sources import (
        SYSTEM_WIDE,
        ToolSourceError,
        collect_registry,
        pack_origin,
    )

    found: list[tuple[ToolProvider, str]] = []
    for pack_tool in hub.plugins.pack_tools():
        found.append((pack_tool.provider, pack_origin(hub, pack_tool)))
    for provider in hub.system_wide_tools():
        origin = (
            f"mcp server {provider.source.split(':')[1]}"
            if provider.source.startswith("mcp:")
            else SYSTEM_WIDE
        )
        found.append((provider, origin))
    try:
        collected = collect_registry(sources)  # the --from sources, checked as for tools
    except ToolSourceError as exc:
        raise CommandError(str(exc)) from exc
    found += [(provider, collected.origin(provider)) for provider in collected.registry.providers()]
    return found


def _announce(settings: Any, token: Any) -> None:
    from nucleo_core.server.settings import is_loopback

    where = f"http://{settings.host}:{settings.port}"
    if token.origin == "generated":
        said = f"generated into {token.path} (readable only by you)"
    elif token.origin == "file":
        said = f"read from {token.path}"
    else:
        said = "from $NUCLEO_API_TOKEN"
    click.echo(f"nucleo API on {where}/api (token {token.identity}, {said}).", err=True)
    click.echo(f"The console: open {where}/ in a browser and enter the token.", err=True)
    if not is_loopback(settings.host):
        click.echo(
            "Warning: other machines can reach this server, and it speaks plain HTTP: put a "
            "TLS-terminating proxy in front of it.",
            err=True,
        )
    bearer = f"$(cat {token.path})" if token.path is not None else "$NUCLEO_API_TOKEN"
    click.echo(f'Try: curl -H "Authorization: Bearer {bearer}" {where}/api/tools', err=True)
    logging.getLogger("nucleo.server").info("serving on %s", where)
