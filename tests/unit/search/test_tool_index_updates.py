"""`ToolIndex.add` / `remove`: an index changed in place answers as a fresh build would."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nucleo_core.search import ToolIndex

WORDS = ["file", "issue", "message", "branch", "event", "query", "image", "user", "page", "key"]
VERBS = ["list", "create", "delete", "read", "update", "send", "search", "run"]
QUERIES = ["list files", "create an issue", "send message to user", "delete branch", "run query"]


def make_tool(number: int, verb: int, nouns: list[int], extra: list[int]) -> dict[str, Any]:
    name = f"{VERBS[verb]}_{WORDS[nouns[0]]}_{number}"
    description = " ".join([VERBS[verb].capitalize(), *(WORDS[noun] for noun in nouns + extra)])
    properties = {WORDS[noun]: {"type": "string", "description": WORDS[noun]} for noun in extra}
    return {
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": properties},
    }


tools = st.builds(
    make_tool,
    st.integers(0, 40),
    st.integers(0, len(VERBS) - 1),
    st.lists(st.integers(0, len(WORDS) - 1), min_size=1, max_size=3),
    st.lists(st.integers(0, len(WORDS) - 1), max_size=4),
)
# One step: add a batch (names unique within it), or remove some names by position.
steps = st.one_of(
    st.tuples(st.just("add"), st.lists(tools, max_size=6, unique_by=lambda tool: tool["name"])),
    st.tuples(st.just("remove"), st.lists(st.integers(0, 60), max_size=4)),
)


def answers(index: ToolIndex) -> list[list[tuple[str, float]]]:
    return [[(hit.name, hit.score) for hit in index.search(query, 50)] for query in QUERIES]


def replay(history: list[tuple[str, Any]]) -> tuple[ToolIndex, dict[str, dict[str, Any]]]:
    """Apply the steps to one index in place; return it and the tools it should hold."""
    index = ToolIndex()
    live: dict[str, dict[str, Any]] = {}
    for kind, payload in history:
        if kind == "add":
            index.add(payload)
            for tool in payload:
                live.pop(tool["name"], None)
                live[tool["name"]] = tool
        else:
            names = [list(live)[position % len(live)] for position in payload] if live else []
            index.remove(names)
            for name in names:
                live.pop(name, None)
        # Search between the steps, so that additions land in separate segments.
        index.search("file")
    return index, live


@settings(max_examples=60)
@given(st.lists(steps, max_size=8))
def test_an_index_changed_in_place_ranks_like_a_fresh_build(history: list[tuple[str, Any]]) -> None:
    """After any additions and removals (and a compaction) every query ranks as a fresh index."""
    index, live = replay(history)
    fresh = ToolIndex(list(live.values()))
    assert index.names() == list(live)
    assert len(index) == len(fresh)
    # Before compaction the same tools match, removed ones never among them.
    for mine, theirs in zip(answers(index), answers(fresh), strict=True):
        assert {name for name, _ in mine} == {name for name, _ in theirs}
    index.compact()
    assert answers(index) == answers(fresh)


@settings(max_examples=40)
@given(st.lists(st.lists(tools, max_size=6, unique_by=lambda tool: tool["name"]), max_size=6))
def test_additions_alone_score_exactly_as_a_fresh_build(
    batches: list[list[dict[str, Any]]],
) -> None:
    """Widening a catalog batch by batch gives the fresh build's hits and scores, no rebuild."""
    index = ToolIndex()
    everything: dict[str, dict[str, Any]] = {}
    for batch in batches:
        if any(tool["name"] in everything for tool in batch):
            continue  # replacing a name removes a document; covered by the test above
        index.add(batch)
        index.search("file")
        everything.update((tool["name"], tool) for tool in batch)
    assert answers(index) == answers(ToolIndex(list(everything.values())))


@settings(max_examples=40)
@given(st.lists(steps, max_size=10))
def test_a_removed_tool_is_never_returned(history: list[tuple[str, Any]]) -> None:
    """No search or suggestion ever names a tool that was removed and not added back."""
    index, live = replay(history)
    for query in [*QUERIES, *WORDS, *VERBS]:
        assert {hit.name for hit in index.search(query, 100)} <= set(live)
    for name in [f"{verb}_{word}_1" for verb in VERBS for word in WORDS[:3]]:
        assert set(index.suggest(name, limit=10)) <= set(live)


def test_many_removals_compact_the_index_on_their_own() -> None:
    """Removing most of a catalog rebuilds the engine by itself, scoring as a fresh build."""
    catalog = [
        make_tool(number, number % 8, [number % 10], [(number * 3) % 10]) for number in range(400)
    ]
    index = ToolIndex(catalog)
    index.remove([tool["name"] for tool in catalog[:300]])
    fresh = ToolIndex(catalog[300:])
    assert answers(index) == answers(fresh)
