"""Where the audit record is kept: `open_audit` for a store URL, or the project's configured store.

A SQLite store is a file (the URL's folder's ``audit.sqlite3``, or the project's configured
path); a PostgreSQL one the URL's database. A backend's module is imported only when a store of
it is opened (``sqlite3``, ``psycopg``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from nucleo_core.guard.audit.settings import audit_settings
from nucleo_core.stores.url import StoreURL, as_store_url, resolve_store_url

if TYPE_CHECKING:
    from nucleo_core.guard.audit.store import AuditStore

__all__ = ["open_audit", "project_audit_store"]


def open_audit(url: StoreURL | str, *, create: bool = True) -> AuditStore:
    """The `AuditStore` of the store ``url``; ``create=False`` for a reader (see the stores)."""
    parsed = as_store_url(url)
    if parsed.backend == "postgresql":
        from nucleo_core.guard.audit.postgres_store import PostgresAuditStore

        return PostgresAuditStore(parsed.url, create=create)
    from nucleo_core.guard.audit.sqlite_store import SQLiteAuditStore

    return SQLiteAuditStore(parsed.sqlite_file("audit"), create=create)


def project_audit_store(
    path: str | os.PathLike[str] | None = None,
    *,
    start: str | os.PathLike[str] | None = None,
) -> tuple[AuditStore, bool]:
    """The project's audit store as configured (see `audit_settings`), and ``record_arguments``.

    What `AuditLog.open` opens: the SQLite file ``path``, else the configured one; without an
    audit path configured (nor ``$NUCLEO_AUDIT``), the project's store URL
    (``$NUCLEO_STORE_URL``, ``store`` in its configuration), PostgreSQL included.

    Raises:
        AuditConfigError: The configuration is malformed.
    """
    from nucleo_core.guard.audit.sqlite_store import SQLiteAuditStore

    settings = audit_settings(start)
    store: AuditStore
    if path is None and settings.origin == "default" and (url := resolve_store_url(start=start)):
        # The project's store URL (issue 17), when no audit path is configured.
        store = open_audit(url)
    else:
        store = SQLiteAuditStore(settings.path if path is None else path)
    return store, settings.record_arguments
