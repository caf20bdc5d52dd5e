"""`MCPServers`: the configured MCP servers, their tools as providers, and their place in a hub.

A server's tools are registered on connect and follow its listing: a ``tools/list_changed``
(or a restart) re-lists it, and the tools it added widen the catalogs that hold its tools while
those it withdrew narrow them. Which thinkers see the tools is the server's ``thinkers``
setting: every thinker (system-wide tools), listed thinker classes, or thinkers whose selector
names the server (their catalogs).

A tool name is never taken silently. Two servers publishing one name is a collision reported
with its fix (a prefix), and the tool of the server configured later is not registered; a
server tool takes a native tool's name only where its server says ``shadow = true``, which is
recorded. Problems are reported (`problems`, and logged), never fatal unless ``strict``: every
other server and tool still works.

Every listing is checked against the pinned tool definitions first (`nucleo_core.mcp.pins`):
a tool whose definition changed since it was pinned is quarantined, and never reaches the hub
(`quarantined` says which, with the diff; the hub's audit record gets a ``refusal``).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.mcp.config import MCPServerConfig, discover_servers
from nucleo_core.mcp.errors import (
    MCPCollisionError,
    MCPPinError,
    MCPPinStoreError,
    MCPServerUnavailable,
)
from nucleo_core.mcp.pins import Pin, PinStore, Quarantine, pin_store_path, short_digest
from nucleo_core.mcp.pool import MCPClientPool
from nucleo_core.mcp.provider import MCPToolProvider
from nucleo_core.mcp.report import MCPProblem, MCPProblemKind
from nucleo_core.mcp.selector import selects_mcp_server
from nucleo_core.plugins.markers import hookimpl
from nucleo_core.tools.registry import ShadowRecord
from nucleo_core.tools.reserved import RESERVED_TOOL_NAMES

if TYPE_CHECKING:
    from types import TracebackType

    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.mcp.elicitation import ElicitationAnswerer
    from nucleo_core.mcp.sampling import Sampler
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["MCPServers", "connect_to_hub"]

logger = logging.getLogger("nucleo.mcp")


@dataclass
class _Change:
    """What one listing changes in the hub, computed under the lock and applied outside it."""

    server: str
    register: list[tuple[MCPToolProvider, MCPToolProvider | None, ToolProvider | None]] = field(
        default_factory=list
    )
    withdraw: list[MCPToolProvider] = field(default_factory=list)
    released: set[str] = field(default_factory=set)


class MCPServers:
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
                hub.plugins.register_plugin(_CatalogHook(self), name=f"nucleo-mcp-{id(self):x}")
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

    async def __aenter__(self) -> MCPServers:
        """Make the running event loop the pool's home loop (see `MCPClientPool`)."""
        await self._pool.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __enter__(self) -> MCPServers:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<MCPServers {list(self.configs)}>"

    # -- listings -----------------------------------------------------------------------------

    def _on_listing(self, server: str, _tools: tuple[Mapping[str, Any], ...]) -> None:
        # The latest listing is read from the pool rather than the one queued: a stale notice
        # delivered after a newer listing was applied must not undo it.
        self._settled.wait()
        self._refresh(server)

    def _refresh(self, server: str) -> None:
        """Bring ``server``'s providers (and the hub) in line with its latest listing."""
        listed = self._pool.tools(server)
        if listed is None:
            return
        tools = self._pinned(server, listed)
        hub = self._hub
        natives = {} if hub is None else _natives(hub.system_wide_tools())
        taken: Mapping[str, str] = {}
        if hub is not None and self._pool.config(server).thinkers == "all":
            taken = hub.native_tool_holders()  # pack and default tools every thinker may meet
        change = self._absorb(server, tools, natives, taken)
        self._apply(change)
        for other in self._unblocked_by(change):
            self._refresh(other)

    def _absorb(
        self,
        server: str,
        tools: tuple[Mapping[str, Any], ...],
        natives: Mapping[str, ToolProvider],
        taken: Mapping[str, str] | None = None,
    ) -> _Change:
        config = self._pool.config(server)
        change = _Change(server=server)
        with self._lock:
            old = self._bound.get(server, {})
            new: dict[str, MCPToolProvider] = {}
            blocked: set[str] = set()
            for descriptor in tools:
                try:
                    provider = MCPToolProvider.from_descriptor(config, descriptor, self._pool)
                except ToolDeclarationError as exc:
                    tool = descriptor.get("name")
                    self._report(
                        server, tool if isinstance(tool, str) else None, "invalid_tool", exc
                    )
                    continue
                name = provider.name
                if name in new:
                    self._report(
                        server,
                        provider.tool,
                        "invalid_tool",
                        ToolDeclarationError(
                            provider.source, ["the server lists two tools under this name"]
                        ),
                    )
                    continue
                if name in RESERVED_TOOL_NAMES:
                    self._report(
                        server,
                        provider.tool,
                        "reserved",
                        MCPCollisionError(
                            name,
                            server,
                            "nucleo's own tool (the name is reserved)",
                            _prefix_fix(config),
                        ),
                    )
                    blocked.add(name)
                    continue
                held_by = (taken or {}).get(name)
                if held_by is not None:
                    self._report(
                        server,
                        provider.tool,
                        "collision",
                        MCPCollisionError(name, server, held_by, _prefix_fix(config)),
                    )
                    blocked.add(name)
                    continue
                holder = self._claims.get(name)
                if holder is not None and holder != server:
                    self._report(
                        server,
                        provider.tool,
                        "collision",
                        MCPCollisionError(
                            name, server, f"MCP server '{holder}'", _prefix_fix(config)
                        ),
                    )
                    blocked.add(name)
                    continue
                native = natives.get(name)
                shadowing: ToolProvider | None = None
                if native is not None:
                    if not config.shadow:
                        self._report(
                            server,
                            provider.tool,
                            "collision",
                            MCPCollisionError(
                                name,
                                server,
                                f"the native tool {native.source}",
                                _prefix_fix(config)
                                + " Or set shadow = true to replace the native tool deliberately.",
                            ),
                        )
                        blocked.add(name)
                        continue
                    shadowing = native
                previous = old.get(name)
                if previous is not None and previous.same_as(provider):
                    new[name] = previous
                    continue
                new[name] = provider
                change.register.append((provider, previous, shadowing))
            for name, previous in old.items():
                if name not in new:
                    change.withdraw.append(previous)
                    change.released.add(name)
                    if self._claims.get(name) == server:
                        del self._claims[name]
            for name in new:
                self._claims[name] = server
            self._bound[server] = new
            self._blocked[server] = blocked
        return change

    def _apply(self, change: _Change) -> None:
        hub = self._hub
        if hub is None or not (change.register or change.withdraw):
            return
        config = self._pool.config(change.server)
        if config.thinkers == "all":
            current = {provider.name: provider for provider in hub.system_wide_tools()}
            for provider in change.withdraw:
                if current.get(provider.name) is provider:
                    hub.withdraw_system_wide_tool(provider.name)
                with self._lock:
                    native = self._shadowed_natives.pop(provider.name, None)
                if native is not None:
                    hub.register_system_wide_tool(native)
            for provider, previous, shadowing in change.register:
                if previous is not None and current.get(provider.name) is previous:
                    hub.withdraw_system_wide_tool(provider.name)
                if shadowing is not None and current.get(provider.name) is shadowing:
                    hub.withdraw_system_wide_tool(provider.name)
                    with self._lock:
                        self._shadowed_natives[provider.name] = shadowing
                        self._shadow_records.append(
                            ShadowRecord(
                                name=provider.name,
                                replaced=shadowing.source,
                                replaced_kind=type(shadowing).__name__,
                                by=provider.source,
                                by_kind=type(provider).__name__,
                            )
                        )
                    logger.info("%s shadows the native tool %s", provider.source, shadowing.source)
                hub.register_system_wide_tool(provider)
            return
        with self._lock:
            classes = list(self._catalog_classes.get(change.server, ()))
        for thinker_class in classes:
            for provider in change.withdraw:
                hub.withdraw_compatible(thinker_class, provider.name)
            for provider, previous, _shadowing in change.register:
                if previous is not None:
                    hub.withdraw_compatible(thinker_class, provider.name)
                hub.register_compatible(thinker_class, provider)

    def _unblocked_by(self, change: _Change) -> list[str]:
        if not change.released:
            return []
        with self._lock:
            return [
                server
                for server, names in self._blocked.items()
                if server != change.server and names & change.released
            ]

    # -- pins ---------------------------------------------------------------------------------

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

    # -- catalogs -----------------------------------------------------------------------------

    def _catalog_tools(self, thinker_class: type[Any]) -> list[MCPToolProvider]:
        """The tools of servers exposed to ``thinker_class``'s catalog (the hook's answer)."""
        selector: Any = None
        declared = False
        found: list[MCPToolProvider] = []
        for config in self.configs.values():
            if config.thinkers == "all" or config.disabled:
                continue
            if config.thinkers == "selector":
                if not declared:
                    declare = getattr(thinker_class, "declare_compatible_tools", None)
                    selector = declare() if callable(declare) else None
                    declared = True
                if not selects_mcp_server(selector, config.name):
                    continue
            elif not config.selects(thinker_class):
                continue
            with self._lock:
                self._catalog_classes.setdefault(config.name, set()).add(thinker_class)
            if self._pool.tools(config.name) is None:
                try:
                    self._pool.start(config.name)  # first needed: this catalog selects it
                except MCPServerUnavailable as exc:
                    self._report(config.name, None, "unavailable", exc, log=False)
                    continue
                except RuntimeError:
                    # The pool was closed, or the server is starting on the event loop this
                    # catalog is resolved on: its listing registers the tools once it started.
                    continue
            self._refresh(config.name)
            if not declared:
                declare = getattr(thinker_class, "declare_compatible_tools", None)
                selector = declare() if callable(declare) else None
                declared = True
            natives = self._selector_natives(selector)
            for provider in self.providers(config.name):
                if provider.name in natives:
                    self._report(
                        config.name,
                        provider.tool,
                        "collision",
                        MCPCollisionError(
                            provider.name,
                            config.name,
                            f"a native tool in {thinker_class.__qualname__}'s catalog",
                            _prefix_fix(config),
                        ),
                    )
                    continue
                found.append(provider)
        return found

    def _selector_natives(self, selector: Any) -> set[str]:
        hub = self._hub
        if selector is None or hub is None:
            return set()
        names = {provider.name for provider in getattr(selector, "tools", ())}
        for module in getattr(selector, "modules", ()):
            try:
                names |= {provider.name for provider in hub.scan_module(module)}
            except ImportError:
                continue
        return names

    # -- problems -----------------------------------------------------------------------------

    def _report(
        self,
        server: str,
        tool: str | None,
        kind: MCPProblemKind,
        error: Exception,
        *,
        log: bool = True,
        strict: bool = True,
    ) -> None:
        message = str(error)
        with self._lock:
            key = (server, tool, message)
            if key in self._seen:
                return
            self._seen.add(key)
            self._problems.append(MCPProblem(server=server, tool=tool, kind=kind, message=message))
            if strict:  # a problem ``strict`` binding raises for
                self._errors.append(error)
        if log:
            logger.warning("%s", message)


