"""Stores shared by many workers: the store URL, PostgreSQL's pool and schema versions.

- `resolve_store_url` / `parse_store_url`: one URL for conversations, approvals and the audit
  (``sqlite:///folder`` or ``postgresql://user@host/db``), from ``--store``,
  ``$NUCLEO_STORE_URL`` or ``store`` in ``[tool.nucleo]`` / ``nucleo.toml``.
- `open_conversations`, `open_approvals`, `open_audit`: each concern's store for a URL.
- `migrate_store`, `check_store`: what ``nucleo store migrate`` and ``nucleo store check`` do.

Importing this package imports neither ``sqlite3`` nor ``psycopg``: a PostgreSQL URL imports
psycopg (the extra ``nucleo-core[postgres]``) when a store of it is first opened.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from nucleo_core.stores.errors import StoreError, StoreURLError, StoreVersionError
from nucleo_core.stores.url import (
    STORE_ENVIRONMENT_VARIABLE,
    StoreURL,
    parse_store_url,
    resolve_store_url,
)

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import open_approvals
    from nucleo_core.guard.audit.opening import open_audit
    from nucleo_core.stores.opening import (
        COMPONENTS,
        ComponentState,
        check_store,
        migrate_store,
        open_conversations,
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


#: What `nucleo_core.stores.opening` holds, imported on first use: the guard reads store URLs
#: (`nucleo_core.stores.url`) as ``import nucleo_core`` runs, and opening stores waits for a use.
_OPENING = frozenset(
    ("COMPONENTS", "ComponentState", "check_store", "migrate_store", "open_conversations")
)


def __getattr__(name: str) -> Any:
    opening = import_module("nucleo_core.stores.opening")
    if name in _OPENING:
        return getattr(opening, name)
    # `open_approvals` and `open_audit`, from their stores' modules (see `stores.opening`).
    return opening._opener(name, __name__)
