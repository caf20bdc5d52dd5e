"""`PluginHost`: loads plugins explicitly and is the only caller of their hooks."""

from __future__ import annotations

import dataclasses
import importlib
import logging
import os
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, final

import pluggy

from nucleo_core.plugins import hookspecs
from nucleo_core.plugins._contribution import ContributionFailure, contribution_of
from nucleo_core.plugins._inspection import HookScan, scan_hooks
from nucleo_core.plugins._selection import (
    ENTRY_POINT_GROUPS,
    PluginSelection,
    resolve_search_path,
)
from nucleo_core.plugins._validation import (
    TOOLS_EXPECTED,
    WrongType,
    decision_from,
    names_from,
    sources_from,
    tools_from,
    verdict_from,
)
from nucleo_core.plugins.contributions import (
    ContributedSource,
    ContributedTool,
    HookDecision,
    HookVerdict,
    PackTool,
    SkillPackage,
)
from nucleo_core.plugins.errors import PluginError
from nucleo_core.plugins.markers import PROJECT_NAME
from nucleo_core.plugins.record import PluginRecord

if TYPE_CHECKING:
    from nucleo_core.plugins._entry_points import FoundEntryPoint
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["BUILTIN_PLUGINS", "PluginHost"]

_logger = logging.getLogger("nucleo_core.plugins")

_T = TypeVar("_T")

#: At most this many distinct hook failures are kept per plugin (a hook called every turn
#: that fails every turn would otherwise grow its record without bound).
_HOOK_ERRORS_KEPT = 20

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


class _Failure(Exception):
    """A plugin could not be taken in; ``str()`` is the reason."""


def _dotted_name(subject: object) -> str:
    """A module's name; a class's or function's dotted name; else its class's."""
    if isinstance(subject, ModuleType):
        return subject.__name__
    named = subject if hasattr(subject, "__qualname__") else type(subject)
    return f"{getattr(named, '__module__', None) or '?'}.{getattr(named, '__qualname__', '?')}"


