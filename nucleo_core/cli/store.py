"""``--store URL`` for the commands that read or write state, and ``nucleo store``.

``nucleo store migrate`` creates or migrates every concern's tables in a PostgreSQL store (one
process, once, before the workers start: they would otherwise migrate on first use, under the
same advisory lock); ``nucleo store check`` prints each concern's schema version and exits 1
when one is behind, newer than this nucleo, or absent. Both take the URL from ``--store``,
``$NUCLEO_STORE_URL`` or ``store`` in the project's configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.command_error import CommandError

if TYPE_CHECKING:
    from nucleo_core.stores import ComponentState, StoreURL

__all__ = ["resolved_store", "store", "store_option"]


def store_option(command: Any) -> Any:
    """Add ``--store URL`` to ``command``."""
    return click.option(
        "--store",
        "store_url",
        metavar="URL",
        help=(
            "Where conversations, approvals and the audit are kept: sqlite:///folder or "
            "postgresql://user@host/db. Default: $NUCLEO_STORE_URL, else `store` in "
            "[tool.nucleo] / nucleo.toml, else each one's SQLite file."
        ),
    )(command)


def resolved_store(given: str | None) -> StoreURL | None:
    """The store URL in force (see `resolve_store_url`); a bad one is a `CommandError`."""
    from nucleo_core.stores import StoreError, resolve_store_url

    try:
        return resolve_store_url(given)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc


def _postgres(given: str | None) -> StoreURL:
    url = resolved_store(given)
    if url is None:
        raise CommandError(
            "no store URL: give --store postgresql://user@host/db, or set $NUCLEO_STORE_URL"
        )
    return url


def _states(
    given: str | None, read: Callable[[StoreURL], list[ComponentState]]
) -> tuple[StoreURL, list[ComponentState]]:
    """The PostgreSQL store's URL, and what ``read`` says of its concerns' schemas.

    Raises:
        CommandError: No store URL is given, or the store cannot be read (or migrated).
    """
    from nucleo_core.stores import StoreError

    url = _postgres(given)
    try:
        return url, read(url)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc


@click.group()
def store() -> None:
    """Create, migrate and check a shared (PostgreSQL) store."""


@store.command()
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
def migrate(store_url: str | None, as_json: bool) -> None:
    """Create or migrate the tables of conversations, approvals and the audit."""
    from nucleo_core.stores import migrate_store

    url, states = _states(store_url, migrate_store)
    if as_json:
        render.print_json(
            {"store": str(url), "migrated": [_state_json(state, before=True) for state in states]}
        )
        return
    for state in states:
        if state.found == state.latest:
            click.echo(f"{state.component}: at version {state.latest}, nothing to do")
        else:
            click.echo(f"{state.component}: migrated from version {state.found} to {state.latest}")


@store.command()
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")
@click.pass_context
def check(ctx: click.Context, store_url: str | None, as_json: bool) -> None:
    """Print each concern's schema version; exit 1 unless every one is current."""
    from nucleo_core.stores import check_store

    url, states = _states(store_url, check_store)
    if as_json:
        render.print_json({"store": str(url), "components": [_state_json(s) for s in states]})
    else:
        advice = {
            "current": "",
            "behind": " (run `nucleo store migrate`)",
            "absent": " (run `nucleo store migrate`)",
            "newer": " (written by a later nucleo: upgrade nucleo-core)",
        }
        for state in states:
            click.echo(
                f"{state.component}: version {state.found} of {state.latest}, "
                f"{state.status}{advice[state.status]}"
            )
    if any(state.status != "current" for state in states):
        ctx.exit(1)


def _state_json(state: Any, *, before: bool = False) -> dict[str, Any]:
    found = "from_version" if before else "version"
    return {
        "component": state.component,
        found: state.found,
        "latest": state.latest,
        "status": "current" if before else state.status,
    }
