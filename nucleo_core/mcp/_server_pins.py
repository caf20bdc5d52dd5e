"""How each listing of an MCP server is checked against its pinned tool definitions.

A tool whose definition changed since it was pinned is quarantined, never reaches the hub, and
is reported and recorded on the audit log (a ``refusal``); a store that cannot be read lets
nothing through. `MCPServers` holds this part with the others.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.mcp._server_part import ServerPart
from nucleo_core.mcp.errors import MCPPinError, MCPPinStoreError
from nucleo_core.mcp.pins import short_digest

if TYPE_CHECKING:
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.mcp.config import MCPServerConfig
    from nucleo_core.mcp.pins import PinStore, Quarantine

__all__ = ["ServerPins"]

logger = logging.getLogger("nucleo.mcp")


class ServerPins(ServerPart):
    """`MCPServers`' part that holds back the tools their pins do not allow."""

    _audit: AuditLog | None
    _checked: dict[str, tuple[tuple[Mapping[str, Any], ...], tuple[Mapping[str, Any], ...]]]
    _quarantines: dict[str, tuple[Quarantine, ...]]
    _audited: set[tuple[str, str, str]]

    if TYPE_CHECKING:

        def pin_store(self, server: str) -> PinStore: ...

    def _pinned(
        self, server: str, listed: tuple[Mapping[str, Any], ...]
    ) -> tuple[Mapping[str, Any], ...]:
        """The tools of ``listed`` its pins allow; the others are quarantined and reported."""
        config = self._pool.config(server)
        if not config.pin:
            return listed
        with self._lock:
            checked = self._checked.get(server)
        if checked is not None and checked[0] is listed:
            return checked[1]
        store = self.pin_store(server)
        try:
            check = store.check(server, listed, new_tools=config.new_tools)
        except MCPPinStoreError as exc:
            # Fail closed: nothing unchecked is offered. Not cached, so a fixed store is
            # read again at the next listing or catalog.
            held = store.unverified(server, listed)
            with self._lock:
                self._quarantines[server] = held
            self._report(server, None, "quarantined", exc)
            for quarantine in held:
                self._audit_quarantine(config, quarantine)
            return ()
        with self._lock:
            self._checked[server] = (listed, check.allowed)
            self._quarantines[server] = check.quarantined
        if check.first and listed:
            logger.info(
                "MCP server '%s': %d tool definitions pinned in %s",
                server,
                len(listed),
                store.path,
            )
        for tool in check.new:
            self._report(
                server,
                tool,
                "new_tool",
                MCPPinError(
                    f"MCP server '{server}' lists a new tool '{tool}' since its tools were "
                    'pinned; it was pinned and is offered (new_tools = "allow"). Set '
                    'new_tools = "quarantine" to withhold new tools until accepted'
                ),
                strict=False,
            )
        for quarantine in check.quarantined:
            self._report(
                server,
                quarantine.tool,
                "quarantined",
                MCPPinError(f"{quarantine.summary()} (now {short_digest(quarantine.digest)})"),
            )
            self._audit_quarantine(config, quarantine)
        return check.allowed

    def _audit_quarantine(self, config: MCPServerConfig, quarantine: Quarantine) -> None:
        """Record a quarantine in the hub's audit log (or the one given), once per definition."""
        hub = self._hub
        log = getattr(hub, "audit", None) if hub is not None else None
        log = log if log is not None else self._audit
        key = (quarantine.server, quarantine.tool, quarantine.digest)
        with self._lock:
            if log is None or key in self._audited:
                return
            self._audited.add(key)
        from nucleo_core.guard.audit.events import AuditEvent, DeveloperDetails

        summary = quarantine.summary()
        try:
            log.record(
                AuditEvent(
                    kind="refusal",
                    tool=config.tool_name(quarantine.tool),
                    source=f"mcp:{quarantine.server}:{quarantine.tool}",
                    rule=f"mcp.servers.{quarantine.server}.pin",
                    reason=summary,
                    # The published text stays out of `reason`: it is the server's, written
                    # perhaps to steer a model, and kept for the people who review it.
                    developer=DeveloperDetails(
                        exception_type="nucleo_core.mcp.pins.Quarantine",
                        message=f"{summary}\n{quarantine.digest}\n{quarantine.diff}".rstrip(),
                    ),
                )
            )
        except Exception:  # the log failing must not let the tool through, nor stop the rest
            logger.exception(
                "recording the quarantine of '%s' on MCP server '%s' failed",
                quarantine.tool,
                quarantine.server,
            )
