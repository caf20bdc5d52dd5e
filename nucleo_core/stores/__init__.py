"""Stores shared by many workers: the store URL, PostgreSQL's pool and schema versions.

- `resolve_store_url` / `parse_store_url`: one URL for conversations, approvals and the audit
  (``sqlite:///folder`` or ``postgresql://user@host/db``), from ``--store``,
  ``$NUCLEO_STORE_URL`` or ``store`` in ``[tool.nucleo]`` / ``nucleo.toml``.
- `open_conversations`, `open_approvals`, `open_audit`: each concern's store for a URL.
- `migrate_store`, `check_store`: what ``nucleo store migrate`` and ``nucleo store check`` do.

Importing this package imports neither ``sqlite3`` nor ``psycopg``: a PostgreSQL URL imports
psycopg (the extra ``nucleo-core[postgres]``) when a store of it is first opened.
"""

from nucleo_core.stores.errors import StoreError, StoreURLError, StoreVersionError
from nucleo_core.stores.opening import (
    COMPONENTS,
    ComponentState,
    check_store,
    migrate_store,
    open_approvals,
    open_audit,
    open_conversations,
)
from nucleo_core.stores.url import (
    STORE_ENVIRONMENT_VARIABLE,
    StoreURL,
    parse_store_url,
    resolve_store_url,
)

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
