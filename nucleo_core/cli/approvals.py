"""``nucleo approvals``: list pending approvals; ``approve ID``, ``reject ID --reason TEXT``.

The approvals are those of the durable runs that paused: ``approvals.sqlite3`` next to the
durable conversations' file (``$NUCLEO_CONVERSATIONS``, by default
``~/.local/share/nucleo/conversations.sqlite3``), or ``$NUCLEO_APPROVALS``, or ``--path``.
``--store URL`` (or ``$NUCLEO_STORE_URL``, or the project's ``store``) reads them from a shared
store instead, PostgreSQL included. Each approval is decided once: deciding it again, or one
that expired, is an ``Error:`` line saying what it is (exit code 2). ``nucleo resume
CONVERSATION`` then continues the run.
"""

from __future__ import annotations

import getpass
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.approval_store import approvals_path, approvals_store, approvals_store_url
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.store import store_option

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord

__all__ = ["approvals"]

#: How the approvals of MCP gateway clients are filed (`ClientIdentity.approvals_key`).
GATEWAY_APPROVALS = "mcp-gateway:"
#: How the approvals of HTTP API executions are filed (`nucleo_core.server.executions`, not
#: imported here: it would import the server's libraries into every command).
API_EXECUTIONS = "api-execution:"


def _path_option(command: Any) -> Any:
    return click.option(
        "--path",
        metavar="FILE",
        help=(
            "The approvals' SQLite file. Default: $NUCLEO_APPROVALS, else approvals.sqlite3 "
            "next to the conversations' file ($NUCLEO_CONVERSATIONS)."
        ),
    )(command)


@click.group(invoke_without_command=True)
@_path_option
@store_option
@click.option("--all", "show_all", is_flag=True, help="List decided and expired ones too.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def approvals(
    ctx: click.Context, path: str | None, store_url: str | None, show_all: bool, as_json: bool
) -> None:
    """List the approvals paused runs wait for (the pending ones; --all for every one).

    Each row shows the approval's id, the tool, its risk and source, the conversation (the one
    `nucleo resume` continues, a sub-thinker's included), who asked (the thinker, after the
    thinkers that launched it), when it was asked and when it expires, and the arguments it
    would authorise (the approval stands for exactly these arguments). Decide one with `nucleo
    approvals approve ID` or `nucleo approvals reject ID --reason TEXT`, then continue its run
    with `nucleo resume CONVERSATION`.
    """
    if ctx.invoked_subcommand is not None:
        return
    records: list[ApprovalRecord] = []
    if approvals_store_url(path, store_url) is not None or approvals_path(path).exists():
        store = approvals_store(path, store_url)
        try:
            records = store.list(status=None if show_all else "pending")
        finally:
            store.close()
    if as_json:
        render.print_json([record.to_json() for record in records])
        return
    if not records:
        click.echo("No approvals are pending." if not show_all else "No approvals are kept.")
        return
    for record in records:
        _print_record(record)


@approvals.command()
@click.argument("approval_id", metavar="ID")
@_path_option
@store_option
@click.option("--by", "by", metavar="NAME", help="Who decides (default: your user name).")
@click.option(
    "--content",
    "content_text",
    metavar="JSON",
    help="The answer to an MCP server's elicitation: a JSON object fitting its schema.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the decided approval as JSON.")
def approve(
    approval_id: str,
    path: str | None,
    store_url: str | None,
    by: str | None,
    content_text: str | None,
    as_json: bool,
) -> None:
    """Approve the pending approval ID: its call runs when the run is resumed.

    An elicitation's approval (an MCP server asked for input during a call) takes the answer
    as --content JSON, checked against the schema the server requested; the resumed call
    answers the server with it.
    """
    import json

    from nucleo_core.guard.approval_store import ApprovalError

    content = None
    if content_text is not None:
        try:
            content = json.loads(content_text)
        except json.JSONDecodeError as exc:
            raise CommandError(
                f"--content is not JSON ({exc.msg} at character {exc.pos}); give a JSON "
                'object, e.g. --content \'{"name": "value"}\''
            ) from None
        if not isinstance(content, dict):
            raise CommandError("--content must be a JSON object of field values")
    store = approvals_store(path, store_url)
    try:
        record = store.approve(approval_id, by=by or _user(), content=content)
    except ApprovalError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    _decided(record, as_json)


