"""Why a plugin could not be loaded, worded the way every nucleo record words it.

A plugin that loads plugins of its own (the ``llm`` bridge loads ``llm`` tool packs) reports
a broken one with `import_failure`, so that ``nucleo plugins`` says the same thing of it as of
any entry point nucleo loads itself.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import importlib.metadata

__all__ = ["import_failure"]


def import_failure(point: importlib.metadata.EntryPoint, exc: Exception) -> str:
    """Why ``point`` could not be loaded (``point.load()`` raised ``exc``), for its record.

    A module that cannot be found is a missing dependency (``missing dependency: requests``)
    unless it is the entry point's own module, a package above it, or a module inside the
    entry point's own (regular) package: then the distribution itself is broken, and the
    reason is ``failed to import: <type>: <message>`` as for any other exception.

    Args:
        point: The entry point whose ``load()`` failed.
        exc: What it raised.

    Returns:
        One line, for `PluginRecord.error`.
    """
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        own = point.module
        missing_top = exc.name.partition(".")[0]
        package = sys.modules.get(missing_top)
        inside_own = (
            missing_top == own.partition(".")[0]
            and getattr(package, "__file__", None) is not None  # not a namespace package
        )
        if not (own == exc.name or own.startswith(exc.name + ".") or inside_own):
            return f"missing dependency: {exc.name}"
    return f"failed to import: {type(exc).__name__}: {exc}"
