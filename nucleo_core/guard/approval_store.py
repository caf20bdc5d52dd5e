"""Durable approvals: the `ApprovalStore` that keeps a paused run's pending approvals.

A run whose ``confirm``-level call finds no inline approver (or an approver that defers)
pauses when its conversation is durable (`nucleo_core.errors.RunPaused`): each pending call
becomes an `ApprovalRecord` in a store that any process can read and decide. Each approval is
decided **exactly once**: `ApprovalStore.approve` and `ApprovalStore.reject` are conditional
updates (``pending`` and not expired → decided), and deciding one that is no longer pending
raises `ApprovalAlreadyDecided` (or `ApprovalExpired`) saying what it is and how it got there.
A resumed run **claims** an approved call before it runs it (``approved`` → ``consumed``, also
conditional), so the call runs once even when the run is resumed twice.

The statuses::

    pending ──approve──▶ approved ──claim (the resumed run)──▶ consumed
       │ └───reject───▶ rejected
       └──(expires_at passes)──▶ expired      (read as expired; never written)

Expiry bounds the *decision*: a pending approval past its ``expires_at`` reads as
``expired`` and can no longer be decided; an approval decided in time stays decided.

`SQLiteApprovalStore` (``nucleo_core.guard.sqlite_approval_store``) is the default:
``approvals.sqlite3`` next to the durable conversations' file (`default_approvals_path`), or
``$NUCLEO_APPROVALS``. `MemoryApprovalStore` (``nucleo_core.guard.memory_approval_store``)
serves tests and in-memory conversation services. ``sqlite3`` is imported only when a SQLite
store opens. `PostgresApprovalStore` (``nucleo_core.guard.postgres_approval_store``) keeps
them in PostgreSQL for many workers; `approvals_beside` picks the one that goes with a
conversations' store, `open_approvals` the one of a store URL.

This module keeps the `ApprovalStore` protocol and where a store is; the record, its statuses
and its errors are `nucleo_core.guard.approval_record`'s, re-exported here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

from nucleo_core.guard import approval_record
from nucleo_core.guard.approval_record import *  # noqa: F403 (its names are this module's too)
from nucleo_core.guard.approval_record import ApprovalRecord, ApprovalStatus
from nucleo_core.guard.memory_approval_store import MemoryApprovalStore
from nucleo_core.guard.sqlite_approval_store import SQLiteApprovalStore
from nucleo_core.stores.url import StoreURL, as_store_url

__all__ = [
    "APPROVALS_ENVIRONMENT_VARIABLE",
    "DEFAULT_APPROVAL_EXPIRY",
    "ApprovalStore",
    "MemoryApprovalStore",
    "SQLiteApprovalStore",
    "approvals_beside",
    "default_approvals_path",
    "open_approvals",
]
# The record, its statuses and its errors, as `approval_record` exports them.
__all__ += approval_record.__all__

#: Names the approvals' SQLite file, over the default next to the conversations' file.
APPROVALS_ENVIRONMENT_VARIABLE: Final = "NUCLEO_APPROVALS"
#: The approvals' file name, in the folder of the conversations' file.
APPROVALS_FILE_NAME: Final = "approvals.sqlite3"
#: How long a pending approval may wait for its decision, in seconds: 24 hours.
DEFAULT_APPROVAL_EXPIRY: Final = 24 * 60 * 60.0


@runtime_checkable
class ApprovalStore(Protocol):
    """Where pending approvals are kept and decided; safe across threads and processes.

    Every method reads and writes the shared store itself (nothing is cached), so a decision
    made by one process is what every other reads next.
    """

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records``, all or none; a record whose id is kept already is left as it is."""
        ...

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        ...

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals, oldest request first.

        Only those of ``status`` (as read now) and of ``conversation_id``, when given.
        """
        ...

    def approve(
        self,
        approval_id: str,
        *,
        by: str = "",
        note: str = "",
        content: Mapping[str, Any] | None = None,
    ) -> ApprovalRecord:
        """Approve a pending approval, once.

        ``content`` is the answer to an ``elicitation`` approval (checked against its
        requested schema); a call's approval takes none.

        Raises:
            ApprovalNotFound: No such approval.
            ApprovalAlreadyDecided: It was decided before.
            ApprovalExpired: It expired undecided.
            ApprovalError: ``content`` does not fit (each problem named, never the value).
        """
        ...

    def reject(self, approval_id: str, reason: str, *, by: str = "") -> ApprovalRecord:
        """Reject a pending approval, once; ``reason`` is what the model reads.

        Raises:
            ApprovalNotFound: No such approval.
            ApprovalAlreadyDecided: It was decided before.
            ApprovalExpired: It expired undecided.
        """
        ...

    def claim(self, approval_id: str) -> bool:
        """Mark an approved approval consumed, before its call runs.

        ``True`` for the one claimer that moved it from ``approved``, ``False`` for everyone
        else (it was consumed already, or is not approved).
        """
        ...

    def close(self) -> None:
        """Release what the store holds open (closing twice is harmless)."""
        ...


def default_approvals_path(conversations_path: str | os.PathLike[str]) -> Path:
    """Where approvals are kept for a conversations' file.

    ``$NUCLEO_APPROVALS`` when set, else ``approvals.sqlite3`` in the folder of
    ``conversations_path``.
    """
    configured = os.environ.get(APPROVALS_ENVIRONMENT_VARIABLE)
    if configured:
        return Path(configured).expanduser()
    return Path(conversations_path).expanduser().with_name(APPROVALS_FILE_NAME)


def approvals_beside(conversations_path: str) -> ApprovalStore:
    """The approvals' store that goes with a conversations' store.

    For a ``postgresql://`` URL, the same database (`PostgresApprovalStore`); for
    ``":memory:"``, a new `MemoryApprovalStore`; else a `SQLiteApprovalStore` at
    `default_approvals_path`.
    """
    if conversations_path.startswith(("postgresql://", "postgres://")):
        # Imported here: only a PostgreSQL URL imports psycopg.
        from nucleo_core.guard.postgres_approval_store import PostgresApprovalStore

        return PostgresApprovalStore(conversations_path)
    if conversations_path == ":memory:":
        return MemoryApprovalStore()
    return SQLiteApprovalStore(default_approvals_path(conversations_path))


def open_approvals(url: StoreURL | str) -> ApprovalStore:
    """The `ApprovalStore` of the store ``url`` (`nucleo_core.stores`)."""
    parsed = as_store_url(url)
    if parsed.backend == "postgresql":
        from nucleo_core.guard.postgres_approval_store import PostgresApprovalStore

        return PostgresApprovalStore(parsed.url)
    return SQLiteApprovalStore(parsed.sqlite_file("approvals"))
