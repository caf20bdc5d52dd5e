"""`CatalogBook`: each thinker class's resolved catalog of a hub, widened and narrowed later."""

from __future__ import annotations

import fnmatch
import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from nucleo_core.errors import ReservedToolName
from nucleo_core.hub._catalog_view import CatalogView
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import provider_for
from nucleo_core.tools.reserved import RESERVED_TOOL_NAMES

if TYPE_CHECKING:
    from nucleo_core.hub.selector import ToolSelector
    from nucleo_core.plugins.contributions import PackTool
    from nucleo_core.plugins.host import PluginHost
    from nucleo_core.skills.registry import SkillRegistry
    from nucleo_core.skills.selector import SkillSelector

__all__ = ["CatalogBook", "CatalogHost", "reserved_skipped", "unreserved"]

logger = logging.getLogger("nucleo.hub")


class CatalogHost(Protocol):
    """What a `CatalogBook` draws a catalog from: its hub's scans, plugins and skills."""

    @property
    def plugins(self) -> PluginHost:
        """The plugin host whose compatible tools join the catalogs."""

    @property
    def skills(self) -> SkillRegistry:
        """The skill registry the skill catalogs are drawn from."""

    def scan_module(self, module: str | ModuleType) -> tuple[ToolProvider, ...]:
        """The tools ``module`` itself defines (cached)."""


@dataclass
class _Catalog:
    """One thinker class's resolved catalogs, kept from first resolution on."""

    selector: ToolSelector | None
    skill_selector: SkillSelector | None
    tools: dict[str, ToolProvider] = field(default_factory=dict)
    skills: dict[str, Skill] = field(default_factory=dict)
    # The tools in catalog order, append-only: a widening appends, a narrowing starts a new
    # list, so every view handed out (a prefix of one list) stays as it was.
    order: list[ToolProvider] = field(default_factory=list)
    # Immutable views handed out until the catalog widens: a thinker compares them by
    # identity to know, in O(1), that its catalog did not change since its last turn, and
    # reads a widening's delta from them (`CatalogView.added_since`).
    tools_view: CatalogView | None = None
    skills_view: tuple[Skill, ...] | None = None


