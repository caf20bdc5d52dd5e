"""How a table's columns share the terminal's width: names stay whole, text wraps, some drop out.

A listing exists to show names and ids, so a name is never cut (no ``current_weath…``): each
`Column` says what kind of value it holds and whether it may be left out on a narrow line.

- ``key`` columns (a tool's name, a source id) keep their full width and never wrap.
- ``value`` columns (a risk, a status, a distribution and its version) wrap only between words.
- ``text`` columns (a description, details) wrap anywhere words allow, down to a few words a line.

`plan_layout` first gives every text column a comfortable width; when the line is too narrow
it leaves out the columns marked droppable, least important first, squeezing the text columns
to their narrowest before it drops one of them. Only a line too narrow for the key columns
themselves gets no widths: the columns that may go are left out, and rich lays out the rest,
folding (never cutting) what does not fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["COLUMN_GAP", "Column", "Layout", "plan_layout"]

#: What the tables put between two columns: the padding on each side and the blank divider.
COLUMN_GAP = 3
# A text column is never planned narrower than this (unless its cells are narrower): a
# column of single words reads as a list, not as a sentence.
_TEXT_MIN = 12
# The width a text column is given before any column is dropped to make room for it.
_TEXT_COMFORTABLE = 30
# A word longer than this does not widen a text column's minimum: it folds instead (a path).
_LONGEST_WORD_KEPT = 24

ColumnKind = Literal["key", "value", "text"]


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a listing.

    Attributes:
        heading: The column's title.
        kind: ``key`` (never wrapped nor cut), ``value`` (wrapped between words) or ``text``
            (wrapped freely).
        drop_rank: Whether the column may be left out on a narrow line, and in which order:
            the lowest rank goes first. ``None``: always shown.
    """

    heading: str
    kind: ColumnKind = "text"
    drop_rank: int | None = None


@dataclass(frozen=True, slots=True)
class Layout:
    """The columns a table shows, and their widths.

    Attributes:
        shown: The index (in the table's columns) of each column shown, in order.
        widths: Each shown column's width, or ``None`` when the line is too narrow to plan:
            rich lays the table out, folding what does not fit.
        dropped: The headings of the columns left out, in the table's order.
    """

    shown: tuple[int, ...]
    widths: tuple[int, ...] | None
    dropped: tuple[str, ...]


def plan_layout(columns: Sequence[Column], cells: Sequence[Sequence[str]], width: int) -> Layout:
    """Which columns to show, and how wide, for ``cells`` on a line of ``width``.

    Args:
        columns: The table's columns.
        cells: Every row's cells as plain text (a cell may hold several lines).
        width: The line's width, in terminal cells.
    """
    measures = [_measure(column, index, cells) for index, column in enumerate(columns)]
    kept = list(range(len(columns)))
    droppable = sorted(
        (index for index, column in enumerate(columns) if column.drop_rank is not None),
        key=lambda index: (columns[index].drop_rank, index),
    )
    while True:
        for squeezed in (False, True):
            # Text is squeezed to its narrowest only before a text column would be dropped.
            next_is_text = not droppable or columns[droppable[0]].kind == "text"
            if squeezed and not next_is_text:
                continue
            widths = _fit(columns, measures, kept, width, squeezed=squeezed)
            if widths is not None:
                dropped = tuple(c.heading for i, c in enumerate(columns) if i not in kept)
                return Layout(shown=tuple(kept), widths=tuple(widths), dropped=dropped)
        if not droppable:
            # Too narrow even for the names: rich shares the line out, folding every column.
            dropped = tuple(c.heading for i, c in enumerate(columns) if i not in kept)
            return Layout(shown=tuple(kept), widths=None, dropped=dropped)
        kept.remove(droppable.pop(0))


@dataclass(frozen=True, slots=True)
class _Measure:
    natural: int  # the widest line of the column, heading included
    narrowest: int  # the narrowest it may be planned
    comfortable: int  # the width it is given while no column need be dropped


def _measure(column: Column, index: int, cells: Sequence[Sequence[str]]) -> _Measure:
    from rich.cells import cell_len

    lines = [column.heading] + [
        line for row in cells if index < len(row) for line in row[index].splitlines()
    ]
    natural = max(map(cell_len, lines))
    words = [cell_len(word) for line in lines for word in line.split()] or [0]
    if column.kind == "key":
        return _Measure(natural, natural, natural)
    if column.kind == "value":
        return _Measure(natural, max(words), natural)
    narrowest = min(natural, max(_TEXT_MIN, min(max(words), _LONGEST_WORD_KEPT)))
    return _Measure(natural, narrowest, max(narrowest, min(natural, _TEXT_COMFORTABLE)))


def _fit(
    columns: Sequence[Column],
    measures: Sequence[_Measure],
    kept: Sequence[int],
    width: int,
    *,
    squeezed: bool,
) -> list[int] | None:
    """The kept columns' widths on ``width``, or ``None`` if their minimums do not fit."""
    room = width - COLUMN_GAP * (len(kept) - 1)
    minimums = {
        index: measures[index].narrowest if squeezed else measures[index].comfortable
        for index in kept
    }
    if sum(minimums.values()) > room:
        return None
    widths = dict(minimums)
    spare = room - sum(widths.values())
    # Key and value columns first: a whole risk or status reads better than a wider text.
    for index in kept:
        if columns[index].kind != "text":
            grow = min(spare, measures[index].natural - widths[index])
            widths[index] += grow
            spare -= grow
    # What is left is shared by the text columns: each up to its natural width, the
    # narrower ones satisfied first, the rest in equal shares.
    texts = sorted(
        (index for index in kept if columns[index].kind == "text"),
        key=lambda index: measures[index].natural,
    )
    for position, index in enumerate(texts):
        share = (spare + sum(widths[i] for i in texts[position:])) // (len(texts) - position)
        target = max(widths[index], min(measures[index].natural, share))
        spare -= target - widths[index]
        widths[index] = target
    return [widths[index] for index in kept]
