"""`ToolSelector`: what a thinker class declares its catalog to be."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from types import ModuleType
from typing import Self

from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import ToolLike, provider_for

__all__ = ["ToolSelector"]


class ToolSelector:
    """Accumulates the tools a thinker class may be granted through ``request_tools``.

    A selector takes tool classes and function tools, whole modules (the tools the module
    itself defines, not its submodules'), providers, and installed tool packs by entry-point
    name or glob. Modules and packs are resolved by the hub (module scans are cached forever;
    packs installed later widen the catalogs whose selectors match them).

    Example:
        >>> selector = ToolSelector("acme_tools.search")  # a module's own tools
        >>> selector.add_pack("acme-*")  # every installed pack whose entry point matches
        ToolSelector(modules=['acme_tools.search'], packs=['acme-*'], tools=0)
    """

    def __init__(self, *modules: str | ModuleType) -> None:
        self._modules: list[str | ModuleType] = list(modules)
        self._packs: list[str] = []
        self._tools: list[ToolProvider] = []
        self._mcp_servers: list[str] = []

    def add_module(self, module: str | ModuleType) -> Self:
        """Select the tools ``module`` itself defines (a dotted name or the module)."""
        self._modules.append(module)
        return self

    def add_class(self, tool: ToolLike) -> Self:
        """Select one ``@tool``-declared class or function, or a provider."""
        self._tools.append(provider_for(tool))
        return self

    add_tool = add_class

    def add_provider(self, *providers: ToolProvider) -> Self:
        """Select providers (an MCP server's tools, a host's own)."""
        self._tools.extend(providers)
        return self

    def add_pack(self, pattern: str) -> Self:
        """Select installed tool packs by ``nucleo.tools`` entry-point name or glob."""
        self._packs.append(pattern)
        return self

    def add_mcp_server(self, name: str) -> Self:
        """Select the tools of the configured MCP server ``name``.

        The server's ``thinkers`` setting must be ``"selector"``.
        """
        if name not in self._mcp_servers:
            self._mcp_servers.append(name)
        return self

    @property
    def mcp_servers(self) -> tuple[str, ...]:
        """The selected MCP servers, in order."""
        return tuple(self._mcp_servers)

    @property
    def modules(self) -> tuple[str | ModuleType, ...]:
        """The selected modules, in order."""
        return tuple(self._modules)

    @property
    def packs(self) -> tuple[str, ...]:
        """The selected pack patterns, in order."""
        return tuple(self._packs)

    @property
    def tools(self) -> tuple[ToolProvider, ...]:
        """The directly selected providers, in order."""
        return tuple(self._tools)

    def selects_pack(self, entry_point_name: str) -> bool:
        """Whether a pack with this entry-point name is selected."""
        return any(fnmatch.fnmatchcase(entry_point_name, pattern) for pattern in self._packs)

    def __repr__(self) -> str:
        modules = [m if isinstance(m, str) else m.__name__ for m in self._modules]
        return f"ToolSelector(modules={modules}, packs={self._packs}, tools={len(self._tools)})"

    @classmethod
    def of(cls, tools: Iterable[ToolLike]) -> Self:
        """A selector of exactly these tools."""
        selector = cls()
        for item in tools:
            selector.add_class(item)
        return selector
