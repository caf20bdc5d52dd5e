"""``nucleo audit``: read the audit record, as a table or JSON lines; ``nucleo audit verify``.

The record is the project's (``.nucleo/audit.sqlite3`` in the project folder, or the path its
``[tool.nucleo.guard.audit]`` table or ``$NUCLEO_AUDIT`` names), or the file ``--path`` names,
or the store ``--store`` names (without an audit path configured: ``$NUCLEO_STORE_URL`` or the
project's ``store``), PostgreSQL included.
Reading never creates a file: a missing record is said to be missing. ``verify`` exits 0 when
the record is intact and 1, naming the first bad record, when it is not; a mistake in what was
asked (a malformed ``--since``, a missing file) exits 2.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from nucleo_core.cli import render
from nucleo_core.cli.columns import Column
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.repeatable_option import repeatable_option
from nucleo_core.cli.store import resolved_store, store_option

if TYPE_CHECKING:
    from nucleo_core.guard.audit import AuditQuery, AuditRecord, AuditStore

__all__ = ["audit"]

# On a narrow line the reason goes first, then the rule and the requester; never the
# sequence number, the time, the kind, the tool or the outcome, which are what is looked for.
_COLUMNS = (
    Column("#", "key"),
    Column("Time (UTC)", "key"),
    Column("Kind", "key"),
    Column("Thinker", "value", drop_rank=3),
    Column("Tool", "key"),
    Column("Outcome", "value"),
    Column("Rule", "text", drop_rank=2),
    Column("Reason", "text", drop_rank=1),
)
_RELATIVE = re.compile(r"^(\d+)\s*([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


@click.group(invoke_without_command=True)
@click.option(
    "--path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The audit record's SQLite file (default: the project's, see below).",
)
@store_option
@click.option(
    "--since",
    metavar="WHEN",
    help="Only records from then on: an ISO 8601 time (UTC unless it says) or an age: 30s, "
    "15m, 2h, 7d.",
)
@click.option(
    "--thinker",
    metavar="NAME",
    help="Only records of this thinker and the sub-thinkers it launched: a class (Planner or "
    "app.Planner) or an instance id.",
)
@click.option(
    "--tool", metavar="NAME", help="Only records of this tool: a name, or a glob (send_*, mcp:*)."
)
@repeatable_option(
    "--kind",
    "kinds",
    "KIND",
    "Only records of this kind (grant, refusal, permission, approval_request, "
    "approval_decision, call_start, call_finish, notification, failure, revocation). "
    "Repeatable.",
)
@click.option("--follow", is_flag=True, help="Keep printing records as they are made (Ctrl-C).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object a line.")
@click.pass_context
def audit(
    ctx: click.Context,
    path: Path | None,
    store_url: str | None,
    since: str | None,
    thinker: str | None,
    tool: str | None,
    kinds: tuple[str, ...],
    follow: bool,
    as_json: bool,
) -> None:
    """Show the audit record: every grant, refusal, decision, approval and call.

    Each record says who asked (the thinker, its conversation and the thinkers that launched
    it), what (the tool or skill, its source and declared risk), what decided (the rule) and
    the outcome. Arguments are shown only as their digest, unless the project records them
    ([tool.nucleo.guard.audit] record_arguments = true). --json prints every field, the
    developer details of failures included (exception type, message, traceback: never shown
    to a model).

    The record is the project's .nucleo/audit.sqlite3 (the project folder is the nearest one
    up from here holding a nucleo.toml, a pyproject.toml or a .nucleo folder), or the file
    [tool.nucleo.guard.audit] path or $NUCLEO_AUDIT names. `nucleo audit verify` checks that
    no record was edited, deleted or reordered.
    """
    if ctx.invoked_subcommand is not None:
        return  # `verify` reads --path from this context
    from nucleo_core.guard.audit import AUDIT_KINDS, AuditQuery

    unknown = [kind for kind in kinds if kind not in AUDIT_KINDS]
    if unknown:
        raise CommandError(
            f"--kind {unknown[0]}: not a kind of record; use one of {', '.join(AUDIT_KINDS)}"
        )
    query = AuditQuery(since=_since(since), thinker=thinker, tool=tool, kinds=frozenset(kinds))
    store = _open(path, store_url)
    try:
        if follow:
            _follow(store, query, as_json)
        else:
            _print(list(_read(store, query)), as_json)
    finally:
        store.close()


@audit.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def verify(ctx: click.Context, as_json: bool) -> None:
    """Check that no record was edited, deleted or reordered since it was written.

    Exits 0 when the record is intact, 1 naming the first bad record when it is not.
    """
    group = ctx.parent.params if ctx.parent is not None else {}
    from nucleo_core.guard.audit import AuditError

    store = _open(group.get("path"), group.get("store_url"))
    try:
        report = store.verify()
    except AuditError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    if as_json or group.get("as_json", False):
        render.print_json(report.to_json())
    elif report.ok:
        click.echo(
            f"The audit record is intact: {render.counted(report.records, 'record')}, "
            f"head {report.head_sequence} ({report.head_digest})."
        )
    else:
        click.echo(f"The audit record is broken at record {report.first_bad_sequence}.")
        click.echo(f"{report.problem}.")
    if not report.ok:
        ctx.exit(1)


def _open(path: Path | None, store_url: str | None = None) -> AuditStore:
    from nucleo_core.guard.audit import AuditError, audit_settings
    from nucleo_core.guard.audit.sqlite_store import SQLiteAuditStore

    # --path names a file and wins; else the store URL in force (--store, $NUCLEO_STORE_URL,
    # the configuration's `store`); else the audit's own settings.
    url = resolved_store(store_url) if path is None and store_url else None
    if url is None and path is None and _audit_path_is_default():
        url = resolved_store(None)
    if url is not None:
        from nucleo_core.stores import open_audit

        return open_audit(url, create=False)
    try:
        file = path if path is not None else audit_settings().path
        return SQLiteAuditStore(file, create=False)  # opened, or found missing, when first read
    except AuditError as exc:
        raise CommandError(str(exc)) from exc


def _audit_path_is_default() -> bool:
    from nucleo_core.guard.audit import AuditError, audit_settings

    try:
        return audit_settings().origin == "default"
    except AuditError as exc:
        raise CommandError(str(exc)) from exc


def _read(store: AuditStore, query: AuditQuery) -> Iterable[AuditRecord]:
    from nucleo_core.guard.audit import AuditError

    try:
        yield from store.read(query)
    except AuditError as exc:
        raise CommandError(str(exc)) from exc


def _since(text: str | None) -> datetime | None:
    if text is None:
        return None
    relative = _RELATIVE.match(text.strip())
    if relative is not None:
        amount, unit = relative.groups()
        return datetime.now(UTC) - timedelta(**{_UNITS[unit]: int(amount)})
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CommandError(
            f"--since {text}: not a time; give an ISO 8601 time (2025-01-31T09:00, UTC unless "
            "it says) or an age (30s, 15m, 2h, 7d)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _print(records: Sequence[AuditRecord], as_json: bool) -> None:
    if as_json:
        for record in records:
            click.echo(_json_line(record))
        return
    if not records:
        click.echo("No audit records match.")
        return
    from rich.text import Text

    rows = [[Text(cell) for cell in _cells(record)] for record in records]
    render.print_grouped_table(_COLUMNS, [(None, rows)])
    click.echo()
    click.echo(f"{render.counted(len(records), 'record')}.")


def _follow(store: AuditStore, query: AuditQuery, as_json: bool) -> None:
    from nucleo_core.guard.audit import AuditError

    stop = threading.Event()
    try:
        for record in store.follow(query, poll_interval=0.25, stop=stop):
            # One line a record, flushed, so that a pipe (or `grep`) sees it as it comes.
            line = _json_line(record) if as_json else "  ".join(_cells(record))
            click.echo(line)
    except KeyboardInterrupt:
        stop.set()
    except AuditError as exc:
        raise CommandError(str(exc)) from exc


def _json_line(record: AuditRecord) -> str:
    import json

    return json.dumps(record.to_json(), ensure_ascii=False, separators=(", ", ": "))


def _cells(record: AuditRecord) -> list[str]:
    requester = record.requester
    thinker = ""
    if requester is not None:
        thinker = requester.thinker_class.rpartition(".")[2]
        if requester.thinker_id is not None:
            thinker += f"#{requester.thinker_id}"
    subject = record.tool or (f"skill {record.skill}" if record.skill else "")
    if record.tool and record.risk:
        subject += f" ({record.risk})"
    outcome = record.outcome or record.decision or ""
    if record.outcome and record.decision:
        outcome = f"{record.decision}: {record.outcome}"
    if record.duration is not None:
        outcome += f" {record.duration * 1000:.1f} ms"
    at = record.at.strftime("%Y-%m-%d %H:%M:%S")
    return [
        str(record.sequence),
        at,
        record.kind,
        thinker,
        subject,
        outcome.strip(),
        record.rule or "",
        record.reason or "",
    ]