class _CatalogHook:
    """The hook plugin through which catalogs learn of servers exposed to them."""

    def __init__(self, servers: MCPServers) -> None:
        self._servers = servers

    @hookimpl
    def nucleo_compatible_tools(self, thinker_class: type[Any]) -> list[MCPToolProvider]:
        """The tools of the servers exposed to ``thinker_class`` (started on first need)."""
        return self._servers._catalog_tools(thinker_class)


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


def _natives(providers: Iterable[ToolProvider]) -> dict[str, ToolProvider]:
    return {p.name: p for p in providers if not isinstance(p, MCPToolProvider)}


def _prefix_fix(config: MCPServerConfig) -> str:
    suggested = re.sub(r"[^A-Za-z0-9_-]", "_", config.name)[:32]
    if not suggested[:1].isalpha():
        suggested = ("s" + suggested)[:32]
    where = (
        f"[tool.nucleo.mcp.servers.{config.name}]"
        if config.origin.endswith("[tool.nucleo.mcp]") or config.origin == "code"
        else f"the configuration of MCP server '{config.name}' ({config.origin})"
    )
    if config.prefix:
        return f"Choose another prefix for '{config.name}' in {where}."
    return (
        f'Fix: set prefix = "{suggested}" in {where}; its tools are then named {suggested}_<tool>.'
    )
