"""The depth bound on model-sent JSON: measured without recursion, refused past the limit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from nucleo_core.models._json_depth import (
    MAX_JSON_DEPTH,
    JSONTooDeep,
    TooDeep,
    exceeds,
    loads,
    loads_cut,
    overflows,
    render,
    tool_input,
)

DEEP = 10_000


def nested_list(depth: int) -> list[Any]:
    """A list nesting ``depth`` levels, built without recursion."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_text_at_the_limit_decodes_and_one_level_more_is_refused() -> None:
    """``loads`` decodes 100 levels and refuses 101 with JSONTooDeep, a ValueError."""
    at_limit = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads(at_limit) == nested_list(MAX_JSON_DEPTH)
    with pytest.raises(JSONTooDeep, match=f"more than {MAX_JSON_DEPTH} levels deep"):
        loads("[" + at_limit + "]")
    with pytest.raises(JSONTooDeep):
        loads("[" * DEEP + "]" * DEEP)


def test_brackets_inside_strings_do_not_count() -> None:
    """A string holding brackets is not nesting."""
    text = json.dumps({"q": "[" * DEEP + '\\"{'})
    assert overflows(text) is None
    assert loads(text) == {"q": "[" * DEEP + '\\"{'}


def test_invalid_text_is_a_value_error() -> None:
    """Text that is not JSON is refused as json refuses it."""
    with pytest.raises(json.JSONDecodeError):
        loads('{"q": ')
    with pytest.raises(UnicodeDecodeError):
        loads(b"\xff\xfe")


def test_a_value_s_depth_is_measured_at_any_depth_and_a_cycle_counts_as_too_deep() -> None:
    """``exceeds`` walks 10,000 levels without recursion and stops on a cycle."""
    assert not exceeds(nested_list(MAX_JSON_DEPTH))
    assert exceeds(nested_list(MAX_JSON_DEPTH + 1))
    assert exceeds({"a": nested_list(DEEP)})
    cycle: list[Any] = []
    cycle.append(cycle)
    assert exceeds(cycle)
    assert not exceeds("text")


def test_the_cut_form_is_bounded_and_still_too_deep() -> None:
    """A too-deep value or text becomes at most about 1 KB of text that overflows the limit."""
    for given in ({"q": nested_list(DEEP)}, '{"q": ' + "[" * DEEP + "]" * DEEP + "}"):
        kept = tool_input(given)
        assert isinstance(kept, str)
        assert len(kept) <= 1_100
        assert kept.endswith("…")
        assert overflows(kept) is not None


def test_what_fits_is_kept_as_it_is() -> None:
    """An object within the limit is kept (a copy); text within it is kept verbatim."""
    value = {"q": nested_list(5)}
    assert tool_input(value) == value
    assert tool_input('{"q": [1]}') == '{"q": [1]}'
    assert tool_input("not json") == "not json"
    assert tool_input(None) == "null"
    assert tool_input([1, 2]) == "[1, 2]"


def test_render_matches_json_dumps_and_never_raises() -> None:
    """``render`` is json.dumps for what JSON holds, and writes anything else as its str."""
    value = {"a": [1, 2.5, None, True], "b": "é"}
    assert render(value) == json.dumps(value, ensure_ascii=False)
    assert render(value, ascii_only=True) == json.dumps(value)
    assert render({"s": {1}}) == '{"s": "{1}"}'
    assert render({(1, 2): "tuple key", "deep": nested_list(DEEP)}).startswith('{"(1, 2)": ')


def test_a_whole_body_is_read_with_its_too_deep_parts_marked() -> None:
    """``loads_cut`` decodes what nests within the limit and marks what nests past it."""
    body = '{"a": ' + "[" * DEEP + "]" * DEEP + ', "b": {"c": [1, "x"]}, "d": {"e": {}}}'
    decoded = loads_cut(body, 3)
    assert decoded["b"] == {"c": [1, "x"]}
    assert decoded["d"] == {"e": {}}
    inner = decoded["a"][0][0]
    assert isinstance(inner, TooDeep)
    assert inner.opener == "["
    assert exceeds(decoded)
    with pytest.raises(json.JSONDecodeError, match="unterminated"):
        loads_cut('{"a": ' + "[" * DEEP, 3)  # never closed
