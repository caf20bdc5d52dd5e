"""The errors of opening a shared store.

::

    MisuseError
    └── StoreError                 a store cannot be opened or used
        ├── StoreURLError          the store URL is malformed, or of an unknown scheme
        └── StoreVersionError      the store was written by a later nucleo (schema too new)
"""

from __future__ import annotations

from dataclasses import InitVar

from nucleo_core._error_details import keeps_details
from nucleo_core.errors import MisuseError

__all__ = ["StoreError", "StoreURLError", "StoreVersionError"]


class StoreError(MisuseError):
    """A store (conversations, approvals, the audit) cannot be opened or used."""


class StoreURLError(StoreError):
    """The store URL is malformed or names a backend nucleo does not have."""


@keeps_details
class StoreVersionError(StoreError):
    """The store's schema is newer than this nucleo reads: upgrade nucleo-core to open it.

    Attributes:
        component: The concern whose tables are too new (``conversations``...).
        found: The schema version in the store.
        supported: The latest version this nucleo reads.
    """

    where: InitVar[str]
    component: str
    found: int
    supported: int

    def __post_init__(self, where: str) -> None:
        super().__init__(
            f"the {self.component} store {where} has schema version {self.found}, newer than "
            f"this nucleo reads (up to {self.supported}); upgrade nucleo-core (every worker "
            "sharing the store must run a nucleo at least as recent as the one that migrated it)"
        )
