"""`ApiService`: what the app serves, built once from a hub, the served tools and the stores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nucleo_core.server.audit_views import AuditReader
from nucleo_core.server.catalog import ServedCatalog
from nucleo_core.server.executions import Executions
from nucleo_core.server.settings import ServerSettings

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalStore
    from nucleo_core.guard.audit import AuditLog
    from nucleo_core.hub import ThinkerBase, ToolHub
    from nucleo_core.server.token import ApiToken
    from nucleo_core.tools.providers import ToolLike

__all__ = ["ApiService"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ApiService:
    """Everything a request reads: the catalog, the executions, the audit, the token.

    Build it with `ApiService.build`; `create_app` serves it.
    """

    hub: ToolHub
    audit_log: AuditLog | None
    catalog: ServedCatalog
    executions: Executions
    audit: AuditReader
    token: ApiToken
    settings: ServerSettings

    @classmethod
    def build(
        cls,
        *,
        hub: ToolHub,
        tools: Sequence[tuple[ToolLike, str]],
        thinkers: Sequence[type[ThinkerBase]],
        approvals: ApprovalStore,
        token: ApiToken,
        settings: ServerSettings | None = None,
        approval_expiry: float | None = None,
    ) -> ApiService:
        """The service over ``hub``.

        Args:
            hub: The hub whose guard decides and whose audit log records (``hub.audit``;
                ``None`` serves an empty audit).
            tools: The tools to serve (tool classes, function tools or providers), each with
                where it came from (shown as its ``origin``), in order.
            thinkers: The thinker classes whose palettes and catalogs are shown (their tools
                are served too).
            approvals: The durable approvals' store, shared with ``nucleo approvals``.
            token: The bearer token requests must bear.
            settings: The server's settings (the defaults when omitted).
            approval_expiry: Seconds an API execution's approval waits (default 24 hours).
        """
        from nucleo_core.guard.approval_store import DEFAULT_APPROVAL_EXPIRY

        settings = settings if settings is not None else ServerSettings()
        expiry = approval_expiry if approval_expiry is not None else DEFAULT_APPROVAL_EXPIRY
        from nucleo_core.tools.providers import provider_for

        listed = [(provider_for(tool), origin) for tool, origin in tools]
        executions = Executions(hub, approvals, expiry=expiry)
        catalog = ServedCatalog(hub, listed, thinkers, executions.caller)
        executions.serve(catalog.providers)  # the caller's palette holds every served tool
        return cls(
            hub=hub,
            catalog=catalog,
            executions=executions,
            audit_log=_log_of(hub),
            audit=AuditReader(_log_of(hub), stream_seconds=settings.stream_seconds),
            token=token,
            settings=settings,
        )


def _log_of(hub: ToolHub) -> AuditLog | None:
    """The hub's audit log (``None`` where a hub keeps none)."""
    return hub.audit
