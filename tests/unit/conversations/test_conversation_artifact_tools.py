"""The artifact tools: JSON paths, line ranges, search, and errors the model can correct."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from nucleo_core.conversations import (
    GET_ARTIFACT_FIELD,
    SEARCH_ARTIFACT_CONTENT,
    ArtifactNotFound,
    ArtifactPathError,
    ArtifactSearchError,
    ArtifactStore,
    ConversationContext,
    artifact_tools,
)
from nucleo_core.conversations.artifact_reading import MAX_RESULT_CHARS
from nucleo_core.errors import CorrectableError, InvalidToolInput
from nucleo_core.tools import Risk, ToolRegistry, run_tool

#: A string the model "sent"; no error may repeat it.
SENT = "ZQXSENTZQX"

REPORT = {
    "title": "Quarterly report",
    "items": [
        {"name": "Widget", "price": 3.5, "tags": ["blue", "small"]},
        {"name": "Gadget", "price": 12, "tags": []},
        {"name": "Doohickey", "price": None, "tags": ["red"]},
    ],
    "a.b": {"c[0]": "odd keys"},
    "notes": "Ships in March.\nWidget demand is up.",
}


def _call(store: ArtifactStore, name: str, **arguments: Any) -> str:
    provider = {p.name: p for p in artifact_tools(store)}[name]
    tool = provider.create(None)
    return asyncio.run(run_tool(tool, provider.parse_input(arguments)))  # type: ignore[no-any-return]


@pytest.fixture
def store() -> ArtifactStore:
    return ArtifactStore()


@pytest.fixture
def report(store: ArtifactStore) -> str:
    return store.keep(json.dumps(REPORT), "application/json").id


@pytest.fixture
def text(store: ArtifactStore) -> str:
    lines = [f"row {number}: {'Alpha' if number % 10 == 0 else 'beta'}" for number in range(1, 501)]
    return store.keep("\n".join(lines)).id


def test_the_two_tools_are_read_only_low_risk_and_stable_per_conversation() -> None:
    """artifact_tools gives the two named read-only low-risk tools, the same objects each time."""
    context = ConversationContext()
    first, second = artifact_tools(context), artifact_tools(context)
    assert [p.name for p in first] == [GET_ARTIFACT_FIELD, SEARCH_ARTIFACT_CONTENT]
    assert all(a is b for a, b in zip(first, second, strict=True))
    assert all(p.read_only and p.risk is Risk.LOW and p.risk_declared for p in first)
    assert artifact_tools(context.artifacts) == first
    other = artifact_tools(ConversationContext())
    assert other[0] != first[0]
    assert other[0].spec() == first[0].spec()


def test_registering_every_turn_keeps_one_entry_per_tool() -> None:
    """A registry that registers the tools each turn keeps them once, in place."""
    context = ConversationContext()
    registry = ToolRegistry()
    for _ in range(3):
        registry.register_all(artifact_tools(context))
    assert registry.names() == [GET_ARTIFACT_FIELD, SEARCH_ARTIFACT_CONTENT]
    registry.register_all(artifact_tools(ConversationContext()))  # a new run's conversation
    assert registry.names() == [GET_ARTIFACT_FIELD, SEARCH_ARTIFACT_CONTENT]


def test_the_schemas_name_the_parameters() -> None:
    """The published input schemas take artifact_id and path, or artifact_id, query, max_results."""
    field, search = artifact_tools(ConversationContext())
    assert field.input_schema["required"] == ["artifact_id"]
    assert set(field.input_schema["properties"]) == {"artifact_id", "path"}
    assert set(search.input_schema["properties"]) == {"artifact_id", "query", "max_results"}
    with pytest.raises(InvalidToolInput):
        search.parse_input({"artifact_id": "a"})


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("items[1].name", "Gadget"),
        ("$.items[0].price", "3.5"),
        ("items.2.tags[0]", "red"),
        ("items[-1].name", "Doohickey"),
        ('["a.b"]["c[0]"]', "odd keys"),
        ("items[2].price", "null"),
        ("title", "Quarterly report"),
    ],
)
def test_a_json_path_reads_one_value(
    store: ArtifactStore, report: str, path: str, expected: str
) -> None:
    """Dotted keys, bracketed indexes, quoted keys and a leading $ select values."""
    assert _call(store, GET_ARTIFACT_FIELD, artifact_id=report, path=path) == expected


def test_a_container_is_read_as_json(store: ArtifactStore, report: str) -> None:
    """An object or list at the path comes back as JSON."""
    shown = _call(store, GET_ARTIFACT_FIELD, artifact_id=report, path="items[0]")
    assert json.loads(shown) == REPORT["items"][0]  # type: ignore[index]
    assert json.loads(_call(store, GET_ARTIFACT_FIELD, artifact_id=report)) == REPORT


def test_a_large_value_is_outlined_not_echoed(store: ArtifactStore) -> None:
    """A value too large to show is outlined by keys and shapes, under the result limit."""
    big = {"rows": [{"id": i, "body": "lorem ipsum " * 20} for i in range(200)], "count": 200}
    artifact = store.keep(json.dumps(big), "application/json").id
    whole = _call(store, GET_ARTIFACT_FIELD, artifact_id=artifact)
    assert "too large" in whole
    assert "rows: a list of 200 items" in whole
    assert "count: a number" in whole
    rows = _call(store, GET_ARTIFACT_FIELD, artifact_id=artifact, path="rows")
    assert "rows[0]: an object of 2 keys" in rows
    assert "and 160 more items" in rows
    assert "lorem" not in whole + rows
    assert len(rows) < MAX_RESULT_CHARS
    assert (
        json.loads(_call(store, GET_ARTIFACT_FIELD, artifact_id=artifact, path="rows[7]"))["id"]
        == 7
    )


@pytest.mark.parametrize(
    ("path", "names"),
    [
        (f"items[9].{SENT}", "the value at items is a list of 3 items: indexes run 0 to 2"),
        (f"items.{SENT}", "select an item by index, e.g. items[0]"),
        (SENT, 'Its keys: title, items, "a.b", notes'),
        (f"items[0].name.{SENT}", "the value at items[0].name is a string of 6 chars"),
        ("title[0]", "the value at title is a string"),
        ("[0]", "the whole value is an object, not a list"),
        (f"items[{SENT}", "the path is not valid"),
        ("items..name", "the path is not valid"),
    ],
)
def test_a_bad_path_names_where_it_stopped_without_echoing(
    store: ArtifactStore, report: str, path: str, names: str
) -> None:
    """A path that does not resolve says what is there, never repeating what was sent."""
    with pytest.raises(ArtifactPathError) as caught:
        _call(store, GET_ARTIFACT_FIELD, artifact_id=report, path=path)
    message = str(caught.value)
    assert isinstance(caught.value, CorrectableError)
    assert names in message
    assert SENT not in message


@pytest.mark.parametrize(
    ("path", "first", "last"),
    [
        ("lines:2-4", "2: row 2: beta", "4: row 4: beta"),
        ("lines:10", "10: row 10: Alpha", "10: row 10: Alpha"),
        ("lines: 499 - ", "499: row 499: beta", "500: row 500: Alpha"),
        ("lines:498-9999", "498: row 498: beta", "500: row 500: Alpha"),
    ],
)
def test_a_line_range_reads_numbered_lines(
    store: ArtifactStore, text: str, path: str, first: str, last: str
) -> None:
    """lines:START-END reads 1-based inclusive lines, numbered; the end is clamped."""
    shown = _call(store, GET_ARTIFACT_FIELD, artifact_id=text, path=path).splitlines()
    assert shown[0].endswith("of 500:")
    assert shown[1] == first
    assert shown[-1] == last


def test_a_long_range_is_cut_with_a_way_to_read_on(store: ArtifactStore, text: str) -> None:
    """A range too long for one result stops early and says which range to ask for next."""
    shown = _call(store, GET_ARTIFACT_FIELD, artifact_id=text, path="lines:1-500")
    assert len(shown) <= MAX_RESULT_CHARS + 200
    footer = shown.splitlines()[-1]
    assert footer.startswith('(to read on, ask for "lines:')
    assert footer.endswith('-500")')
    assert _call(store, GET_ARTIFACT_FIELD, artifact_id=text).splitlines()[1] == "1: row 1: beta"


def test_line_ranges_work_on_json_artifacts_too(store: ArtifactStore, report: str) -> None:
    """Any artifact, JSON included, can be read by line range."""
    assert "Quarterly" in _call(store, GET_ARTIFACT_FIELD, artifact_id=report, path="lines:1")


@pytest.mark.parametrize(
    ("path", "names"),
    [
        ("lines:0-3", "has 500 lines"),
        ("lines:501", "has 500 lines"),
        ("lines:9-3", "START not after END"),
        (f"lines:{SENT}", 'a line range is written "lines:START-END"'),
        (f"items.{SENT}", 'not JSON: read it by line range with path "lines:START-END"'),
    ],
)
def test_a_bad_line_range_is_correctable(
    store: ArtifactStore, text: str, path: str, names: str
) -> None:
    """A line range out of bounds, malformed, or a field path on text is a correctable error."""
    with pytest.raises(ArtifactPathError) as caught:
        _call(store, GET_ARTIFACT_FIELD, artifact_id=text, path=path)
    assert names in str(caught.value)
    assert SENT not in str(caught.value)


def test_search_finds_lines_case_insensitively(store: ArtifactStore, text: str) -> None:
    """A text search lists matching lines with their numbers, counts them all, and is capped."""
    shown = _call(store, SEARCH_ARTIFACT_CONTENT, artifact_id=text, query="ALPHA", max_results=3)
    lines = shown.splitlines()
    assert lines[0] == f"50 matching lines in artifact {text}; the first 3:"
    assert lines[1:4] == [
        "line 10: row 10: Alpha",
        "line 20: row 20: Alpha",
        "line 30: row 30: Alpha",
    ]
    assert "lines:START-END" in lines[-1]


def test_search_of_a_json_artifact_lists_field_paths(store: ArtifactStore, report: str) -> None:
    """A JSON search names the path of each matching value or key, in document order."""
    shown = _call(store, SEARCH_ARTIFACT_CONTENT, artifact_id=report, query="widget")
    assert shown.splitlines()[1:3] == [
        "items[0].name: Widget",
        "notes: Ships in March.\nWidget demand is up.".splitlines()[0],
    ]
    assert "price" in _call(store, SEARCH_ARTIFACT_CONTENT, artifact_id=report, query="PRICE")


def test_search_without_a_match_does_not_echo_the_query(store: ArtifactStore, text: str) -> None:
    """No match says so without repeating the query."""
    shown = _call(store, SEARCH_ARTIFACT_CONTENT, artifact_id=text, query=SENT)
    assert shown == f"Nothing in artifact {text} contains the query."


def test_an_empty_query_is_correctable(store: ArtifactStore, text: str) -> None:
    """A blank query is an ArtifactSearchError asking for a word or phrase."""
    with pytest.raises(ArtifactSearchError, match="word or phrase"):
        _call(store, SEARCH_ARTIFACT_CONTENT, artifact_id=text, query="  ")


def test_search_excerpts_long_lines_around_the_match(store: ArtifactStore) -> None:
    """A matching line longer than the excerpt shows the part around the match."""
    artifact = store.keep("a" * 1000 + "NEEDLE" + "b" * 1000).id
    shown = _call(store, SEARCH_ARTIFACT_CONTENT, artifact_id=artifact, query="needle")
    line = shown.splitlines()[1]
    assert "NEEDLE" in line
    assert len(line) < 300


def test_an_unknown_artifact_lists_the_known_ids(store: ArtifactStore, report: str) -> None:
    """Both tools answer an unknown id with the known ids, never the id sent."""
    for name, extra in ((GET_ARTIFACT_FIELD, {}), (SEARCH_ARTIFACT_CONTENT, {"query": "x"})):
        with pytest.raises(ArtifactNotFound) as caught:
            _call(store, name, artifact_id=SENT, **extra)
        assert report in str(caught.value)
        assert SENT not in str(caught.value)


def test_a_conveyed_artifact_is_readable_by_the_sub_thinkers_tools() -> None:
    """After link, a sub-thinker's tools read the parent's artifact by its reference."""
    parent, child = ConversationContext(), ConversationContext()
    ref = parent.artifacts.keep(json.dumps({"answer": 42}), "application/json")
    child.artifacts.link([ref], parent.artifacts)
    assert _call(child.artifacts, GET_ARTIFACT_FIELD, artifact_id=ref.id, path="answer") == "42"
