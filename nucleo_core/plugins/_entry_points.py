"""Finding entry points, in load order (why one failed to import: `failures.import_failure`)."""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Sequence
from dataclasses import dataclass

from nucleo_core.plugins._selection import normalized_distribution_name
from nucleo_core.plugins.failures import import_failure

__all__ = ["FoundEntryPoint", "find_entry_points", "import_failure"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FoundEntryPoint:
    """An entry point with the distribution that declares it.

    Attributes:
        entry_point: The entry point itself.
        distribution: Its distribution's name, or ``None`` when unknown.
        version: Its distribution's version, or ``None`` when unknown.
    """

    entry_point: importlib.metadata.EntryPoint
    distribution: str | None
    version: str | None

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two entry points the same one: group, name and value."""
        point = self.entry_point
        return (point.group, point.name, point.value)


def _shipped_by(point: importlib.metadata.EntryPoint) -> tuple[str | None, str | None]:
    distribution = getattr(point, "dist", None)
    if distribution is None:
        return None, None
    try:  # a distribution's metadata is read from disk, and may be broken
        name: str | None = distribution.metadata["Name"]
        version: str | None = distribution.version
    except Exception:
        return None, None
    return name, version


def _entry_points_in(path: Sequence[str]) -> importlib.metadata.EntryPoints:
    """The entry points of the distributions found in the folders of ``path``.

    A distribution found twice counts once, the first found winning, as
    `importlib.metadata.entry_points` does along ``sys.path``.
    """
    seen: set[str] = set()
    points: list[importlib.metadata.EntryPoint] = []
    for distribution in importlib.metadata.distributions(path=list(path)):
        try:  # a distribution's metadata is read from disk, and may be broken
            name = distribution.metadata["Name"]
        except Exception:
            name = None
        if name is not None:
            key = normalized_distribution_name(name)
            if key in seen:
                continue
            seen.add(key)
        points.extend(distribution.entry_points)
    return importlib.metadata.EntryPoints(points)


def find_entry_points(
    groups: Sequence[str], path: Sequence[str] | None = None
) -> list[FoundEntryPoint]:
    """Every installed entry point of ``groups``, ordered by group, then name.

    Import caches are invalidated first, so that a distribution installed (or put on
    ``sys.path``) since the last look is seen.

    Args:
        groups: The entry point groups, in load order.
        path: The folders to find distributions in; ``None`` for every one Python finds
            (``sys.path``, and any other finder of distributions installed).
    """
    importlib.invalidate_caches()
    ranked: list[tuple[int, str, str, str, FoundEntryPoint]] = []
    # Every distribution is read once, not once per group.
    installed = importlib.metadata.entry_points() if path is None else _entry_points_in(path)
    for rank, group in enumerate(groups):
        for point in installed.select(group=group):
            distribution, version = _shipped_by(point)
            found = FoundEntryPoint(entry_point=point, distribution=distribution, version=version)
            ranked.append((rank, point.name, point.value, distribution or "", found))
    ranked.sort(key=lambda item: item[:4])
    return [item[4] for item in ranked]