def _version_of(distribution: str | None) -> str | None:
    if distribution is None:
        return None
    import importlib.metadata  # here: importlib.metadata costs ~10 ms at `import nucleo_core`

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


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
        unknown = [group for group in groups if group not in ENTRY_POINT_GROUPS]
        if unknown:
            raise ValueError(
                f"unknown entry point group(s) {unknown}; nucleo reads {list(ENTRY_POINT_GROUPS)}"
            )
        environment = os.environ if environment is None else environment
        self.strict = strict
        self.groups: tuple[str, ...] = tuple(dict.fromkeys(groups))
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
        self._records: list[PluginRecord] = []
        # Plugin name -> index in _records, for every plugin that loaded.
        self._index: dict[str, int] = {}
        # Plugin name -> load sequence number: the order hook implementations are called in.
        self._sequence: dict[str, int] = {}
        self._seen: set[tuple[str, str, str]] = set()
        # id() of every loaded object -> (the object, kept alive so the id stays its own; name).
        self._loaded: dict[int, tuple[object, str]] = {}
        self._tools: list[PackTool] = []
        self._skill_packages: list[SkillPackage] = []
        # Each hook's implementations over every plugin, in call order; cleared on registration.
        self._ordered: dict[str, list[pluggy.HookImpl]] = {}
        # The builtin plugins come first: the first records, the first in every hook's order.
        for name, target in BUILTIN_PLUGINS:
            self._register_builtin(name, target)
        self._builtin_count = len(self._records)

    def __repr__(self) -> str:
        with self._lock:
            loaded = len(self._index)
        return f"<PluginHost {loaded} loaded of {len(self._records)} records>"

    # -- what the host holds ---------------------------------------------------------------

    @property
    def records(self) -> tuple[PluginRecord, ...]:
        """Every plugin given or found, in the order it was met, with what became of it.

        The builtin plugins are not among them: see `builtins`.
        """
        with self._lock:
            return tuple(self._records[self._builtin_count :])

    @property
    def builtins(self) -> tuple[PluginRecord, ...]:
        """Nucleo's own plugins (`BUILTIN_PLUGINS`), registered first; blocked ones included."""
        with self._lock:
            return tuple(self._records[: self._builtin_count])

    def palette_tools(self, thinker: Any) -> list[ContributedTool]:
        """Every ``nucleo_palette_tools(thinker)`` answer, validated and attributed, in order."""
        return self._tools_of("nucleo_palette_tools", {"thinker": thinker}, None)

    def palette_providers(self, thinker: Any) -> list[ToolProvider]:
        """The providers of every ``nucleo_palette_tools(thinker)`` answer, in order.

        What `palette_tools` returns without the attribution: asked at every turn of every
        thinker, so it does no more than call, validate and collect.
        """
        arguments = {"thinker": thinker}
        providers: list[ToolProvider] = []
        for impl in self._implementations("nucleo_palette_tools", None):
            answer, _ = self._ask(impl, "nucleo_palette_tools", arguments, _tools_or_none)
            if answer:
                providers.extend(answer)
        return providers

    def pack_tools(self, plugins: Collection[str] | None = None) -> list[PackTool]:
        """The tools ``nucleo.tools`` entry points brought, in load order.

        Args:
            plugins: Only those brought by these plugins (`PluginRecord.plugin` names), e.g.
                the ones a later `load` returned; ``None`` for all.
        """
        with self._lock:
            return [tool for tool in self._tools if plugins is None or tool.plugin in plugins]

    def skill_packages(self, plugins: Collection[str] | None = None) -> list[SkillPackage]:
        """The packages of skill folders ``nucleo.skills`` entry points named, in load order.

        Args:
            plugins: Only those named by these plugins; ``None`` for all.
        """
        with self._lock:
            return [
                package
                for package in self._skill_packages
                if plugins is None or package.plugin in plugins
            ]

    def record(self, plugin: str) -> PluginRecord | None:
        """The current record of the loaded plugin named ``plugin`` (`PluginRecord.plugin`)."""
        with self._lock:
            index = self._index.get(plugin)
            return None if index is None else self._records[index]

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
                if found.key in self._seen:
                    continue
                self._seen.add(found.key)
                record = self._load_entry_point(found)
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
            value = _dotted_name(plugin)
            record = PluginRecord(
                name=name or value,
                group=None,
                value=value,
                distribution=distribution,
                version=_version_of(distribution),
                status="loaded",
            )
            note = self.selection.refusal((record.name,), distribution, direct=True)
            if note is not None:
                return self._add(dataclasses.replace(record, status="blocked", note=note))
            plugin_name = record.plugin
            return self._take_in(
                record, plugin, lambda scan: self._hooks_only(plugin, plugin_name, scan)
            )

    def _register_builtin(self, name: str, target: str) -> None:
        """Register one builtin plugin, as `register_plugin` registers any plugin."""
        module_name, _, attribute = target.partition(":")
        plugin = getattr(importlib.import_module(module_name), attribute)
        self.register_plugin(plugin, name=name, distribution="nucleo-core")

    def _load_entry_point(self, found: FoundEntryPoint) -> PluginRecord:
        point = found.entry_point
        record = PluginRecord(
            name=point.name,
            group=point.group,
            value=point.value,
            distribution=found.distribution,
            version=found.version,
            status="loaded",
        )
        if not self.selection.enabled:
            off = f"entry-point loading is switched off ({self.selection.switched_off_by})"
            return self._add(dataclasses.replace(record, status="disabled", note=off))
        refusal = self.selection.refusal(
            (point.name, record.plugin), found.distribution, direct=False
        )
        if refusal is not None:
            return self._add(dataclasses.replace(record, status="blocked", note=refusal))
        try:
            loaded = point.load()
        except Exception as exc:  # isolate any failure of third-party import-time code
            from nucleo_core.plugins._entry_points import import_failure

            return self._fail(record, import_failure(point, exc), exc)

        subplugins: list[PluginRecord] = []

        def contribute(scan: HookScan) -> tuple[str, ...]:
            try:
                contribution = contribution_of(point.group, loaded, point.value, scan)
            except ContributionFailure as exc:
                raise _Failure(str(exc)) from exc.__cause__
            contributed = [f"tool: {provider.name}" for provider in contribution.tools]
            subplugins.extend(contribution.subplugins)
            if contribution.registers_hooks:
                contributed.extend(self._register_hooks(loaded, record.plugin, scan))
            self._tools.extend(
                PackTool(
                    provider=provider,
                    pack=point.name,
                    plugin=record.plugin,
                    distribution=found.distribution,
                )
                for provider in contribution.tools
            )
            if contribution.skill_package is not None:
                package = contribution.skill_package
                self._skill_packages.append(
                    SkillPackage(
                        package=package, plugin=record.plugin, distribution=found.distribution
                    )
                )
                contributed.append(f"skills package: {package}")
            return tuple(contributed)

        taken = self._take_in(record, loaded, contribute)
        if taken.status == "loaded" and subplugins:
            taken = self._with_subplugins(taken, tuple(subplugins))
        return taken

    def _with_subplugins(
        self, record: PluginRecord, subplugins: tuple[PluginRecord, ...]
    ) -> PluginRecord:
        """Keep a loaded pack's sub-plugin records on its record (lock held).

        A failed sub-plugin leaves the pack loaded (its other sub-plugins' tools are in);
        a strict host raises for it, as for any plugin that failed.
        """
        index = self._index[record.plugin]
        record = self._records[index] = dataclasses.replace(record, subplugins=subplugins)
        for subplugin in subplugins:
            if subplugin.status == "failed" and self.strict:
                reason = f"{subplugin.plugin}: {subplugin.error}"
                raise PluginError(record.plugin, record.distribution, reason)
        return record

    def _hooks_only(self, plugin: object, name: str, scan: HookScan) -> tuple[str, ...]:
        if not scan.is_hook_plugin:
            raise _Failure("implements no nucleo_* hook")
        return self._register_hooks(plugin, name, scan)

    def _take_in(
        self,
        record: PluginRecord,
        subject: object,
        contribute: Callable[[HookScan], tuple[str, ...]],
    ) -> PluginRecord:
        """Dedupe, check the name, contribute, and record the outcome (lock held)."""
        earlier = self._loaded.get(id(subject))
        if earlier is not None:
            note = f"already loaded as {earlier[1]}"
            return self._add(dataclasses.replace(record, status="duplicate", note=note))
        taken = self._index.get(record.plugin)
        if taken is not None:
            other = self._records[taken]
            shipped = f" from {other.distribution}" if other.distribution else ""
            reason = f"the plugin name {record.plugin} is already taken by {other.value}{shipped}"
            return self._fail(record, reason, None)
        try:
            contributed = contribute(scan_hooks(self._manager, subject, self._known_hooks))
        except _Failure as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else None
            return self._fail(record, str(exc), cause)
        self._loaded[id(subject)] = (subject, record.plugin)
        self._sequence[record.plugin] = len(self._sequence)
        self._ordered.clear()
        loaded = self._add(dataclasses.replace(record, contributed=contributed))
        self._index[record.plugin] = len(self._records) - 1
        _logger.debug("loaded plugin %s: %s", record.plugin, ", ".join(contributed) or "nothing")
        return loaded

    def _register_hooks(self, plugin: object, name: str, scan: HookScan) -> tuple[str, ...]:
        """Register ``plugin``'s hooks under its plugin name, or fail without registering."""
        if scan.problems:
            raise _Failure("; ".join(scan.problems))
        try:
            self._manager.register(plugin, name=name)
            self._ordered.clear()
        except pluggy.PluginValidationError as exc:
            raise _Failure(f"invalid hook implementation: {_one_line(exc)}") from exc
        try:
            self._manager.check_pending()
        except pluggy.PluginValidationError as exc:  # an unknown hook the scan did not catch
            self._manager.unregister(name=name)
            self._ordered.clear()
            raise _Failure(f"names a hook that does not exist: {_one_line(exc)}") from exc
        return (f"hooks: {', '.join(scan.hooks)}",) if scan.hooks else ()

    def _add(self, record: PluginRecord) -> PluginRecord:
        self._records.append(record)
        return record

    def _fail(self, record: PluginRecord, reason: str, cause: Exception | None) -> PluginRecord:
        failed = self._add(dataclasses.replace(record, status="failed", error=reason))
        shipped = record.distribution or "no known distribution"
        _logger.warning("plugin %s (%s) skipped: %s", record.plugin, shipped, reason)
        if self.strict:
            raise PluginError(record.plugin, record.distribution, reason) from cause
        return failed

    # -- calling hooks ---------------------------------------------------------------------

    def _implementations(self, hook: str, plugins: Collection[str] | None) -> list[pluggy.HookImpl]:
        if plugins is None:  # every plugin: kept, in order, until a plugin is registered
            cached = self._ordered.get(hook)
            if cached is not None:
                return cached
        caller: pluggy.HookCaller = getattr(self._manager.hook, hook)
        chosen = [
            impl
            for impl in caller.get_hookimpls()
            if plugins is None or impl.plugin_name in plugins
        ]
        sequence = self._sequence

        def order(impl: pluggy.HookImpl) -> tuple[int, int]:
            tier = 0 if impl.tryfirst else 2 if impl.trylast else 1
            return (tier, sequence.get(impl.plugin_name, len(sequence)))

        ordered = sorted(chosen, key=order)
        if plugins is None:
            with self._lock:
                self._ordered[hook] = ordered
        return ordered

    def _distribution_of(self, plugin: str) -> str | None:
        found = self.record(plugin)
        return None if found is None else found.distribution

    def _ask(
        self,
        impl: pluggy.HookImpl,
        hook: str,
        arguments: Mapping[str, Any],
        validate: Callable[[object], _T],
    ) -> tuple[_T | None, str | None]:
        """Call one implementation and validate its answer: ``(answer, None)`` or ``(None, why)``.

        A failure is recorded against the plugin (and raised as `PluginError` when strict).
        """
        cause: Exception
        try:
            # pluggy passes an implementation only the arguments it names, positionally.
            result = impl.function(*(arguments[name] for name in impl.argnames))
            return validate(result), None
        except WrongType as exc:
            reason, cause = f"returned the wrong type from {hook}: {exc}", exc
        except Exception as exc:  # isolate the plugin: one crash must not stop the others
            reason, cause = f"raised in {hook}: {type(exc).__name__}: {exc}", exc
        self._hook_failed(impl.plugin_name, reason, cause)
        return None, reason

    def _hook_failed(self, plugin: str, reason: str, cause: Exception) -> None:
        with self._lock:
            index = self._index.get(plugin)
            distribution: str | None = None
            if index is not None:
                record = self._records[index]
                distribution = record.distribution
                errors = record.hook_errors
                if reason not in errors and len(errors) < _HOOK_ERRORS_KEPT:
                    self._records[index] = dataclasses.replace(
                        record, hook_errors=(*errors, reason)
                    )
        _logger.warning(
            "plugin %s (%s): %s", plugin, distribution or "no known distribution", reason
        )
        if self.strict:
            raise PluginError(plugin, distribution, reason) from cause

    def _tools_of(
        self, hook: str, arguments: Mapping[str, Any], plugins: Collection[str] | None
    ) -> list[ContributedTool]:
        def validate(result: object) -> list[Any]:
            return [] if result is None else tools_from(result, f"{TOOLS_EXPECTED}, or None")

        contributed: list[ContributedTool] = []
        for impl in self._implementations(hook, plugins):
            providers, error = self._ask(impl, hook, arguments, validate)
            if error is None and providers:
                distribution = self._distribution_of(impl.plugin_name)
                contributed.extend(
                    ContributedTool(provider=p, plugin=impl.plugin_name, distribution=distribution)
                    for p in providers
                )
        return contributed

    def system_wide_tools(self, plugins: Collection[str] | None = None) -> list[ContributedTool]:
        """Every ``nucleo_system_wide_tools`` answer, validated and attributed.

        Args:
            plugins: Ask only these plugins (`PluginRecord.plugin` names), e.g. those a later
                `load` returned; ``None`` asks every plugin.
        """
        return self._tools_of("nucleo_system_wide_tools", {}, plugins)

    def compatible_tools(
        self, thinker_class: type[Any], plugins: Collection[str] | None = None
    ) -> list[ContributedTool]:
        """Every ``nucleo_compatible_tools(thinker_class)`` answer, validated and attributed.

        Args:
            thinker_class: The thinker class whose catalog is being resolved.
            plugins: Ask only these plugins; ``None`` asks every plugin.
        """
        return self._tools_of("nucleo_compatible_tools", {"thinker_class": thinker_class}, plugins)

    def implements(self, hook: str) -> bool:
        """Whether any loaded plugin implements ``hook`` (callers skip work when none does)."""
        caller: pluggy.HookCaller = getattr(self._manager.hook, hook)
        return bool(caller.get_hookimpls())

    def implementers(self, hook: str) -> tuple[str, ...]:
        """The plugin names implementing ``hook``, in the order the host calls them."""
        return tuple(impl.plugin_name for impl in self._implementations(hook, None))

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
        hook = "nucleo_permission"
        asked = {"thinker": thinker, "provider": provider, "arguments": arguments}
        for impl in self._implementations(hook, None):
            decision, error = self._ask(impl, hook, asked, decision_from)
            yield HookDecision(
                plugin=impl.plugin_name,
                distribution=self._distribution_of(impl.plugin_name),
                decision=decision,
                error=error,
            )

    def withheld(self, thinker: Any, catalog: Sequence[str]) -> set[str]:
        """The names of ``catalog`` that some ``nucleo_reconcile_catalog`` withholds this turn.

        Names an implementation returns that are not in ``catalog`` are ignored. An
        implementation that raises or answers something that is not names fails closed: the
        whole catalog is withheld for this turn (the failure is recorded against its plugin and
        logged with its distribution), since the tool it meant to withhold cannot be known.
        """
        names = tuple(catalog)
        arguments = {"thinker": thinker, "catalog": names}
        withheld: set[str] = set()
        for impl in self._implementations("nucleo_reconcile_catalog", None):
            answer, error = self._ask(
                impl,
                "nucleo_reconcile_catalog",
                arguments,
                lambda result: [] if result is None else names_from(result),
            )
            if error is not None:
                _logger.warning(
                    "plugin %s failed in nucleo_reconcile_catalog: the whole catalog of %r is "
                    "withheld this turn",
                    impl.plugin_name,
                    thinker,
                )
                return set(names)
            withheld.update(answer or ())
        return withheld & set(names)

    def _verdicts(self, hook: str, arguments: Mapping[str, Any]) -> list[HookVerdict]:
        verdicts: list[HookVerdict] = []
        for impl in self._implementations(hook, None):
            verdict, error = self._ask(impl, hook, arguments, verdict_from)
            verdicts.append(
                HookVerdict(
                    plugin=impl.plugin_name,
                    distribution=self._distribution_of(impl.plugin_name),
                    verdict=verdict,
                    error=error,
                )
            )
        return verdicts

    def admit_tool(self, thinker: Any, provider: Any) -> list[HookVerdict]:
        """Ask every ``nucleo_admit_tool`` implementation, one at a time, about ``provider``.

        Every implementation is asked even when an earlier one refused or failed; a failure is
        returned as a `HookVerdict` with an ``error`` and no verdict, never as a grant.
        """
        return self._verdicts("nucleo_admit_tool", {"thinker": thinker, "provider": provider})

    def admit_skill(self, thinker: Any, skill: Any) -> list[HookVerdict]:
        """Ask every ``nucleo_admit_skill`` implementation, one at a time, about ``skill``.

        Called like `admit_tool`.
        """
        return self._verdicts("nucleo_admit_skill", {"thinker": thinker, "skill": skill})

    def skill_sources(self, plugins: Collection[str] | None = None) -> list[ContributedSource]:
        """Every ``nucleo_skill_sources`` answer, validated and attributed.

        Args:
            plugins: Ask only these plugins; ``None`` asks every plugin.
        """

        def validate(result: object) -> list[Any]:
            return [] if result is None else sources_from(result)

        sources: list[ContributedSource] = []
        for impl in self._implementations("nucleo_skill_sources", plugins):
            answer, _ = self._ask(impl, "nucleo_skill_sources", {}, validate)
            distribution = self._distribution_of(impl.plugin_name)
            sources.extend(
                ContributedSource(source=source, plugin=impl.plugin_name, distribution=distribution)
                for source in answer or ()
            )
        return sources

    def skill_tool_aliases(
        self, plugins: Collection[str] | None = None
    ) -> list[tuple[str, dict[str, tuple[str, ...]]]]:
        """Every ``nucleo_skill_tool_aliases`` answer, validated: ``(plugin, aliases)`` pairs.

        Args:
            plugins: Ask only these plugins; ``None`` asks every plugin.
        """
        from nucleo_core.skills.aliases import aliases_from

        hook = "nucleo_skill_tool_aliases"

        def validate(result: object) -> dict[str, tuple[str, ...]]:
            if result is None:
                return {}
            try:
                return aliases_from(result, where="the aliases")
            except TypeError as exc:
                expected = "a mapping of skill tool names to tool names, or None"
                raise WrongType(expected, f"{type(result).__name__} ({exc})") from None

        answers: list[tuple[str, dict[str, tuple[str, ...]]]] = []
        for impl in self._implementations(hook, plugins):
            answer, _ = self._ask(impl, hook, {}, validate)
            if answer:
                answers.append((impl.plugin_name, answer))
        return answers


def _tools_or_none(result: object) -> list[ToolProvider]:
    return [] if result is None else tools_from(result, f"{TOOLS_EXPECTED}, or None")
