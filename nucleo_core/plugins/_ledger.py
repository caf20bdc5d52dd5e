"""`PluginLedger`: a host's record of every plugin it met, and of what failed since."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable

from nucleo_core.plugins.errors import PluginError
from nucleo_core.plugins.record import PluginRecord

__all__ = ["PluginLedger"]

_logger = logging.getLogger("nucleo_core.plugins")

#: At most this many distinct hook failures are kept per plugin (a hook called every turn
#: that fails every turn would otherwise grow its record without bound).
_HOOK_ERRORS_KEPT = 20


class PluginLedger:
    """The records of one `PluginHost`, in the order its plugins were met.

    Args:
        lock: The host's lock, which every change holds.
        strict: Whether the host is strict now: a failure then raises `PluginError`.
    """

    def __init__(self, lock: threading.RLock, strict: Callable[[], bool]) -> None:
        self._lock = lock
        self._strict = strict
        self.records: list[PluginRecord] = []
        # Plugin name -> index in records, for every plugin that loaded.
        self.index: dict[str, int] = {}
        # Plugin name -> load sequence number: the order hook implementations are called in.
        self.sequence: dict[str, int] = {}

    def add(self, record: PluginRecord) -> PluginRecord:
        """Keep ``record`` (lock held)."""
        self.records.append(record)
        return record

    def loaded(self, record: PluginRecord) -> PluginRecord:
        """Keep the record of a plugin that loaded, last in the order hooks are called in."""
        self.sequence[record.plugin] = len(self.sequence)
        loaded = self.add(record)
        self.index[record.plugin] = len(self.records) - 1
        return loaded

    def fail(self, record: PluginRecord, reason: str, cause: Exception | None) -> PluginRecord:
        """Keep ``record`` as failed for ``reason``; raise `PluginError` instead when strict."""
        failed = self.add(dataclasses.replace(record, status="failed", error=reason))
        shipped = record.distribution or "no known distribution"
        _logger.warning("plugin %s (%s) skipped: %s", record.plugin, shipped, reason)
        if self._strict():
            raise PluginError(record.plugin, record.distribution, reason) from cause
        return failed

    def record(self, plugin: str) -> PluginRecord | None:
        """The current record of the loaded plugin named ``plugin``."""
        with self._lock:
            index = self.index.get(plugin)
            return None if index is None else self.records[index]

    def distribution_of(self, plugin: str) -> str | None:
        """The distribution that ships the loaded plugin ``plugin``, if known."""
        found = self.record(plugin)
        return None if found is None else found.distribution

    def with_subplugins(
        self, record: PluginRecord, subplugins: tuple[PluginRecord, ...]
    ) -> PluginRecord:
        """Keep a loaded pack's sub-plugin records on its record (lock held).

        A failed sub-plugin leaves the pack loaded (its other sub-plugins' tools are in);
        a strict host raises for it, as for any plugin that failed.
        """
        index = self.index[record.plugin]
        record = self.records[index] = dataclasses.replace(record, subplugins=subplugins)
        for subplugin in subplugins:
            if subplugin.status == "failed" and self._strict():
                reason = f"{subplugin.plugin}: {subplugin.error}"
                raise PluginError(record.plugin, record.distribution, reason)
        return record

    def hook_failed(self, plugin: str, reason: str, cause: Exception) -> None:
        """Note on ``plugin``'s record that one of its hooks failed; raise it when strict."""
        with self._lock:
            index = self.index.get(plugin)
            distribution: str | None = None
            if index is not None:
                record = self.records[index]
                distribution = record.distribution
                errors = record.hook_errors
                if reason not in errors and len(errors) < _HOOK_ERRORS_KEPT:
                    self.records[index] = dataclasses.replace(record, hook_errors=(*errors, reason))
        _logger.warning(
            "plugin %s (%s): %s", plugin, distribution or "no known distribution", reason
        )
        if self._strict():
            raise PluginError(plugin, distribution, reason) from cause
