"""`render_output`: a tool's output as the text of its result block."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import TypedDict

import pytest
from pydantic import BaseModel

from nucleo_core.thinking.execution import render_output


class Hit(BaseModel):
    path: str
    line: int


@dataclass
class Page:
    title: str
    hits: list[Hit]
    day: date


class Row(TypedDict):
    key: str
    value: int


def test_text_is_kept_as_it_is() -> None:
    """A string output is its own result text."""
    assert render_output("plain → text") == "plain → text"


def test_none_renders_as_empty_text() -> None:
    """A tool returning nothing answers with empty text."""
    assert render_output(None) == ""


def test_a_pydantic_model_renders_as_its_json() -> None:
    """A pydantic model output is its model_dump_json()."""
    hit = Hit(path="a.py", line=3)
    assert render_output(hit) == hit.model_dump_json()


def test_a_dataclass_renders_as_json_with_nested_values_made_serialisable() -> None:
    """A dataclass is JSON; nested models are dumped and other values written as str()."""
    page = Page(title="Café", hits=[Hit(path="a.py", line=1)], day=date(2024, 5, 1))
    assert json.loads(render_output(page)) == {
        "title": "Café",
        "hits": [{"path": "a.py", "line": 1}],
        "day": "2024-05-01",
    }
    assert "Café" in render_output(page)  # not escaped to \\u00e9


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (Row(key="k", value=1), {"key": "k", "value": 1}),
        ({"a": [1, 2]}, {"a": [1, 2]}),
        ([1, "two", None], [1, "two", None]),
        ((1, 2), [1, 2]),
        ({"tags": frozenset({"x"})}, {"tags": ["x"]}),
    ],
)
def test_mappings_and_sequences_render_as_json(output: object, expected: object) -> None:
    """Dicts, TypedDicts, lists and tuples are JSON; sets inside become lists."""
    assert json.loads(render_output(output)) == expected


def test_output_json_cannot_hold_falls_back_to_str() -> None:
    """A mapping with keys JSON cannot hold renders as its str()."""
    output = {(1, 2): "pair"}
    assert render_output(output) == str(output)


@pytest.mark.parametrize("output", [42, 1.5, True, b"bytes", date(2024, 1, 2)])
def test_other_values_render_as_str(output: object) -> None:
    """Anything else is its str()."""
    assert render_output(output) == str(output)