class CatalogBook:
    """The catalogs of one hub's thinker classes (`ToolHub.compatible_catalog` and the rest).

    Args:
        host: The hub the catalogs are drawn from.
        lock: The hub's lock, which every change of the catalogs holds.
    """

    def __init__(self, host: CatalogHost, lock: threading.RLock) -> None:
        self._host = host
        self._lock = lock
        #: The tools of each installed tool pack, by the pack's entry-point name.
        self.packs: dict[str, list[ToolProvider]] = {}
        self._catalogs: dict[type[Any], _Catalog] = {}
        self._pending_tools: dict[type[Any], list[ToolProvider]] = {}
        self._pending_skills: dict[type[Any], list[Skill | str]] = {}
        # Names withdrawn from a class's catalog (key None: from every catalog), kept so a
        # catalog resolved later, or widened by a plugin, leaves them out too.
        self._withdrawn: dict[type[Any] | None, set[str]] = {}
        self._defaults: dict[type[Any], tuple[ToolProvider, ...]] = {}

    def default_tools(self, thinker_class: type[Any]) -> tuple[ToolProvider, ...]:
        """``thinker_class``'s declared default tools and providers, resolved once."""
        with self._lock:
            found = self._defaults.get(thinker_class)
            if found is None:
                declared = [provider_for(t) for t in thinker_class.declare_default_tools()]
                declared += list(thinker_class.declare_default_providers())
                found = self._defaults[thinker_class] = tuple(unreserved(declared))
            return found

    def default_skills(self, thinker_class: type[Any]) -> list[Skill]:
        """The skills ``thinker_class`` declares it always runs with (missing ones skipped)."""
        found: list[Skill] = []
        for name in thinker_class.declare_default_skills():
            skill = self._host.skills.get(name)
            if skill is None:
                logger.warning(
                    "%s declares default skill %r, which no skill source provides; skipped",
                    thinker_class.__qualname__,
                    name,
                )
            else:
                found.append(skill)
        return found

    def native_holders(self) -> dict[str, str]:
        """Tool names held by tool packs and by resolved default tools, with their holders."""
        holders: dict[str, str] = {}
        with self._lock:
            for pack, providers in self.packs.items():
                for provider in providers:
                    holders.setdefault(provider.name, f"the tool {provider.source} of pack {pack}")
            for thinker_class, defaults in self._defaults.items():
                for provider in defaults:
                    holders.setdefault(
                        provider.name,
                        f"the default tool {provider.source} of {thinker_class.__qualname__}",
                    )
        return holders

    def add_packs(self, pack_tools: Iterable[PackTool]) -> set[str]:
        """Take in the tools of newly loaded tool packs; the names of the packs that brought any."""
        new_packs: set[str] = set()
        with self._lock:
            for pack_tool in pack_tools:
                if reserved_skipped(pack_tool.provider, f"tool pack {pack_tool.pack}"):
                    continue
                self.packs.setdefault(pack_tool.pack, []).append(pack_tool.provider)
                new_packs.add(pack_tool.pack)
        return new_packs

    def pack_tool_names(self) -> set[str]:
        """The names of every tool pack's tools."""
        with self._lock:
            return {p.name for providers in self.packs.values() for p in providers}

    def tools_of(self, thinker_class: type[Any]) -> CatalogView:
        """``thinker_class``'s tool catalog (`ToolHub.compatible_catalog`)."""
        # Asked several times a turn: a resolved catalog is never replaced, so it is read
        # without the lock (a dict read is atomic); resolving one takes it.
        catalog = self._catalogs.get(thinker_class) or self._catalog(thinker_class)
        view = catalog.tools_view
        if view is None:
            with self._lock:
                view = catalog.tools_view
                if view is None:
                    view = catalog.tools_view = CatalogView(catalog.order, len(catalog.order))
        return view

    def holds(self, thinker_class: type[Any], provider: ToolProvider) -> bool:
        """Whether ``thinker_class``'s catalog holds ``provider`` now, in O(1)."""
        catalog = self._catalog(thinker_class)
        with self._lock:
            present = catalog.tools.get(provider.name)
        return present is not None and (present is provider or present == provider)

    def skills_of(self, thinker_class: type[Any]) -> tuple[Skill, ...]:
        """``thinker_class``'s skill catalog (`ToolHub.compatible_skills`)."""
        catalog = self._catalogs.get(thinker_class) or self._catalog(thinker_class)  # tools_of
        view = catalog.skills_view
        if view is None:
            with self._lock:
                view = catalog.skills_view = tuple(catalog.skills.values())
        return view

    def add_tools(self, thinker_class: type[Any], providers: Sequence[ToolProvider]) -> None:
        """Widen ``thinker_class``'s catalog (`ToolHub.register_compatible`)."""
        with self._lock:
            for withdrawn in self._withdrawn.values():  # registered again: offered again
                withdrawn.difference_update(provider.name for provider in providers)
            catalog = self._catalogs.get(thinker_class)
            if catalog is None:
                self._pending_tools.setdefault(thinker_class, []).extend(providers)
            else:
                self._widen(catalog, providers, thinker_class)

    def withdraw(self, thinker_class: type[Any] | None, name: str) -> None:
        """Narrow catalogs (`ToolHub.withdraw_compatible`)."""
        with self._lock:
            self._withdrawn.setdefault(thinker_class, set()).add(name)
            for cls, catalog in self._catalogs.items():
                if thinker_class is not None and cls is not thinker_class:
                    continue
                if catalog.tools.pop(name, None) is not None:
                    # A new list: the views handed out keep the old one as it was.
                    catalog.order = [p for p in catalog.order if p.name != name]
                    catalog.tools_view = None
            for cls, pending in self._pending_tools.items():
                if thinker_class is None or cls is thinker_class:
                    pending[:] = [provider for provider in pending if provider.name != name]

    def add_skills(self, thinker_class: type[Any], skills: Sequence[Skill | str]) -> None:
        """Widen ``thinker_class``'s skill catalog (`ToolHub.register_compatible_skills`)."""
        with self._lock:
            catalog = self._catalogs.get(thinker_class)
            if catalog is None:
                self._pending_skills.setdefault(thinker_class, []).extend(skills)
            else:
                self._widen_skills(catalog, skills, thinker_class)

    def absorb(self, new: set[str], new_packs: set[str]) -> None:
        """Widen every cached catalog with what the newly loaded plugins ``new`` bring.

        ``new_packs`` are the tool packs they brought (already in `packs`).
        """
        plugins = self._host.plugins
        with self._lock:
            self._absorb(plugins, new, new_packs)

    def _absorb(self, plugins: PluginHost, new: set[str], new_packs: set[str]) -> None:
        for thinker_class, catalog in self._catalogs.items():
            widened = self._pack_tools_for(catalog.selector, only=new_packs)
            widened += [
                c.provider
                for c in plugins.compatible_tools(thinker_class, plugins=new)
                if not reserved_skipped(c.provider, f"plugin {c.plugin}")
            ]
            withdrawn = self._withdrawn_from(thinker_class)
            widened = [provider for provider in widened if provider.name not in withdrawn]
            self._widen(catalog, widened, thinker_class)
            if catalog.skill_selector is not None:
                self._widen_skills(
                    catalog, catalog.skill_selector.resolve(self._host.skills), thinker_class
                )

    def _catalog(self, thinker_class: type[Any]) -> _Catalog:
        with self._lock:
            catalog = self._catalogs.get(thinker_class)
            if catalog is not None:
                return catalog
            selector = thinker_class.declare_compatible_tools()
            skill_selector = thinker_class.declare_compatible_skills()
            catalog = _Catalog(selector=selector, skill_selector=skill_selector)
            providers: list[ToolProvider] = []
            if selector is not None:
                for module in selector.modules:
                    providers += self._host.scan_module(module)
                providers += self._pack_tools_for(selector, only=None)
                providers += selector.tools
            providers = unreserved(providers)  # the class's own declarations: its code's error
            providers += [
                c.provider
                for c in self._host.plugins.compatible_tools(thinker_class)
                if not reserved_skipped(c.provider, f"plugin {c.plugin}")
            ]
            withdrawn = self._withdrawn_from(thinker_class)
            providers = [provider for provider in providers if provider.name not in withdrawn]
            providers += self._pending_tools.pop(thinker_class, [])
            self._widen(catalog, providers, thinker_class)
            skills: list[Skill | str] = []
            if skill_selector is not None:
                skills += skill_selector.resolve(self._host.skills)
            skills += self._pending_skills.pop(thinker_class, [])
            self._widen_skills(catalog, skills, thinker_class)
            self._catalogs[thinker_class] = catalog
            return catalog

    def _withdrawn_from(self, thinker_class: type[Any]) -> set[str]:
        """The names withdrawn from ``thinker_class``'s catalog (or from every catalog)."""
        return self._withdrawn.get(None, set()) | self._withdrawn.get(thinker_class, set())

    def _pack_tools_for(
        self, selector: ToolSelector | None, *, only: set[str] | None
    ) -> list[ToolProvider]:
        if selector is None or not selector.packs:
            return []
        found: list[ToolProvider] = []
        for pack, providers in self.packs.items():
            if only is not None and pack not in only:
                continue
            if any(fnmatch.fnmatchcase(pack, pattern) for pattern in selector.packs):
                found += providers
        return found

    def _widen(
        self, catalog: _Catalog, providers: Iterable[ToolProvider], thinker_class: type[Any]
    ) -> None:
        for provider in providers:
            present = catalog.tools.get(provider.name)
            if present is None:
                catalog.tools[provider.name] = provider
                catalog.order.append(provider)
                catalog.tools_view = None
            elif present != provider:
                logger.warning(
                    "%s's catalog already holds a tool named %r (%s); %s not added",
                    thinker_class.__qualname__,
                    provider.name,
                    present.source,
                    provider.source,
                )

    def _widen_skills(
        self, catalog: _Catalog, skills: Iterable[Skill | str], thinker_class: type[Any]
    ) -> None:
        for item in skills:
            skill = self._host.skills.get(item) if isinstance(item, str) else item
            if skill is None:
                logger.warning(
                    "skill %r offered to %s is not in the skill registry; skipped",
                    item,
                    thinker_class.__qualname__,
                )
                continue
            if skill.name not in catalog.skills:
                catalog.skills[skill.name] = skill
                catalog.skills_view = None


def unreserved(providers: list[ToolProvider]) -> list[ToolProvider]:
    """``providers``, or `ReservedToolName` for the first that takes a reserved name."""
    for provider in providers:
        if provider.name in RESERVED_TOOL_NAMES:
            raise ReservedToolName(provider.name, f"the tool {provider.source}")
    return providers


def reserved_skipped(provider: ToolProvider, origin: str) -> bool:
    """Whether a plugin's tool takes a reserved name: then it is reported and skipped."""
    if provider.name not in RESERVED_TOOL_NAMES:
        return False
    logger.warning("%s skipped: %s", provider.source, ReservedToolName(provider.name, origin))
    return True
