"""The project's governance on a command's hub: its permission guard and its audit record.

``nucleo run``, ``chat``, ``resume``, ``serve`` and ``mcp serve`` govern their hub the same
way: `guard_the_hub` gives it the project's guard configuration, `audit_the_hub` the record
``nucleo audit`` reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nucleo_core.cli.command_error import CommandError

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub
    from nucleo_core.stores import StoreURL

__all__ = ["audit_the_hub", "guard_the_hub"]


def guard_the_hub(hub: ToolHub, *, only_if_configured: bool = False) -> None:
    """Give ``hub`` the project's permission guard (`discover_guard_config`).

    A hub has the default policy's guard from the start; the project's configuration, when it
    declares one, takes its place.

    Args:
        hub: The command's hub.
        only_if_configured: Only when the project declares a guard configuration (``nucleo
            run`` and ``nucleo chat``); else the configuration's defaults too (``nucleo
            resume``).

    Raises:
        CommandError: The project's guard configuration is malformed.
    """
    from nucleo_core.guard import GuardConfigError, PermissionGuard, discover_guard_config

    try:
        config = discover_guard_config()
    except GuardConfigError as exc:
        raise CommandError(str(exc)) from exc
    if only_if_configured and config.project is None:
        return
    hub.guard = PermissionGuard(config.policy, hub.plugins, hook_timeout=config.hook_timeout)


def audit_the_hub(hub: ToolHub, store_url: StoreURL | str | None = None) -> None:
    """Give ``hub`` the project's audit record, closed with the hub.

    Every grant, refusal, decision and call of the command's run goes on the record that
    `nucleo audit` reads: the store ``store_url`` names (``--store``), else the project's
    (`AuditLog.open`: ``.nucleo/audit.sqlite3``, or the configured path or store URL).

    Raises:
        CommandError: The record cannot be opened, or is not one (the message says which).
    """
    from nucleo_core.guard.audit import AuditError, AuditLog
    from nucleo_core.stores import StoreError

    try:
        if store_url is None:
            log = AuditLog.open()
        else:
            from nucleo_core.stores import open_audit

            log = AuditLog(open_audit(store_url))
    except (AuditError, StoreError) as exc:
        raise CommandError(str(exc)) from exc
    hub.audit = log
    hub.on_close(log.close)
