"""How a listing's columns share a line: names whole, text wrapped, the least important dropped."""

from __future__ import annotations

import pytest

from nucleo_core.cli.columns import COLUMN_GAP, Column, plan_layout

COLUMNS = (
    Column("Name", "key"),
    Column("Source", "key", drop_rank=1),
    Column("Risk", "value"),
    Column("Description", "text", drop_rank=2),
)
ROWS = [
    ["current_weather", "native:current_weather", "high (undeclared)", "Say what the weather is."],
    ["forecast", "native:forecast", "low", "Forecast the weather for a city, day by day."],
]


def test_a_wide_line_shows_every_column_at_its_natural_width() -> None:
    """With room for everything, nothing is dropped and no cell wraps."""
    layout = plan_layout(COLUMNS, ROWS, 200)
    assert layout.dropped == ()
    assert layout.widths == (15, 22, 17, 44)


@pytest.mark.parametrize("width", range(40, 120))
def test_key_columns_shown_are_never_narrower_than_their_longest_value(width: int) -> None:
    """At any width a name or id column is shown whole, or not at all; the plan fits the line."""
    layout = plan_layout(COLUMNS, ROWS, width)
    assert layout.widths is not None
    shown = dict(zip(layout.shown, layout.widths, strict=True))
    assert shown[0] == len("current_weather")
    if 1 in shown:
        assert shown[1] == len("native:current_weather")
    assert sum(layout.widths) + COLUMN_GAP * (len(layout.widths) - 1) <= width


def test_the_lowest_ranked_column_goes_first_and_the_text_keeps_a_readable_width() -> None:
    """When the line is short, Source is dropped before the description is squeezed thin."""
    layout = plan_layout(COLUMNS, ROWS, 80)
    assert layout.dropped == ("Source",)
    assert layout.widths is not None
    assert layout.widths[-1] >= 30


def test_text_is_squeezed_to_its_narrowest_before_it_is_dropped() -> None:
    """A text column is dropped only when even its narrowest width does not fit."""
    narrow = plan_layout(COLUMNS, ROWS, 15 + 12 + 12 + 2 * COLUMN_GAP)
    assert narrow.dropped == ("Source",)
    assert narrow.widths == (15, 12, 12)
    narrower = plan_layout(COLUMNS, ROWS, 15 + 12 + 11 + 2 * COLUMN_GAP)
    assert narrower.dropped == ("Source", "Description")


def test_a_line_too_narrow_for_the_names_is_left_to_rich_without_the_droppable_columns() -> None:
    """Below the names' own width there is no plan: the droppable columns are named as left out."""
    layout = plan_layout(COLUMNS, ROWS, 20)
    assert layout.widths is None
    assert layout.shown == (0, 2)
    assert layout.dropped == ("Source", "Description")
