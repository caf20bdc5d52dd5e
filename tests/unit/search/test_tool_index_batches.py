"""`ToolIndex.add` of a large batch: analysed a chunk at a time, applied whole or not at all."""

from __future__ import annotations

from typing import Any

import pytest

from nucleo_core.search import ToolIndex
from nucleo_core.tools.spec import ToolSpec

QUERIES = ["read a file", "create an issue", "send a message", "tool 17", "tool 411"]


def record(number: int, topic: str = "file") -> dict[str, Any]:
    return {
        "name": f"tool_{number}",
        "description": f"Tool {number} works on a {topic} ({number % 7} of seven)",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }


def answers(index: ToolIndex) -> list[list[tuple[str, float]]]:
    return [[(hit.name, hit.score) for hit in index.search(query, 10)] for query in QUERIES]


def test_a_batch_of_many_chunks_ranks_as_tools_added_one_by_one() -> None:
    batch = [record(n, ("file", "issue", "message")[n % 3]) for n in range(700)]
    one_by_one = ToolIndex()
    for item in batch:
        one_by_one.add([item])
    whole = ToolIndex(batch)
    assert whole.names() == one_by_one.names()
    assert answers(whole) == answers(one_by_one)


def test_an_analysis_that_fails_past_the_first_chunks_leaves_the_index_as_it_was() -> None:
    index = ToolIndex([record(n) for n in range(20)])
    before_names, before_answers = index.names(), answers(index)
    before_spec = index.spec("tool_3")
    # Replaces indexed tools, adds new ones, and fails far past the first chunk: a display
    # name that is not text passes the record check but not the analysis.
    broken = ToolSpec(name="broken", description="x", input_schema={}, display_name=7)  # type: ignore[arg-type]
    assert index.names() == before_names
    batch = [record(n, "issue") for n in range(600)] + [broken]
    with pytest.raises(TypeError):
        index.add(batch)
    assert index.names() == before_names
    assert index.spec("tool_3") == before_spec
    assert answers(index) == before_answers  # as a fresh index of the tools kept
    assert "tool_500" not in index
    assert "broken" not in index
