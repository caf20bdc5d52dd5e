"""Where the command line's tools come from: the one place a new kind of source is added.

`collect_registry` builds the registry every command reads, and says where each tool comes
from: the tool packs installed (``nucleo.tools`` entry points), the system-wide tools plugins
add, the tools of the MCP servers configured for the project, and the ``--from`` sources the
user names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING

from nucleo_core.cli.importing import FILE_MODULE_PREFIX, ImportFailure, import_source
from nucleo_core.cli.mcp_survey import configured_mcp_tools
from nucleo_core.errors import MisuseError
from nucleo_core.tools import ToolProvider, ToolRegistry, tools_in_module

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub
    from nucleo_core.plugins import PackTool

__all__ = [
    "FILE_MODULE_PREFIX",
    "SYSTEM_WIDE",
    "CollectedTools",
    "ToolSourceError",
    "collect_registry",
    "load_source",
    "pack_origin",
]

#: The origin of a tool a plugin adds to every thinker's palette.
SYSTEM_WIDE = "system-wide"


class ToolSourceError(MisuseError):
    """A ``--from`` source cannot be loaded, or the tools it defines are misdeclared.

    Attributes:
        source: The source as the user gave it.
        reason: What went wrong, written for the user.
    """

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"cannot load tools from '{source}': {reason}")


@dataclass(frozen=True, kw_only=True)
class CollectedTools:
    """The registry the commands read, and where each of its tools comes from.

    Attributes:
        registry: One tool per name: the installed packs' tools (in load order), the
            system-wide tools, the configured MCP servers' tools, then the tools of each
            ``--from`` source.
        origins: Tool name to where it comes from: ``pack NAME (DISTRIBUTION VERSION)``,
            ``system-wide``, ``mcp server ID`` or ``--from SOURCE``; a tool met under several
            origins (a pack's tool its own plugin also makes system-wide) has them joined by
            ``", "``.
        warnings: The installed tools left out of the registry, each with the reason: a name
            an earlier installed tool already has, or a declaration that does not check.
    """

    registry: ToolRegistry
    origins: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def origin(self, provider: ToolProvider) -> str:
        """Where ``provider``, one of the registry's tools, comes from."""
        return self.origins.get(provider.name, "")


def collect_registry(sources: Iterable[str] = (), *, hub: ToolHub | None = None) -> CollectedTools:
    """The tools this process has, plus those of each source, with their origins.

    Each source is a dotted module name or a path to a ``.py`` file; its tools are the
    ``@tool``-declared classes and functions the module defines itself, registered in source
    order, then in definition order. Every tool is checked (schemas built, refiner applied) so
    that a misdeclaration is reported here rather than when the tool is first shown.

    Args:
        sources: Module names or file paths; a source named twice is loaded once.
        hub: A hub whose plugins are loaded: its tool packs' tools and its system-wide tools
            come first, then the tools of the MCP servers configured for the project (see
            `discover_servers`; each server is started to list them, then closed; one that
            does not start is a warning). ``None`` collects the sources' tools only.

    Returns:
        A fresh registry of the tools, with their origins.

    Raises:
        ToolSourceError: A source cannot be imported, defines a misdeclared tool, or defines a
            tool under a name another source, or an installed tool, already uses.
    """
    collector = _Collector()
    if hub is not None:
        for pack_tool in hub.plugins.pack_tools():
            collector.add_installed(pack_tool.provider, pack_origin(hub, pack_tool))
        for provider in hub.system_wide_tools():
            collector.add_installed(provider, SYSTEM_WIDE)
        mcp_tools, mcp_warnings = configured_mcp_tools()
        collector.warnings += mcp_warnings
        for provider, origin in mcp_tools:
            collector.add_installed(provider, origin)
    loaded: set[str] = set()
    for source in sources:
        module = load_source(source)
        if module.__name__ in loaded:
            continue
        loaded.add(module.__name__)
        for provider in _checked_tools(source, module):
            collector.add_from(provider, source)
    return CollectedTools(
        registry=collector.registry,
        origins={name: ", ".join(found) for name, found in collector.origins.items()},
        warnings=tuple(collector.warnings),
    )


def pack_origin(hub: ToolHub, pack_tool: PackTool) -> str:
    """``pack NAME (DISTRIBUTION VERSION)``: the entry point and the distribution shipping it."""
    record = hub.plugins.record(pack_tool.plugin)
    shipped = " ".join(
        part for part in (pack_tool.distribution, record.version if record else None) if part
    )
    return f"pack {pack_tool.pack} ({shipped})" if shipped else f"pack {pack_tool.pack}"


def load_source(source: str) -> ModuleType:
    """Import a source: a path to a ``.py`` file, or a dotted module name.

    Imported as `import_source` imports it (a module name found as ``python -m`` finds one, a
    file run as ``python FILE`` runs one).

    Raises:
        ToolSourceError: The file does not exist, the name is not a module name, or importing
            failed (the reason names the error; no traceback is shown to the user).
    """
    try:
        return import_source(source)
    except ImportFailure as exc:
        raise ToolSourceError(source, exc.reason) from exc


class _Collector:
    """Registers tools one name at a time, remembering each one's origins."""

    def __init__(self) -> None:
        self.registry = ToolRegistry()
        self.origins: dict[str, list[str]] = {}
        self.warnings: list[str] = []
        self._installed: set[str] = set()

    def add_installed(self, provider: ToolProvider, origin: str) -> None:
        """Add a tool the environment brings: a clash or a bad declaration is only a warning.

        The user did not ask for it, and cannot rename it, so the listing goes on without it.
        """
        name = provider.name
        present = self.registry.get_provider_by_name(name)
        if present is not None:
            if present == provider:
                self._note(name, origin)
            else:
                self.warnings.append(
                    f"tool '{name}' of {origin} is not listed: {self._origin(name)} already "
                    "has a tool of that name"
                )
            return
        try:
            provider.check()
        except Exception as exc:  # the plugin's own code (refiner, custom types) ran here
            reason = str(exc) if isinstance(exc, MisuseError) else f"{type(exc).__name__}: {exc}"
            self.warnings.append(f"tool '{name}' of {origin} is not listed: {reason}")
            return
        self.registry.register(provider)
        self._installed.add(name)
        self._note(name, origin)

    def add_from(self, provider: ToolProvider, source: str) -> None:
        """Add a tool of a ``--from`` source; a clash with any other tool is the user's error."""
        name = provider.name
        present = self.registry.get_provider_by_name(name)
        if present is not None and present != provider:
            # The registry would quietly upsert a same-kind provider; two tools under one name
            # is a mistake the user should see, not a silent replacement.
            if name in self._installed:
                fix = (
                    "rename yours, or leave the plugin out with NUCLEO_PLUGINS_BLOCK "
                    "(`nucleo plugins` lists them)"
                )
            else:
                fix = "rename one of them"
            raise ToolSourceError(
                source,
                f"tool '{name}' is already defined by {self._origin(name)}; a catalog holds one "
                f"tool per name, so {fix}",
            )
        try:
            self.registry.register(provider)
        except MisuseError as exc:
            raise ToolSourceError(source, str(exc)) from exc
        self._note(name, f"--from {source}")

    def _note(self, name: str, origin: str) -> None:
        found = self.origins.setdefault(name, [])
        if origin not in found:
            found.append(origin)

    def _origin(self, name: str) -> str:
        return ", ".join(self.origins.get(name, ()))


def _checked_tools(source: str, module: ModuleType) -> list[ToolProvider]:
    try:
        providers = tools_in_module(module)
        for provider in providers:
            provider.check()
    except MisuseError as exc:
        raise ToolSourceError(source, str(exc)) from exc
    except Exception as exc:
        # Checking runs the module's own code (refiners, custom pydantic types), which can fail
        # in its own terms; the user still gets one message, not a traceback.
        raise ToolSourceError(
            source, f"checking its tools raised {type(exc).__name__}: {exc}"
        ) from exc
    return providers