@approvals.command()
@click.argument("approval_id", metavar="ID")
@click.option(
    "--reason", required=True, metavar="TEXT", help="Why: the model reads it (no secrets)."
)
@_path_option
@store_option
@click.option("--by", "by", metavar="NAME", help="Who decides (default: your user name).")
@click.option("--json", "as_json", is_flag=True, help="Print the decided approval as JSON.")
def reject(
    approval_id: str,
    reason: str,
    path: str | None,
    store_url: str | None,
    by: str | None,
    as_json: bool,
) -> None:
    """Reject the pending approval ID: the resumed run tells the model REASON."""
    from nucleo_core.guard.approval_store import ApprovalError

    store = approvals_store(path, store_url)
    try:
        record = store.reject(approval_id, reason, by=by or _user())
    except ApprovalError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    _decided(record, as_json)


def _decided(record: ApprovalRecord, as_json: bool) -> None:
    if as_json:
        render.print_json(record.to_json())
        return
    if record.conversation_id.startswith(GATEWAY_APPROVALS):
        # A gateway client's call: nothing to resume; the client calls the tool again.
        click.echo(
            f"Approval {record.id} {record.status}: {record.tool}. The MCP client that asked "
            "runs it by calling the tool again with the same arguments."
        )
        return
    if record.conversation_id.startswith(API_EXECUTIONS):
        # An execution asked through `nucleo serve`: no run to resume; the server runs it.
        call = record.conversation_id.removeprefix(API_EXECUTIONS)
        click.echo(
            f"Approval {record.id} {record.status}: {record.tool}. It was asked through the "
            f"HTTP API: the server runs an approved call once, within its --settle-seconds, and "
            f"GET /api/executions/{record.id} answers its result (call {call})."
        )
        return
    click.echo(
        f"Approval {record.id} {record.status}: {record.tool}. Continue the run with: "
        f"nucleo resume {record.conversation_id}"
    )


def _print_record(record: ApprovalRecord) -> None:
    import json

    risk = record.risk if record.risk_declared else f"{record.risk} (undeclared)"
    click.echo(f"{record.id}  {record.status_at()}")
    click.echo(f"  tool:         {record.tool} ({record.source}), risk {risk}")
    click.echo(f"  conversation: {record.conversation_id} (thinker {record.thinker})")
    if record.requested_by:  # a sub-thinker's: the thinkers that launched it, root first
        click.echo(f"  asked by:     {record.requested_by}")
    click.echo(f"  asked:        {record.requested_at.isoformat(timespec='seconds')}")
    click.echo(f"  expires:      {record.expires_at.isoformat(timespec='seconds')}")
    if record.decided_at is not None:
        who = f" by {record.decided_by}" if record.decided_by else ""
        click.echo(f"  decided:      {record.decided_at.isoformat(timespec='seconds')}{who}")
    if record.reason:
        click.echo(f"  reason:       {record.reason}")
    arguments = json.dumps(dict(record.arguments), indent=2, sort_keys=True, default=str)
    click.echo("  arguments:    " + arguments.replace("\n", "\n                "))
    if record.kind == "elicitation":
        asked = record.elicitation
        # The server's own text: shown escaped (a JSON string), never as terminal control.
        server = asked.get("server", "?")
        click.echo(f"  elicitation:  MCP server '{server}' asks, during the call")
        click.echo("  message:      " + json.dumps(str(asked.get("message", ""))))
        if asked.get("mode") == "url":
            click.echo("  url:          " + json.dumps(str(asked.get("url", ""))))
        else:
            schema = json.dumps(asked.get("schema") or {}, indent=2, sort_keys=True)
            click.echo("  schema:       " + schema.replace("\n", "\n                "))
            click.echo("  answer with:  nucleo approvals approve ID --content JSON")


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment: the decision still names its tool
        return "cli"
