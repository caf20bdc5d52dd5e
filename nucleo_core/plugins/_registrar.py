"""`PluginRegistrar`: taking a plugin into a host, from an entry point or from code."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

import pluggy

from nucleo_core.plugins._contribution import ContributionFailure, contribution_of
from nucleo_core.plugins._hook_calls import HookCalls
from nucleo_core.plugins._inspection import HookScan, scan_hooks
from nucleo_core.plugins._ledger import PluginLedger
from nucleo_core.plugins._selection import PluginSelection
from nucleo_core.plugins.contributions import PackTool, SkillPackage
from nucleo_core.plugins.record import PluginRecord

if TYPE_CHECKING:
    from nucleo_core.plugins._entry_points import FoundEntryPoint

__all__ = ["PluginRegistrar"]

_logger = logging.getLogger("nucleo_core.plugins")


class _Failure(Exception):
    """A plugin could not be taken in; ``str()`` is the reason."""


class PluginRegistrar:
    """Takes plugins into one host: checks, dedupes, registers their hooks, keeps their tools.

    Every method is called with the host's lock held.

    Args:
        manager: The host's plugin manager.
        ledger: The host's records.
        calls: The host's hook calls, whose order a registration changes.
        selection: The host's allow and block lists and autoload switch.
        known_hooks: The names of the hooks nucleo specifies.
    """

    def __init__(
        self,
        manager: pluggy.PluginManager,
        ledger: PluginLedger,
        calls: HookCalls,
        selection: PluginSelection,
        known_hooks: tuple[str, ...],
    ) -> None:
        self._manager = manager
        self._ledger = ledger
        self._calls = calls
        self._selection = selection
        self._known_hooks = known_hooks
        #: Every entry point met, by `FoundEntryPoint.key`.
        self.seen: set[tuple[str, str, str]] = set()
        # id() of every loaded object -> (the object, kept alive so the id stays its own; name).
        self._loaded: dict[int, tuple[object, str]] = {}
        #: The tools ``nucleo.tools`` entry points brought, in load order.
        self.tools: list[PackTool] = []
        #: The packages of skill folders ``nucleo.skills`` entry points named, in load order.
        self.skill_packages: list[SkillPackage] = []

    def register(self, plugin: object, name: str | None, distribution: str | None) -> PluginRecord:
        """Register a hook plugin directly (`PluginHost.register_plugin`)."""
        value = _dotted_name(plugin)
        record = PluginRecord(
            name=name or value,
            group=None,
            value=value,
            distribution=distribution,
            version=_version_of(distribution),
            status="loaded",
        )
        note = self._selection.refusal((record.name,), distribution, direct=True)
        if note is not None:
            return self._ledger.add(dataclasses.replace(record, status="blocked", note=note))
        plugin_name = record.plugin
        return self._take_in(
            record, plugin, lambda scan: self._hooks_only(plugin, plugin_name, scan)
        )

    def load_entry_point(self, found: FoundEntryPoint) -> PluginRecord:
        """Load one entry point, as its group says, unless the selection keeps it out."""
        point = found.entry_point
        record = PluginRecord(
            name=point.name,
            group=point.group,
            value=point.value,
            distribution=found.distribution,
            version=found.version,
            status="loaded",
        )
        if not self._selection.enabled:
            off = f"entry-point loading is switched off ({self._selection.switched_off_by})"
            return self._ledger.add(dataclasses.replace(record, status="disabled", note=off))
        refusal = self._selection.refusal(
            (point.name, record.plugin), found.distribution, direct=False
        )
        if refusal is not None:
            return self._ledger.add(dataclasses.replace(record, status="blocked", note=refusal))
        try:
            loaded = point.load()
        except Exception as exc:  # isolate any failure of third-party import-time code
            from nucleo_core.plugins._entry_points import import_failure

            return self._ledger.fail(record, import_failure(point, exc), exc)

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
            self.tools.extend(
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
                self.skill_packages.append(
                    SkillPackage(
                        package=package, plugin=record.plugin, distribution=found.distribution
                    )
                )
                contributed.append(f"skills package: {package}")
            return tuple(contributed)

        taken = self._take_in(record, loaded, contribute)
        if taken.status == "loaded" and subplugins:
            taken = self._ledger.with_subplugins(taken, tuple(subplugins))
        return taken

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
        ledger = self._ledger
        earlier = self._loaded.get(id(subject))
        if earlier is not None:
            note = f"already loaded as {earlier[1]}"
            return ledger.add(dataclasses.replace(record, status="duplicate", note=note))
        taken = ledger.index.get(record.plugin)
        if taken is not None:
            other = ledger.records[taken]
            shipped = f" from {other.distribution}" if other.distribution else ""
            reason = f"the plugin name {record.plugin} is already taken by {other.value}{shipped}"
            return ledger.fail(record, reason, None)
        try:
            contributed = contribute(scan_hooks(self._manager, subject, self._known_hooks))
        except _Failure as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else None
            return ledger.fail(record, str(exc), cause)
        self._loaded[id(subject)] = (subject, record.plugin)
        self._calls.forget_order()
        loaded = ledger.loaded(dataclasses.replace(record, contributed=contributed))
        _logger.debug("loaded plugin %s: %s", record.plugin, ", ".join(contributed) or "nothing")
        return loaded

    def _register_hooks(self, plugin: object, name: str, scan: HookScan) -> tuple[str, ...]:
        """Register ``plugin``'s hooks under its plugin name, or fail without registering."""
        if scan.problems:
            raise _Failure("; ".join(scan.problems))
        try:
            self._manager.register(plugin, name=name)
            self._calls.forget_order()
        except pluggy.PluginValidationError as exc:
            raise _Failure(f"invalid hook implementation: {_one_line(exc)}") from exc
        try:
            self._manager.check_pending()
        except pluggy.PluginValidationError as exc:  # an unknown hook the scan did not catch
            self._manager.unregister(name=name)
            self._calls.forget_order()
            raise _Failure(f"names a hook that does not exist: {_one_line(exc)}") from exc
        return (f"hooks: {', '.join(scan.hooks)}",) if scan.hooks else ()


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
