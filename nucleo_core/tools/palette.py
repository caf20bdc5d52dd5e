"""`ReadOnlyPalette`: the read-only binding, enforced at the offer and at every call."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, final

from nucleo_core.errors import ReadOnlyViolation

if TYPE_CHECKING:
    from nucleo_core.tools.provider import ToolProvider
    from nucleo_core.tools.registry import ToolRegistry

__all__ = ["ReadOnlyPalette"]

logger = logging.getLogger("nucleo.palette")


@final
class ReadOnlyPalette:
    """The two enforcement points of a read-only binding.

    `sweep` decides what the model is *offered*; `require_read_only` decides what may *run*,
    and is the guarantee: a registry can be widened after its definitions were built (by
    ``request_tools``, a system-wide tool, a direct ``add_tool``), so only the per-call check
    holds.
    """

    def __init__(self) -> None:
        raise TypeError("ReadOnlyPalette is a namespace of two checks; call its methods directly")

    @staticmethod
    def sweep(registry: ToolRegistry) -> list[str]:
        """Remove every provider not declared read-only; name (and log) each removal.

        Returns:
            The removed tools' names, in registry order.
        """
        removed: list[str] = []
        for provider in registry.providers():
            if not provider.read_only:
                registry.unregister(provider)
                removed.append(provider.name)
                logger.info(
                    "read-only palette: removed %s (%s), not declared read-only",
                    provider.name,
                    provider.source,
                )
        return removed

    @staticmethod
    def require_read_only(provider: ToolProvider) -> None:
        """Assert that ``provider``'s tool may run under a read-only binding.

        Raises:
            ReadOnlyViolation: The tool is not declared read-only.
        """
        if not provider.read_only:
            raise ReadOnlyViolation(provider.name)
