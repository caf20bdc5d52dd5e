"""`PluginHost`: loads plugins explicitly and is the only caller of their hooks."""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, final

import pluggy

from nucleo_core.plugins import hookspecs
from nucleo_core.plugins._hook_calls import HookCalls
from nucleo_core.plugins._ledger import PluginLedger
from nucleo_core.plugins._registrar import PluginRegistrar
from nucleo_core.plugins._selection import (
    ENTRY_POINT_GROUPS,
    PluginSelection,
    known_groups,
    resolve_search_path,
)
from nucleo_core.plugins.contributions import (
    ContributedSource,
    ContributedTool,
    HookDecision,
    HookVerdict,
    PackTool,
    SkillPackage,
)
from nucleo_core.plugins.markers import PROJECT_NAME
from nucleo_core.plugins.record import PluginRecord

if TYPE_CHECKING:
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["BUILTIN_PLUGINS", "PluginHost"]

#: nucleo's own plugins, by plugin name and ``module:attribute``, in registration order: every
#: host registers them first, through `PluginHost.register_plugin` like any plugin (pytest's
#: default plugins are the model), so the hook specifications are proven sufficient. Named
#: here rather than imported, since they live in the layers above this one. Blocking a name
#: (``block=["builtin:sub_thinker"]``, or ``NUCLEO_PLUGINS_BLOCK``) switches that builtin off;
#: the allow list and ``enabled=False`` govern installed plugins only.
BUILTIN_PLUGINS: tuple[tuple[str, str], ...] = (
    ("builtin:artifact_tools", "nucleo_core.thinking.builtins:ARTIFACT_TOOLS_PLUGIN"),
    ("builtin:sub_thinker", "nucleo_core.thinking.builtins:SUB_THINKER_PLUGIN"),
    ("builtin:request_tools", "nucleo_core.hub.builtins:REQUEST_TOOLS_PLUGIN"),
    ("builtin:search_tools", "nucleo_core.hub.builtins:SEARCH_TOOLS_PLUGIN"),
    ("builtin:request_skill", "nucleo_core.hub.builtins:REQUEST_SKILL_PLUGIN"),
    ("builtin:skill_files", "nucleo_core.hub.builtins:SKILL_FILES_PLUGIN"),
)


