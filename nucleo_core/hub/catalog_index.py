"""`CatalogIndex`: the `ToolIndex` of one thinker's catalog, kept in step as it changes.

``search_tools`` ranks a thinker's catalog by a query; the index it asks is kept per thinker
and synced by difference with the catalog of each turn, never rebuilt for a widening.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nucleo_core.hub._catalog_view import CatalogView
from nucleo_core.tools.provider import ToolProvider

if TYPE_CHECKING:
    from nucleo_core.search.index import ToolIndex
    from nucleo_core.search.semantic import Embedder

__all__ = ["CatalogIndex"]


@dataclass(slots=True)
class CatalogIndex:
    """A `ToolIndex` that follows one catalog: synced by difference, never rebuilt.

    `synced` compares the catalog it is handed with the one it last saw: the very same
    sequence costs nothing; a catalog that only widened costs the new tools (found by object
    identity, at C speed, without reading 20,000 names); otherwise the names gone are removed
    and the tools new (or replaced by another provider) are added, in place.
    """

    index: ToolIndex | None = None
    members: Sequence[ToolProvider] = ()
    by_id: dict[int, ToolProvider] = field(default_factory=dict)
    embedder: Embedder | None = None

    def synced(
        self, catalog: Sequence[ToolProvider], *, embedder: Embedder | None = None
    ) -> ToolIndex:
        """The index, brought in line with ``catalog`` first.

        ``embedder`` (the hub's ``search_embedder``) adds semantic ranking; another one than
        the index was built with builds it anew.
        """
        if embedder is not self.embedder:
            self.index, self.members, self.by_id, self.embedder = None, (), {}, embedder
        if self.index is not None and catalog is self.members:
            return self.index
        members = self.members
        if (
            self.index is not None
            and isinstance(catalog, CatalogView)
            and isinstance(members, CatalogView)
            and catalog.widens(members)
        ):
            # The hub's view of a catalog that only widened: its delta, not a re-read.
            added = catalog.added_since(members)
            adding = _by_name(added)
            if len(adding) == len(added) and not any(name in self.index for name in adding):
                self.index.add(list(adding.values()))
                self.by_id.update((id(provider), provider) for provider in added)
                self.members = catalog
                return self.index
        # Keyed by id(): the members are held (self.members), so no id is reused meanwhile.
        now = dict(zip(map(id, catalog), catalog, strict=True))
        index = self.index
        if index is None:
            from nucleo_core.search.index import ToolIndex

            index = self.index = ToolIndex(list(_by_name(catalog).values()), embedder=embedder)
        else:
            new = _widening(self.by_id, now, len(catalog), index)
            if new is not None:
                if new:
                    new.sort(key=lambda provider: provider.name)  # set order is arbitrary
                    index.add(new)
            else:
                by_name = _by_name(catalog)
                indexed = _by_name(list(self.by_id.values()))
                gone = [name for name in indexed if name not in by_name]
                fresh = [p for name, p in by_name.items() if indexed.get(name) is not p]
                if gone:
                    index.remove(gone)
                if fresh:
                    index.add(fresh)
        self.members = catalog
        self.by_id = now
        return index


def _widening(
    held: dict[int, ToolProvider], now: dict[int, ToolProvider], size: int, index: ToolIndex
) -> list[ToolProvider] | None:
    """The tools a catalog that only widened added; ``None`` if it did anything else.

    Only widened: every provider held is still there, each object once, and no new provider
    takes a name already indexed or another new provider's. Costs set operations on ids and
    the new tools' names, not a read of the whole catalog's names.
    """
    if len(now) != size or not held.keys() <= now.keys():
        return None
    new = [now[key] for key in now.keys() - held.keys()]
    names = {provider.name for provider in new}
    if len(names) != len(new) or any(name in index for name in names):
        return None
    return new


def _by_name(catalog: Sequence[ToolProvider]) -> dict[str, ToolProvider]:
    """The catalog by name (a name given twice: its last provider, as a catalog reads)."""
    return {provider.name: provider for provider in catalog}
