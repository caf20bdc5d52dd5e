"""How each listing of an MCP server reaches the hub: its tools claimed, registered, withdrawn.

A tool name is never taken silently. Two servers publishing one name is a collision reported
with its fix (a prefix), and the tool of the server configured later is not registered; a
server tool takes a native tool's name only where its server says ``shadow = true``, which is
recorded. `MCPServers` holds this part with the others (`ServerPins`, `ServerCatalogs`).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.mcp._server_part import ServerPart
from nucleo_core.mcp.errors import MCPCollisionError
from nucleo_core.mcp.provider import MCPToolProvider
from nucleo_core.tools.registry import ShadowRecord
from nucleo_core.tools.reserved import RESERVED_TOOL_NAMES

if TYPE_CHECKING:
    from nucleo_core.mcp.config import MCPServerConfig
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["ServerListings", "prefix_fix"]

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


class ServerListings(ServerPart):
    """`MCPServers`' part that brings the hub in line with each server's latest listing."""

    _bound: dict[str, dict[str, MCPToolProvider]]
    _claims: dict[str, str]
    _blocked: dict[str, set[str]]
    _catalog_classes: dict[str, set[type[Any]]]
    _shadowed_natives: dict[str, ToolProvider]
    _shadow_records: list[ShadowRecord]
    _settled: threading.Event

    if TYPE_CHECKING:

        def _pinned(
            self, server: str, listed: tuple[Mapping[str, Any], ...]
        ) -> tuple[Mapping[str, Any], ...]: ...

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
                            prefix_fix(config),
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
                        MCPCollisionError(name, server, held_by, prefix_fix(config)),
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
                            name, server, f"MCP server '{holder}'", prefix_fix(config)
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
                                prefix_fix(config)
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


def _natives(providers: Iterable[ToolProvider]) -> dict[str, ToolProvider]:
    return {p.name: p for p in providers if not isinstance(p, MCPToolProvider)}


def prefix_fix(config: MCPServerConfig) -> str:
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