@final
class PluginHost:
    """Loads nucleo plugins and calls their hooks: the only code that calls ``pm.hook.*``.

    A host owns its own ``pluggy.PluginManager`` and loads nothing until asked: `load` reads
    the entry points, `register_plugin` takes a plugin from code (nucleo's own builtins, a
    test's guardrail). Every plugin it is given or finds gets a `PluginRecord` saying what
    became of it and what it brought. A plugin that fails to import, lacks a dependency, names
    a hook that does not exist, or raises in or returns the wrong type from a hook is recorded
    with its distribution and reason and skipped; ``strict=True`` raises `PluginError` instead.

    Selection (parameters are for code; the environment variables are for the CLI and for
    operators, and are read once, when the host is built):

    * ``enabled``: ``True`` or ``False`` decides whether entry points are loaded at all. ``None``
      (the default) loads them unless ``NUCLEO_DISABLE_PLUGIN_AUTOLOAD`` is set to anything but
      ``0``/``false``/``no``/``off``. Switched off, `load` records every entry point as
      ``disabled`` and imports none; `register_plugin` still works.
    * ``allow``: entry points must match one of these names or globs to load (the others are
      recorded ``blocked``). ``None`` (the default) takes ``NUCLEO_PLUGINS_ALLOW``
      (comma-separated), and allows every entry point when that is unset or empty. A list given,
      even empty, wins over the variable. The allow list does not apply to `register_plugin`.
    * ``block``: plugins matching one of these names or globs are recorded ``blocked`` and never
      imported. ``NUCLEO_PLUGINS_BLOCK`` (comma-separated) is always added: blocking can only
      keep a broken plugin out, so an operator can always do it without touching code. It
      applies to `register_plugin` too, by plugin name or distribution.
    * ``path``: the folders to find distributions (``*.dist-info``) in, instead of everywhere
      Python finds installed ones: a host that sees only the plugins of one folder, whatever
      else is installed. ``None`` (the default) takes ``NUCLEO_PLUGINS_PATH`` (folders separated
      by ``os.pathsep``), and looks everywhere when that is unset or empty. The entry points'
      modules are imported as usual, so the folders must also be importable (on ``sys.path``).

    A pattern matches an entry point's name, its plugin name (``<group>:<name>``), or its
    distribution's name (compared as packaging normalizes it: ``Acme_Tools`` is ``acme-tools``).

    Hook implementations are called one at a time, in load order (``tryfirst`` ones first,
    ``trylast`` ones last), so that one failing never skips the others and contributions keep a
    stable order. Loading is serialized by a lock; hook calls may run concurrently.

    Args:
        allow: Entry point or distribution names (globs allowed) to load exclusively.
        block: Entry point, plugin or distribution names (globs allowed) never to load.
        enabled: Whether to load entry points at all; ``None`` asks the environment.
        strict: Raise `PluginError` on the first plugin failure (for a plugin author's CI).
        groups: The entry point groups to read, in load order; a subset of
            `ENTRY_POINT_GROUPS`.
        path: The only folders to find plugin distributions in; ``None`` asks the environment.
        environment: Where the environment variables are read; ``None`` means ``os.environ``.
            Pass ``{}`` to ignore the environment.

    Raises:
        ValueError: ``groups`` names a group nucleo does not define, or ``path`` (or
            ``NUCLEO_PLUGINS_PATH``) a folder that does not exist.
    """

    def __init__(
        self,
        *,
        allow: Iterable[str] | None = None,
        block: Iterable[str] = (),
        enabled: bool | None = None,
        strict: bool = False,
        groups: Sequence[str] = ENTRY_POINT_GROUPS,
        path: Iterable[str | os.PathLike[str]] | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        environment = os.environ if environment is None else environment
        self.strict = strict
        self.groups: tuple[str, ...] = known_groups(groups)
        #: The folders distributions are found in, absolute; ``None`` for everywhere.
        self.path: tuple[str, ...] | None = resolve_search_path(path, environment)
        self.selection = PluginSelection.resolve(
            allow=allow,
            block=block,
            enabled=enabled,
            environment=environment,
        )
        self._manager = pluggy.PluginManager(PROJECT_NAME)
        self._manager.add_hookspecs(hookspecs)
        self._known_hooks: tuple[str, ...] = tuple(hookspecs.__all__)
        self._lock = threading.RLock()
        self._ledger = PluginLedger(self._lock, lambda: self.strict)
        self._calls = HookCalls(self._manager, self._ledger, self._lock)
        self._registrar = PluginRegistrar(
            self._manager, self._ledger, self._calls, self.selection, self._known_hooks
        )
        # The builtin plugins come first: the first records, the first in every hook's order.
        for name, target in BUILTIN_PLUGINS:
            self._register_builtin(name, target)
        self._builtin_count = len(self._ledger.records)

    def __repr__(self) -> str:
        with self._lock:
            loaded = len(self._ledger.index)
        return f"<PluginHost {loaded} loaded of {len(self._ledger.records)} records>"

    # -- what the host holds ---------------------------------------------------------------

    @property
    def records(self) -> tuple[PluginRecord, ...]:
        """Every plugin given or found, in the order it was met, with what became of it.

        The builtin plugins are not among them: see `builtins`.
        """
        with self._lock:
            return tuple(self._ledger.records[self._builtin_count :])

    @property
    def builtins(self) -> tuple[PluginRecord, ...]:
        """Nucleo's own plugins (`BUILTIN_PLUGINS`), registered first; blocked ones included."""
        with self._lock:
            return tuple(self._ledger.records[: self._builtin_count])

    def palette_tools(self, thinker: Any) -> list[ContributedTool]:
        """Every ``nucleo_palette_tools(thinker)`` answer, validated and attributed, in order."""
        return self._calls.tools_of("nucleo_palette_tools", {"thinker": thinker}, None)

    def palette_providers(self, thinker: Any) -> list[ToolProvider]:
        """The providers of every ``nucleo_palette_tools(thinker)`` answer, in order.

        What `palette_tools` returns without the attribution: asked at every turn of every
        thinker, so it does no more than call, validate and collect.
        """
        return self._calls.providers_of("nucleo_palette_tools", {"thinker": thinker})

    def pack_tools(self, plugins: Collection[str] | None = None) -> list[PackTool]:
        """The tools ``nucleo.tools`` entry points brought, in load order.

        Args:
            plugins: Only those brought by these plugins (`PluginRecord.plugin` names), e.g.
                the ones a later `load` returned; ``None`` for all.
        """
        with self._lock:
            return [
                tool for tool in self._registrar.tools if plugins is None or tool.plugin in plugins
            ]

    def skill_packages(self, plugins: Collection[str] | None = None) -> list[SkillPackage]:
        """The packages of skill folders ``nucleo.skills`` entry points named, in load order.

        Args:
            plugins: Only those named by these plugins; ``None`` for all.
        """
        with self._lock:
            return [
                package
                for package in self._registrar.skill_packages
                if plugins is None or package.plugin in plugins
            ]

    def record(self, plugin: str) -> PluginRecord | None:
        """The current record of the loaded plugin named ``plugin`` (`PluginRecord.plugin`)."""
        return self._ledger.record(plugin)

    # -- loading ---------------------------------------------------------------------------

    def load(self) -> list[PluginRecord]:
        """Load the entry points not yet met by this host, and return their records.

        Entry points are read afresh (import caches invalidated first), so a distribution
        installed since the last call is found; those already met, whatever became of them,
        are not looked at again. They are taken in group order, then by name. An object
        already loaded (one module named under two groups) is loaded once; the second record
        is a ``duplicate`` saying which plugin it is.

        Returns:
            The records of the entry points met by this call, in load order.

        Raises:
            PluginError: The host is strict and an entry point failed (it is recorded first).
        """
        with self._lock:
            met: list[PluginRecord] = []
            from nucleo_core.plugins._entry_points import find_entry_points

            for found in find_entry_points(self.groups, self.path):
                if found.key in self._registrar.seen:
                    continue
                self._registrar.seen.add(found.key)
                record = self._registrar.load_entry_point(found)
                met.append(record)
            return met

    def register_plugin(
        self,
        plugin: object,
        *,
        name: str | None = None,
        distribution: str | None = None,
    ) -> PluginRecord:
        """Register a hook plugin directly: a module, class or object with ``nucleo_*`` hooks.

        The plugin is checked as an entry point's would be (it must implement at least one
        hook, name only hooks that exist, and be marked with ``@hookimpl``), and the block list
        applies; the allow list and the autoload switch do not.

        Args:
            plugin: The module, class or object implementing the hooks.
            name: Its plugin name; by default its dotted name (a module's ``__name__``).
            distribution: The distribution it belongs to, for the record (its version is
                looked up).

        Returns:
            Its record.

        Raises:
            PluginError: The host is strict and the plugin failed (it is recorded first).
        """
        with self._lock:
            return self._registrar.register(plugin, name, distribution)

    def _register_builtin(self, name: str, target: str) -> None:
        """Register one builtin plugin, as `register_plugin` registers any plugin."""
        module_name, _, attribute = target.partition(":")
        plugin = getattr(importlib.import_module(module_name), attribute)
        self.register_plugin(plugin, name=name, distribution="nucleo-core")

    def system_wide_tools(self, plugins: Collection[str] | None = None) -> list[ContributedTool]:
        """Every ``nucleo_system_wide_tools`` answer, validated and attributed.

        Args:
            plugins: Ask only these plugins (`PluginRecord.plugin` names), e.g. those a later
                `load` returned; ``None`` asks every plugin.
        """
        return self._calls.tools_of("nucleo_system_wide_tools", {}, plugins)

    def compatible_tools(
        self, thinker_class: type[Any], plugins: Collection[str] | None = None
    ) -> list[ContributedTool]:
        """Every ``nucleo_compatible_tools(thinker_class)`` answer, validated and attributed.

        Args:
            thinker_class: The thinker class whose catalog is being resolved.
            plugins: Ask only these plugins; ``None`` asks every plugin.
        """
        return self._calls.tools_of(
            "nucleo_compatible_tools", {"thinker_class": thinker_class}, plugins
        )

    def implements(self, hook: str) -> bool:
        """Whether any loaded plugin implements ``hook`` (callers skip work when none does).

        Asked several times a turn, so it reads the implementations the host keeps in call
        order (worked out again only when a plugin is registered or unregistered).
        """
        return bool(self._calls.implementations(hook, None))

    def implementers(self, hook: str) -> tuple[str, ...]:
        """The plugin names implementing ``hook``, in the order the host calls them."""
        return tuple(impl.plugin_name for impl in self._calls.implementations(hook, None))

    def permission(
        self, thinker: Any, provider: Any, arguments: Mapping[str, Any]
    ) -> Iterator[HookDecision]:
        """Ask the ``nucleo_permission`` implementations about one call, as the caller iterates.

        Each implementation is asked only when the next answer is taken, in `implementers`
        order, so a caller that stops waiting (the guard's time limit) knows which one it was
        waiting for. Every implementation is asked even after one denied or failed; a failure
        (it raised, or answered something other than a decision or ``None``) is a
        `HookDecision` with an ``error`` and no decision, recorded against its plugin.
        """
        return self._calls.permission(thinker, provider, arguments)

    def withheld(self, thinker: Any, catalog: Sequence[str]) -> set[str]:
        """The names of ``catalog`` that some ``nucleo_reconcile_catalog`` withholds this turn.

        Names an implementation returns that are not in ``catalog`` are ignored. An
        implementation that raises or answers something that is not names fails closed: the
        whole catalog is withheld for this turn (the failure is recorded against its plugin and
        logged with its distribution), since the tool it meant to withhold cannot be known.
        """
        return self._calls.withheld(thinker, catalog)

    def admit_tool(self, thinker: Any, provider: Any) -> list[HookVerdict]:
        """Ask every ``nucleo_admit_tool`` implementation, one at a time, about ``provider``.

        Every implementation is asked even when an earlier one refused or failed; a failure is
        returned as a `HookVerdict` with an ``error`` and no verdict, never as a grant.
        """
        return self._calls.verdicts("nucleo_admit_tool", {"thinker": thinker, "provider": provider})

    def admit_skill(self, thinker: Any, skill: Any) -> list[HookVerdict]:
        """Ask every ``nucleo_admit_skill`` implementation, one at a time, about ``skill``.

        Called like `admit_tool`.
        """
        return self._calls.verdicts("nucleo_admit_skill", {"thinker": thinker, "skill": skill})

    def skill_sources(self, plugins: Collection[str] | None = None) -> list[ContributedSource]:
        """Every ``nucleo_skill_sources`` answer, validated and attributed.

        Args:
            plugins: Ask only these plugins; ``None`` asks every plugin.
        """
        return self._calls.skill_sources(plugins)

    def skill_tool_aliases(
        self, plugins: Collection[str] | None = None
    ) -> list[tuple[str, dict[str, tuple[str, ...]]]]:
        """Every ``nucleo_skill_tool_aliases`` answer, validated: ``(plugin, aliases)`` pairs.

        Args:
            plugins: Ask only these plugins; ``None`` asks every plugin.
        """
        return self._calls.skill_tool_aliases(plugins)
