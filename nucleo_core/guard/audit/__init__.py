"""The audit record: every grant, refusal, decision, approval and call, hash-chained.

An operator asks "what did this agent do, and who allowed it?"; the audit record answers. The
hub and the call door describe what happens as `AuditEvent` objects and hand them to an
`AuditLog`, which stamps each with the time and queues it; its `AuditStore` numbers each
record, chains it to the one before (`AuditRecord.digest`) and keeps it: `SQLiteAuditStore`
by default (a file in the project's ``.nucleo/`` folder), `MemoryAuditStore` for tests.
`AuditLog.verify` (and ``nucleo audit verify``) names the first record that was edited,
deleted or reordered.

Arguments are recorded as the digest of their canonical JSON (`arguments_digest`), in full only
when the log is configured to (``record_arguments``); what a tool's or a hook's exception said
is kept in `DeveloperDetails`, which no model is ever shown.

``sqlite3`` is imported only when `SQLiteAuditStore` is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nucleo_core.guard.audit.canonical import arguments_digest, canonical_json
from nucleo_core.guard.audit.errors import (
    AuditConfigError,
    AuditError,
    AuditStoreError,
    AuditValueError,
)
from nucleo_core.guard.audit.events import (
    AUDIT_KINDS,
    CALL_OUTCOMES,
    DECISIONS,
    AuditEvent,
    AuditKind,
    CallOutcome,
    Decision,
    DeveloperDetails,
    Requester,
)
from nucleo_core.guard.audit.log import AuditLog
from nucleo_core.guard.audit.memory_store import MemoryAuditStore
from nucleo_core.guard.audit.records import GENESIS_DIGEST, AuditRecord
from nucleo_core.guard.audit.settings import (
    AUDIT_ENVIRONMENT_VARIABLE,
    AuditSettings,
    audit_settings,
    project_folder,
)
from nucleo_core.guard.audit.store import AuditQuery, AuditStore
from nucleo_core.guard.audit.verify import VerifyReport

if TYPE_CHECKING:
    from nucleo_core.guard.audit.sqlite_store import SQLiteAuditStore

__all__ = [
    "AUDIT_ENVIRONMENT_VARIABLE",
    "AUDIT_KINDS",
    "CALL_OUTCOMES",
    "DECISIONS",
    "GENESIS_DIGEST",
    "AuditConfigError",
    "AuditError",
    "AuditEvent",
    "AuditKind",
    "AuditLog",
    "AuditQuery",
    "AuditRecord",
    "AuditSettings",
    "AuditStore",
    "AuditStoreError",
    "AuditValueError",
    "CallOutcome",
    "Decision",
    "DeveloperDetails",
    "MemoryAuditStore",
    "Requester",
    "SQLiteAuditStore",
    "VerifyReport",
    "arguments_digest",
    "audit_settings",
    "canonical_json",
    "project_folder",
]


def __getattr__(name: str) -> Any:
    # `SQLiteAuditStore` imports sqlite3, which a process that never audits to disk skips.
    if name == "SQLiteAuditStore":
        from nucleo_core.guard.audit.sqlite_store import SQLiteAuditStore

        return SQLiteAuditStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
