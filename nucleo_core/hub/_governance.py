"""A hub's permission guard and audit log, made from what the hub was given."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.guard.permission_guard import PermissionGuard
    from nucleo_core.guard.policy import PermissionPolicy
    from nucleo_core.plugins.host import PluginHost

__all__ = ["MEMORY_AUDIT_RECORDS", "guard_of", "memory_log"]

#: How many records the audit log a hub makes for itself (given none) keeps in memory.
MEMORY_AUDIT_RECORDS = 10_000


def memory_log() -> AuditLog:
    """The audit log of a hub given none: in memory, bounded."""
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.guard.audit.memory_store import MemoryAuditStore

    return AuditLog(MemoryAuditStore(max_records=MEMORY_AUDIT_RECORDS))


def guard_of(
    guard: PermissionGuard | PermissionPolicy | bool, plugins: PluginHost
) -> PermissionGuard | None:
    """The hub's guard: the default policy's, a policy's over the hub's hooks, or ``guard``."""
    if guard is False:
        return None
    from nucleo_core.guard.permission_guard import PermissionGuard
    from nucleo_core.guard.policy import PermissionPolicy

    if guard is True:
        return PermissionGuard(PermissionPolicy(), plugins)
    if isinstance(guard, PermissionGuard):
        return guard
    if isinstance(guard, PermissionPolicy):
        return PermissionGuard(guard, plugins)
    raise TypeError(
        "guard must be True (the default policy), False (no permission step), a "
        f"PermissionPolicy or a PermissionGuard, not {type(guard).__name__}"
    )
