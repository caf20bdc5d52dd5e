"""`MCPServers`: the configured MCP servers, their tools as providers, and their place in a hub.

A server's tools are registered on connect and follow its listing: a ``tools/list_changed``
(or a restart) re-lists it, and the tools it added widen the catalogs that hold its tools while
those it withdrew narrow them. Which thinkers see the tools is the server's ``thinkers``
setting: every thinker (system-wide tools), listed thinker classes, or thinkers whose selector
names the server (their catalogs).

A tool name is never taken silently (collisions are reported with their fix: see
`nucleo_core.mcp._server_listings`), and every listing is checked against the pinned tool
definitions first (`nucleo_core.mcp.pins`; `nucleo_core.mcp._server_pins`). Problems are
reported (`problems`, and logged), never fatal unless ``strict``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from nucleo_core._closing import AsyncClosesOnExit, ClosesOnExit
from nucleo_core.mcp._server_catalogs import CatalogHook, ServerCatalogs
from nucleo_core.mcp._server_listings import ServerListings
from nucleo_core.mcp._server_pins import ServerPins
from nucleo_core.mcp.config import MCPServerConfig, discover_servers
from nucleo_core.mcp.errors import (
    MCPServerUnavailable,
)
from nucleo_core.mcp.pins import Pin, PinStore, Quarantine, pin_store_path
from nucleo_core.mcp.pool import MCPClientPool
from nucleo_core.mcp.provider import MCPToolProvider
from nucleo_core.mcp.report import MCPProblem
from nucleo_core.tools.registry import ShadowRecord

if TYPE_CHECKING:
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.mcp.elicitation import ElicitationAnswerer
    from nucleo_core.mcp.sampling import Sampler
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["MCPServers", "connect_to_hub"]


class MCPServers(ServerListings, ServerPins, ServerCatalogs, ClosesOnExit, AsyncClosesOnExit):
    """The configured MCP servers, their client pool, and their tools as providers.

    Example:
        >>> from nucleo_core import ToolHub
        >>> servers = MCPServers([])  # or MCPServers.from_config()
        >>> servers.connect_to_hub(ToolHub()).problems
        ()
        >>> servers.close()

    A server configured ``disabled = true`` is kept in `configs` but never started, and its
    tools are not registered.

    Args:
        servers: The server configurations.
        pool: The client pool to use; a new one for ``servers`` when omitted (``servers`` is
            then ignored in favour of the pool's, and so are the three answerers below).
        elicitation: Answers the servers' elicitation requests (see `MCPClientPool`);
            ``None`` declines every one.
        sampler: Serves the sampling requests the configuration allows (see
            `MCPClientPool`).
        audit: Where sampling decisions are recorded (see `MCPClientPool`), and quarantined
            tools when the hub bound has no audit log of its own.
        pins: The pin store every server's tools are checked against; by default each
            server's own (`pin_store_path`: its ``pin_store``, else the project's
            ``.nucleo/mcp_pins.sqlite3``). Servers configured ``pin = false`` are not checked.
    """

    def __init__(
        self,
        servers: Iterable[MCPServerConfig] = (),
        *,
        pool: MCPClientPool | None = None,
        elicitation: ElicitationAnswerer | None = None,
        sampler: Sampler | None = None,
        audit: AuditLog | None = None,
        pins: PinStore | None = None,
    ) -> None:
        self._pool = (
            pool
            if pool is not None
            else MCPClientPool(servers, elicitation=elicitation, sampler=sampler, audit=audit)
        )
        self._lock = threading.RLock()
        self._hub: ToolHub | None = None
        self._bound: dict[str, dict[str, MCPToolProvider]] = {}
        self._claims: dict[str, str] = {}
        self._blocked: dict[str, set[str]] = {}
        self._catalog_classes: dict[str, set[type[Any]]] = {}
        self._shadowed_natives: dict[str, ToolProvider] = {}
        self._shadow_records: list[ShadowRecord] = []
        self._problems: list[MCPProblem] = []
        self._errors: list[Exception] = []
        self._seen: set[tuple[str, str | None, str]] = set()
        self._audit = audit
        self._pins = pins
        self._stores: dict[Path, PinStore] = {}
        # Per server: the last listing checked against its pins, and what that check allowed
        # (a catalog resolved again must not open the store again for the same listing).
        self._checked: dict[
            str, tuple[tuple[Mapping[str, Any], ...], tuple[Mapping[str, Any], ...]]
        ]
        self._checked = {}
        self._quarantines: dict[str, tuple[Quarantine, ...]] = {}
        self._audited: set[tuple[str, str, str]] = set()
        # Cleared while `connect_to_hub` registers listings in configuration order, so that a
        # listing delivered meanwhile cannot claim a name out of that order.
        self._settled = threading.Event()
        self._settled.set()
        self._pool.add_listener(self._on_listing)

    @classmethod
    def from_config(cls, start: str | os.PathLike[str] | None = None) -> MCPServers:
        """The servers configured for the project nearest to ``start`` (the working directory).

        See `discover_servers` for where they are read from.

        Raises:
            MCPConfigError: A configuration file is malformed.
        """
        return cls(discover_servers(start))

    # -- what there is ------------------------------------------------------------------------

    @property
    def pool(self) -> MCPClientPool:
        """The client pool every call goes through."""
        return self._pool

    @property
    def configs(self) -> Mapping[str, MCPServerConfig]:
        """The server configurations, by id, in configuration order."""
        return self._pool.configs

    @property
    def problems(self) -> tuple[MCPProblem, ...]:
        """Every problem reported so far (each once), oldest first."""
        with self._lock:
            return tuple(self._problems)

    @property
    def shadowed(self) -> tuple[ShadowRecord, ...]:
        """Every native system-wide tool a server tool replaced deliberately (``shadow``)."""
        with self._lock:
            return tuple(self._shadow_records)

    def quarantined(self, server: str | None = None) -> tuple[Quarantine, ...]:
        """The tools withheld from ``server``'s latest listing (every server's by default).

        Each says why (`Quarantine.reason`), what changed (`Quarantine.diff`), and how to
        accept it; none of them reached the hub.
        """
        with self._lock:
            names = [server] if server is not None else list(self.configs)
            return tuple(q for name in names for q in self._quarantines.get(name, ()))

    def pin_store(self, server: str) -> PinStore:
        """The pin store ``server``'s tools are checked against (see the class)."""
        config = self._pool.config(server)
        if self._pins is not None:
            return self._pins
        path = pin_store_path(config)
        with self._lock:
            return self._stores.setdefault(path, PinStore(path))

    def accept_pin(self, server: str, tool: str, *, digest: str | None = None) -> Pin:
        """Accept the quarantined definition of ``tool`` (`PinStore.accept`) and offer it.

        The server's latest listing is checked again at once, so the tool joins the catalogs
        that hold the server's tools if it still publishes the accepted definition.

        Raises:
            MCPPinError: Nothing of that name is quarantined, or not under ``digest``.
            MCPPinStoreError: The store cannot be used.
        """
        pin = self.pin_store(server).accept(server, tool, digest=digest)
        with self._lock:
            self._checked.pop(server, None)
        self._refresh(server)
        return pin

    def providers(self, server: str | None = None) -> tuple[MCPToolProvider, ...]:
        """The providers registered for ``server`` (every server by default), in listing order.

        A server not started yet has none; `start` starts it.
        """
        with self._lock:
            names = [server] if server is not None else list(self.configs)
            return tuple(p for name in names for p in self._bound.get(name, {}).values())

    def start(self, server: str) -> tuple[MCPToolProvider, ...]:
        """Start ``server`` if needed and return its providers; blocks.

        Raises:
            MCPServerUnavailable: It did not start (also reported in `problems`).
        """
        try:
            self._pool.start(server)
        except MCPServerUnavailable as exc:
            self._report(server, None, "unavailable", exc, log=False)
            raise
        self._refresh(server)
        return self.providers(server)

    async def astart(self, server: str) -> tuple[MCPToolProvider, ...]:
        """`start`, awaitable: on the pool's home loop the server starts there, unblocked.

        Raises:
            MCPServerUnavailable: It did not start (also reported in `problems`).
        """
        try:
            await self._pool.astart(server)
        except MCPServerUnavailable as exc:
            self._report(server, None, "unavailable", exc, log=False)
            raise
        self._refresh(server)
        return self.providers(server)

    # -- binding ------------------------------------------------------------------------------

    def connect_to_hub(self, hub: ToolHub, *, strict: bool = False) -> MCPServers:
        """Register the servers' tools with ``hub`` and keep them in step with each listing.

        Servers whose tools every thinker sees, and servers configured ``start = "eager"``, are
        started now, in parallel; the others when a catalog that holds their tools is first
        resolved. Bind before thinkers take their first turn: a catalog resolved earlier does
        not learn of servers exposed to it by class or selector.

        Args:
            hub: The hub to register with.
            strict: Raise when any problem was reported (for CI); the servers are closed first.

        Returns:
            ``self``.

        Raises:
            ExceptionGroup: ``strict`` and problems were reported; it holds one error per
                problem (`MCPServerUnavailable`, `MCPCollisionError`, ``ToolDeclarationError``).
            RuntimeError: Already bound to a hub.
        """
        eager = self._begin_binding(hub)
        try:
            if eager:
                self._started(self._pool.start_all(eager))
            self._register_listed()
        finally:
            self._settled.set()
        if strict and (errors := self._strict_errors()):
            self.close()
            raise ExceptionGroup("MCP servers reported problems", errors)
        return self

    async def aconnect_to_hub(self, hub: ToolHub, *, strict: bool = False) -> MCPServers:
        """`connect_to_hub` from async code: the servers it starts are awaited, not waited for.

        Inside ``async with servers:`` they start on that event loop, the pool's home loop,
        where the thinkers' calls then reach them directly (see `MCPClientPool`).

        Raises:
            ExceptionGroup: ``strict`` and problems were reported (the servers closed first).
            RuntimeError: Already bound to a hub.
        """
        eager = self._begin_binding(hub)
        try:
            if eager:
                self._started(await self._pool.astart_all(eager))
            self._register_listed()
        finally:
            self._settled.set()
        if strict and (errors := self._strict_errors()):
            await self.aclose()
            raise ExceptionGroup("MCP servers reported problems", errors)
        return self

    def _begin_binding(self, hub: ToolHub) -> list[str]:
        """Bind to ``hub``; the servers to start now (every thinker sees them, or eager)."""
        with self._lock:
            if self._hub is not None:
                raise RuntimeError("these MCP servers are already bound to a hub")
            self._hub = hub
            # What was listed before binding is registered afresh, checked against this hub.
            self._bound.clear()
            self._claims.clear()
            self._blocked.clear()
            self._settled.clear()
        try:
            on_close = getattr(hub, "on_close", None)
            if callable(on_close):  # closing the hub then closes every session
                on_close(self.close)
            configs = list(self.configs.values())
            if any(config.thinkers != "all" and not config.disabled for config in configs):
                hub.plugins.register_plugin(CatalogHook(self), name=f"nucleo-mcp-{id(self):x}")
        except BaseException:
            self._settled.set()
            raise
        return [
            c.name
            for c in configs
            if not c.disabled and (c.thinkers == "all" or c.start == "eager")
        ]

    def _started(
        self, outcomes: Mapping[str, tuple[Mapping[str, Any], ...] | MCPServerUnavailable]
    ) -> None:
        for name, outcome in outcomes.items():
            if isinstance(outcome, MCPServerUnavailable):
                self._report(name, None, "unavailable", outcome, log=False)

    def _register_listed(self) -> None:
        # In configuration order: the earlier server keeps a name.
        for config in self.configs.values():
            if self._pool.tools(config.name) is not None:
                self._refresh(config.name)

    def _strict_errors(self) -> list[Exception]:
        with self._lock:
            return list(self._errors)

    def close(self) -> None:
        """Close every session (no server process is left behind); idempotent."""
        self._pool.close()

    async def aclose(self) -> None:
        """`close`, awaitable (see `MCPClientPool.aclose`)."""
        await self._pool.aclose()

    async def __aenter__(self) -> Self:
        """Make the running event loop the pool's home loop (see `MCPClientPool`)."""
        await self._pool.__aenter__()
        return self

    def __repr__(self) -> str:
        return f"<MCPServers {list(self.configs)}>"


def connect_to_hub(
    hub: ToolHub,
    servers: Iterable[MCPServerConfig] | MCPServers | None = None,
    *,
    strict: bool = False,
) -> MCPServers:
    """Bind MCP servers to ``hub``: the configured ones (see `discover_servers`) by default.

    Returns:
        The bound servers; close them (`MCPServers.close`) to end every session.

    Raises:
        MCPConfigError: A configuration file is malformed.
        ExceptionGroup: ``strict`` and problems were reported.
    """
    if servers is None:
        bound = MCPServers.from_config()
    elif isinstance(servers, MCPServers):
        bound = servers
    else:
        bound = MCPServers(servers)
    return bound.connect_to_hub(hub, strict=strict)
