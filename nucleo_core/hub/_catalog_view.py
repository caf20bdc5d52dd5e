"""`CatalogView`: an immutable view of a thinker class's catalog that widens in O(1).

A catalog of 20,000 tools widened by one must not cost a copy of 20,000 references per view
(what a tuple of the catalog cost on every turn after a change). The hub keeps each catalog's
tools in an append-only list; a view is that list and a length, so a view taken before a
widening still holds exactly the tools it held (the list only grows past its end), and the new
view shares the list. A narrowing starts a new list (the old views keep theirs untouched).

Whoever followed one view can tell that a later one only widened it (`widens`) and read just
the tools added since (`added_since`): the palette's offer decision and the thinker's search
index apply that delta instead of re-reading the catalog.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["CatalogView", "frozen_members"]


class CatalogView(Sequence["ToolProvider"]):
    """The first ``size`` tools of an append-only list, read-only.

    Compares equal to a tuple (or another view) of the same tools, as the tuple it replaces.
    """

    __slots__ = ("_items", "_size")

    def __init__(self, items: list[ToolProvider], size: int) -> None:
        self._items = items
        self._size = size

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> ToolProvider: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[ToolProvider, ...]: ...

    def __getitem__(self, index: int | slice) -> ToolProvider | tuple[ToolProvider, ...]:
        if isinstance(index, slice):
            return tuple(self._items[: self._size][index])
        size = self._size
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("catalog view index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[ToolProvider]:
        return islice(self._items, self._size)

    def __bool__(self) -> bool:
        return self._size > 0

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, CatalogView | tuple):
            return len(other) == self._size and all(
                a == b for a, b in zip(self, other, strict=True)
            )
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"CatalogView({self._size} tools)"

    def widens(self, earlier: object) -> bool:
        """Whether this view is ``earlier`` (a view of the same catalog) plus tools added since.

        ``False`` for anything else (a narrowing in between, another catalog, not a view).
        """
        return (
            isinstance(earlier, CatalogView)
            and earlier._items is self._items
            and earlier._size <= self._size
        )

    def added_since(self, earlier: CatalogView) -> list[ToolProvider]:
        """The tools this view holds beyond ``earlier``, which it `widens`, in order."""
        if not self.widens(earlier):
            raise ValueError("the view does not widen that view")
        return self._items[earlier._size : self._size]


def frozen_members(catalog: Sequence[ToolProvider]) -> Sequence[ToolProvider]:
    """``catalog`` as an immutable sequence: a view or tuple as is, anything else copied.

    A list reused and changed in place (by ``reconcile_catalog``) must not pass later for the
    same catalog; the hub's own view cannot change, so it is kept without a copy.
    """
    if type(catalog) is CatalogView or type(catalog) is tuple:
        return catalog
    return tuple(catalog)
