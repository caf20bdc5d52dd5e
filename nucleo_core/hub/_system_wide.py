"""`SystemWideTools`: the tools a hub offers every thinker, and the clashes it reported."""

from __future__ import annotations

import logging
import threading
from typing import Any

from nucleo_core.tools.provider import ToolProvider

__all__ = ["SystemWideTools"]

logger = logging.getLogger("nucleo.hub")


class SystemWideTools:
    """One hub's system-wide tools, by name (`ToolHub.register_system_wide_tool` and the rest).

    Args:
        lock: The hub's lock, which every change holds.
    """

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._tools: dict[str, ToolProvider] = {}
        self._clashes: set[tuple[type[Any], str]] = set()

    def add(self, providers: list[ToolProvider]) -> None:
        """Offer ``providers``; a name already offered keeps its first tool."""
        with self._lock:
            for provider in providers:
                self._tools.setdefault(provider.name, provider)

    def withdraw(self, name: str) -> ToolProvider | None:
        """Stop offering the tool ``name``; the tool withdrawn, if there was one."""
        with self._lock:
            return self._tools.pop(name, None)

    def offers(self, provider: ToolProvider) -> bool:
        """Whether ``provider`` is a system-wide tool now."""
        with self._lock:
            present = self._tools.get(provider.name)
        return present is not None and (present is provider or present == provider)

    def providers(self) -> list[ToolProvider]:
        """The system-wide tools, in registration order."""
        with self._lock:
            return list(self._tools.values())

    def names(self) -> set[str]:
        """The names offered now."""
        with self._lock:
            return set(self._tools)

    def note_clash(
        self, thinker_class: type[Any], system_wide: ToolProvider, holder: ToolProvider
    ) -> None:
        """Report, once per class and name, a system-wide tool a thinker's own tool outranks."""
        key = (thinker_class, system_wide.name)
        with self._lock:
            if key in self._clashes:
                return
            self._clashes.add(key)
        logger.warning(
            "system-wide tool %s is not offered to %s: its own tool %s holds the name %r; "
            "rename one of them (an MCP server's tools: give the server a prefix)",
            system_wide.source,
            thinker_class.__qualname__,
            holder.source,
            system_wide.name,
        )
