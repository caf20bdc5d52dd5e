"""Where ``nucleo approvals`` (and what files approvals for it) keeps the approvals.

The approvals' SQLite file next to the durable conversations' file (``$NUCLEO_CONVERSATIONS``),
or ``$NUCLEO_APPROVALS``, or ``--path``; or the shared store ``--store URL`` (or
``$NUCLEO_STORE_URL``, or the project's ``store``) names. ``nucleo serve`` and ``nucleo mcp
serve`` file their approvals where ``nucleo approvals`` reads them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.store import resolved_store

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalStore
    from nucleo_core.stores import StoreURL

__all__ = ["approvals_path", "approvals_store", "approvals_store_url"]


def approvals_path(path: str | None) -> Path:
    """The approvals' file: ``path``, else the default next to the conversations' file."""
    if path is not None:
        return Path(path)
    from nucleo_core.conversations.service import default_store_path
    from nucleo_core.guard.approval_store import default_approvals_path

    return default_approvals_path(default_store_path())


def approvals_store(
    path: str | None, store_url: str | None = None, *, must_exist: bool = True
) -> ApprovalStore:
    """The approvals' store: the store URL's (`approvals_store_url`), else the SQLite file's.

    Raises:
        CommandError: ``must_exist`` and no approvals' file is kept at the path.
    """
    from nucleo_core.guard.approval_store import SQLiteApprovalStore

    url = approvals_store_url(path, store_url)
    if url is not None:
        from nucleo_core.stores import open_approvals

        return open_approvals(url)
    found = approvals_path(path)
    if must_exist and not found.exists():
        raise CommandError(f"no approvals are kept at {found} (no durable run has paused there)")
    return SQLiteApprovalStore(found)


def approvals_store_url(path: str | None, store_url: str | None) -> StoreURL | None:
    """The store URL the approvals are in, or ``None`` for the approvals' SQLite file.

    ``--store``; else, without ``--path`` nor ``$NUCLEO_APPROVALS``, the project's.
    """
    if path is not None:
        return None
    if store_url:
        return resolved_store(store_url)
    from nucleo_core.guard.approval_store import APPROVALS_ENVIRONMENT_VARIABLE

    if os.environ.get(APPROVALS_ENVIRONMENT_VARIABLE):
        return None
    return resolved_store(None)
