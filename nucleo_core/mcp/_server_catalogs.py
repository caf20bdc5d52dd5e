"""How the catalogs of thinkers learn of the MCP servers exposed to them (by class, selector).

A server not exposed to every thinker is started when a catalog that holds its tools is first
resolved; its tools are offered there unless a native tool of that catalog has the name.
`MCPServers` holds this part with the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.mcp._server_listings import prefix_fix
from nucleo_core.mcp._server_part import ServerPart
from nucleo_core.mcp.errors import MCPCollisionError, MCPServerUnavailable
from nucleo_core.mcp.selector import selects_mcp_server
from nucleo_core.plugins.markers import hookimpl

if TYPE_CHECKING:
    from nucleo_core.mcp.config import MCPServerConfig
    from nucleo_core.mcp.provider import MCPToolProvider

__all__ = ["CatalogHook", "ServerCatalogs"]


class ServerCatalogs(ServerPart):
    """`MCPServers`' part that answers the catalogs' ``nucleo_compatible_tools`` hook."""

    _catalog_classes: dict[str, set[type[Any]]]

    if TYPE_CHECKING:

        @property
        def configs(self) -> Mapping[str, MCPServerConfig]: ...

        def providers(self, server: str | None = None) -> tuple[MCPToolProvider, ...]: ...

        def _refresh(self, server: str) -> None: ...

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
                            prefix_fix(config),
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


class CatalogHook:
    """The hook plugin through which catalogs learn of servers exposed to them."""

    def __init__(self, servers: ServerCatalogs) -> None:
        self._servers = servers

    @hookimpl
    def nucleo_compatible_tools(self, thinker_class: type[Any]) -> list[MCPToolProvider]:
        """The tools of the servers exposed to ``thinker_class`` (started on first need)."""
        return self._servers._catalog_tools(thinker_class)
