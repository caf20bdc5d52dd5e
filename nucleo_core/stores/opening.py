"""Each concern's store for a store URL, and what ``nucleo store migrate/check`` do.

A SQLite URL names a folder of one file per concern; a PostgreSQL URL one database for all
three. The modules of a backend are imported only when a store of it is opened.

`open_approvals` and `open_audit` are their stores' own (`nucleo_core.guard.approval_store`,
`nucleo_core.guard.audit.opening`), re-exported here when first asked for: the guard imports
the store URL (`nucleo_core.stores.url`), and this package with it, as it is imported itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from nucleo_core.stores.errors import StoreError
from nucleo_core.stores.url import StoreURL, as_store_url

if TYPE_CHECKING:
    from nucleo_core.conversations.service import ConversationService
    from nucleo_core.guard.approval_store import open_approvals
    from nucleo_core.guard.audit.opening import open_audit

__all__ = [
    "COMPONENTS",
    "ComponentState",
    "check_store",
    "migrate_store",
    "open_approvals",
    "open_audit",
    "open_conversations",
]

#: The concerns a store keeps, in the order they are migrated and checked.
COMPONENTS: Final = ("conversations", "approvals", "audit")


def open_conversations(url: StoreURL | str, *, wait: float = 0.0) -> ConversationService:
    """A `ConversationService` on the store ``url``.

    Args:
        url: The store URL.
        wait: How long opening a conversation held elsewhere waits (PostgreSQL), in seconds.
    """
    from nucleo_core.conversations.service import ConversationService

    parsed = as_store_url(url)
    if parsed.backend == "postgresql":
        return ConversationService(parsed.url, wait=wait)
    return ConversationService(parsed.sqlite_file("conversations"), wait=wait)


@dataclass(frozen=True, slots=True, kw_only=True)
class ComponentState:
    """One concern's schema in a store.

    Attributes:
        component: ``conversations``, ``approvals`` or ``audit``.
        found: Its version in the store (``0``: no tables yet).
        latest: The version this nucleo writes.
    """

    component: str
    found: int
    latest: int

    @property
    def status(self) -> str:
        """``current``, ``behind`` (``nucleo store migrate`` brings it), ``newer`` or ``absent``."""
        if self.found == 0:
            return "absent"
        if self.found > self.latest:
            return "newer"
        return "current" if self.found == self.latest else "behind"


def _latest() -> dict[str, int]:
    from nucleo_core.conversations.postgres_store import MIGRATIONS as CONVERSATIONS
    from nucleo_core.guard.audit.postgres_store import MIGRATIONS as AUDIT
    from nucleo_core.guard.postgres_approval_store import MIGRATIONS as APPROVALS

    return {
        "conversations": len(CONVERSATIONS),
        "approvals": len(APPROVALS),
        "audit": len(AUDIT),
    }


def check_store(url: StoreURL | str) -> list[ComponentState]:
    """Every concern's schema version in the PostgreSQL store ``url``, nothing changed.

    Raises:
        StoreError: The URL is not a PostgreSQL one, or the store cannot be reached.
    """
    parsed = _postgres(url)
    from nucleo_core.stores.postgres import database

    found = database(parsed).versions(StoreError)
    latest = _latest()
    return [
        ComponentState(component=name, found=found.get(name, 0), latest=latest[name])
        for name in COMPONENTS
    ]


def migrate_store(url: StoreURL | str) -> list[ComponentState]:
    """Create or migrate every concern's tables in the PostgreSQL store ``url``.

    Returns:
        Each concern's state before the migration (``found``) and after (``latest``).

    Raises:
        StoreVersionError: A concern's tables are newer than this nucleo (nothing is changed
            for it, nor for the concerns after it).
        StoreError: The URL is not a PostgreSQL one, or the store cannot be reached.
    """
    parsed = _postgres(url)
    from nucleo_core.conversations.postgres_store import PostgresConversationStore
    from nucleo_core.guard.audit.postgres_store import PostgresAuditStore
    from nucleo_core.guard.postgres_approval_store import PostgresApprovalStore

    latest = _latest()
    before = [
        PostgresConversationStore(parsed.url).migrate(),
        PostgresApprovalStore(parsed.url).migrate(),
        PostgresAuditStore(parsed.url).migrate(),
    ]
    return [
        ComponentState(component=name, found=found, latest=latest[name])
        for name, found in zip(COMPONENTS, before, strict=True)
    ]


def _postgres(url: StoreURL | str) -> StoreURL:
    parsed = as_store_url(url)
    if parsed.backend != "postgresql":
        raise StoreError(
            f"{parsed}: a SQLite store migrates each file when it is first opened; "
            "`nucleo store migrate` and `check` are for a postgresql:// store"
        )
    return parsed


def __getattr__(name: str) -> Any:
    return _opener(name, __name__)


def _opener(name: str, module: str) -> Any:
    """`open_approvals` or `open_audit`, from their stores' modules (see the module's text)."""
    if name == "open_approvals":
        from nucleo_core.guard.approval_store import open_approvals

        return open_approvals
    if name == "open_audit":
        from nucleo_core.guard.audit.opening import open_audit

        return open_audit
    raise AttributeError(f"module {module!r} has no attribute {name!r}")
