"""Stores shared by many workers: the store URL, PostgreSQL's pool and schema versions.

- `resolve_store_url` / `parse_store_url`: one URL for conversations, approvals and the audit
  (``sqlite:///folder`` or ``postgresql://user@host/db``), from ``--store``,
  ``$NUCLEO_STORE_URL`` or ``store`` in ``[tool.nucleo]`` / ``nucleo.toml``.
- `open_conversations`, `open_approvals`, `open_audit`: each concern's store for a URL.
- `migrate_store`, `check_store`: what ``nucleo store migrate`` and ``nucleo store check`` do.

Importing this package imports neither ``sqlite3`` nor ``psycopg``: a PostgreSQL URL imports
psycopg (the extra ``nucleo-core[postgres]``) when a store of it is first opened.
"""

from typing import TYPE_CHECKING, Any

from nucleo_core.stores.errors import StoreError, StoreURLError, StoreVersionError
from nucleo_core.stores.opening import (
    COMPONENTS,
    ComponentState,
    _opener,
    check_store,
    migrate_store,
    open_conversations,
)
from nucleo_core.stores.url import (
    STORE_ENVIRONMENT_VARIABLE,
    StoreURL,
    parse_store_url,
    resolve_store_url,
)

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import open_approvals
    from nucleo_core.guard.audit.opening import open_audit

__all__ = [
    "COMPONENTS",
    "STORE_ENVIRONMENT_VARIABLE",
    "ComponentState",
    "StoreError",
    "StoreURL",
    "StoreURLError",
    "StoreVersionError",
    "check_store",
    "migrate_store",
    "open_approvals",
    "open_audit",
    "open_conversations",
    "parse_store_url",
    "resolve_store_url",
]


def __getattr__(name: str) -> Any:
    # `open_approvals` and `open_audit`, imported on first use (see `nucleo_core.stores.opening`).
    return _opener(name, __name__)
