"""`ToolIndex`: ranking, name splitting, records, bounds and suggestions."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from nucleo_core.errors import MisuseError
from nucleo_core.search import ToolIndex, ToolRecordError, ToolSearchHit
from nucleo_core.tools import ToolSpec, provider_for, tool


def record(name: str, description: str = "", **properties: Any) -> dict[str, Any]:
    """A plain name/description/JSON-schema record, the shape MCP servers list."""
    return {
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": properties},
    }


CATALOG = [
    record(
        "github_create_pull_request",
        "Open a new pull request in a GitHub repository.",
        title={"type": "string"},
        head={"type": "string", "description": "The branch that holds the changes"},
    ),
    record(
        "github_list_issues",
        "List issues of a GitHub repository, optionally filtered by state.",
        state={"type": "string", "enum": ["open", "closed"]},
    ),
    record("read_file", "Read the complete contents of a file.", path={"type": "string"}),
    record(
        "write_file",
        "Create a new file or overwrite an existing one.",
        path={"type": "string"},
        content={"type": "string"},
    ),
    record(
        "slack_post_message", "Post a message to a Slack channel.", channel_id={"type": "string"}
    ),
    record("calendar_create_event", "Schedule an event on the user's calendar."),
    record("postgres_query", "Run a read-only SQL query against the database."),
    record("browser_screenshot", "Capture a screenshot of the current browser page."),
]


@pytest.fixture(scope="module")
def catalog() -> ToolIndex:
    return ToolIndex(CATALOG)


def top(index: ToolIndex, query: str, limit: int = 3) -> list[str]:
    return [hit.name for hit in index.search(query, limit)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("open a pull request", "github_create_pull_request"),
        ("what bugs does the repository have", "github_list_issues"),
        ("send a chat message to the team channel", "slack_post_message"),
        ("save text into a new file", "write_file"),
        ("set up a meeting next tuesday", "calendar_create_event"),
        ("select rows from a table with SQL", "postgres_query"),
        ("take a picture of the web page", "browser_screenshot"),
    ],
)
def test_a_query_naming_a_tools_purpose_ranks_it_first(
    catalog: ToolIndex, query: str, expected: str
) -> None:
    """A request phrased in the user's words, not the description's, finds the tool first."""
    assert top(catalog, query)[0] == expected


def test_a_query_naming_the_tool_exactly_ranks_it_first(catalog: ToolIndex) -> None:
    """The exact tool name outranks every tool that merely shares words with it."""
    assert top(catalog, "read_file")[0] == "read_file"
    assert top(catalog, "write_file")[0] == "write_file"


def test_hits_carry_name_score_and_the_indexed_spec(catalog: ToolIndex) -> None:
    """A hit names the tool, scores it (best first) and hands back the spec it indexed."""
    hits = catalog.search("file", limit=5)
    assert all(isinstance(hit, ToolSearchHit) for hit in hits)
    assert {hit.name for hit in hits} == {"read_file", "write_file"}
    assert hits[0].score >= hits[1].score > 0
    assert hits[0].spec == catalog.spec(hits[0].name)
    assert hits[0].spec.description.endswith("file.") or "file" in hits[0].spec.description


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("getPullRequest", "pull request"),
        ("startHTTPServer", "http server"),
        ("git.log", "git log"),
        ("s3-put_object", "put object"),
        ("oauth2TokenRefresh", "refresh token"),
        ("kebab-case-tool", "case"),
    ],
)
def test_names_are_split_at_separators_and_camel_case(name: str, query: str) -> None:
    """Every word of a name is searchable, however the name joins its words."""
    index = ToolIndex([record(name), record("unrelated_tool", "Does something else.")])
    assert top(index, query) == [name]


def test_parameters_are_searched_nested_ones_too() -> None:
    """A tool is found by its parameters' names and descriptions, at depth as well."""
    nested = {
        "type": "object",
        "properties": {
            "options": {
                "type": "object",
                "properties": {"timezone": {"type": "string", "description": "IANA zone name"}},
            }
        },
    }
    index = ToolIndex(
        [
            {"name": "convert", "description": "Convert a value.", "input_schema": nested},
            record("other", "Convert a value."),
        ]
    )
    assert top(index, "timezone") == ["convert"]
    assert top(index, "IANA zone") == ["convert"]


def test_providers_specs_and_mappings_index_alike() -> None:
    """A native tool's provider, its spec and an equivalent plain record rank identically."""

    @tool
    def fetch_weather(city: str) -> str:
        """Fetch the weather forecast for a city."""
        return city

    provider = provider_for(fetch_weather)
    spec = provider.spec()
    plain = {
        "name": spec.name,
        "title": spec.display_name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
    }
    results = [
        [(hit.name, hit.score) for hit in ToolIndex([source]).search("weather in a city")]
        for source in (provider, spec, plain)
    ]
    assert results[0] == results[1] == results[2]
    assert results[0][0][0] == "fetch_weather"


def test_an_empty_index_finds_and_suggests_nothing() -> None:
    """An index of no tools answers every search and suggestion with an empty list."""
    index = ToolIndex()
    assert len(index) == 0
    assert index.names() == []
    assert index.search("anything") == []
    assert index.suggest("anything") == []


@pytest.mark.parametrize("query", ["", "   ", "?!.,", "the of to a", "zzzqqq"])
def test_a_query_without_a_known_word_matches_nothing(catalog: ToolIndex, query: str) -> None:
    """Empty, punctuation-only, stop-word-only and unknown queries return no hits."""
    assert catalog.search(query) == []


def test_limit_bounds_the_hits_and_is_checked(catalog: ToolIndex) -> None:
    """``limit`` caps the hits; a limit that is not a positive integer is refused."""
    assert len(catalog.search("file message event query", limit=2)) == 2
    with pytest.raises(ValueError, match="between 1 and"):
        catalog.search("file", limit=0)
    with pytest.raises(TypeError, match="limit must be an integer"):
        catalog.search("file", limit=2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="query must be text"):
        catalog.search(b"file")  # type: ignore[arg-type]


def test_unicode_names_descriptions_and_queries() -> None:
    """Non-ASCII text is indexed and found; accents fold, other scripts stay whole."""
    index = ToolIndex(
        [
            record("réserver_café", "Réserve une table au café."),
            record("翻訳ツール", "日本語 テキスト を翻訳"),
            record("plain", "Nothing special."),
        ]
    )
    assert top(index, "cafe")[0] == "réserver_café"
    assert top(index, "Réserver")[0] == "réserver_café"
    assert top(index, "翻訳ツール")[0] == "翻訳ツール"
    assert index.suggest("reserver_cafe")[0] == "réserver_café"


def test_huge_descriptions_and_schemas_are_indexed_within_bounds() -> None:
    """A megabyte description and ten thousand parameters index fast and only their head counts."""
    description = "Rotates the encryption keys. " + "filler " * 150_000 + "needleword"
    properties = {f"field{number}": {"type": "string"} for number in range(10_000)}
    index = ToolIndex(
        [
            {
                "name": "rotate_keys",
                "description": description,
                "input_schema": {"type": "object", "properties": properties},
            },
            record("other", "Something else entirely."),
        ]
    )
    assert top(index, "rotate encryption keys") == ["rotate_keys"]
    assert top(index, "needleword") == []
    assert top(index, "field3") == ["rotate_keys"]
    assert top(index, "field9999") == []


def test_a_long_query_is_read_up_to_its_bound(catalog: ToolIndex) -> None:
    """A huge query costs a bounded search: its head is read, the rest ignored."""
    assert top(catalog, "screenshot " + "padding " * 100_000 + "slack")[0] == "browser_screenshot"


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"description": "no name"}, "name"),
        ({"name": ""}, "name"),
        ({"name": 42}, "name"),
        ({"name": "x" * 300}, "name"),
        ({"name": "ok", "description": 7}, "description"),
        ({"name": "ok", "input_schema": "object"}, "input_schema"),
        ({"name": "ok", "inputSchema": ["x"]}, "inputSchema"),
        ("read_file", None),
        (42, None),
    ],
)
def test_a_bad_record_is_a_typed_error_naming_its_field(bad: object, field: str | None) -> None:
    """A record that is not a tool is refused with its position, field and what to fix."""
    with pytest.raises(ToolRecordError) as raised:
        ToolIndex([record("fine"), bad])  # type: ignore[list-item]
    assert raised.value.position == 1
    assert raised.value.field == field
    assert isinstance(raised.value, MisuseError)
    assert "record 1" in str(raised.value)


def test_a_single_record_or_text_instead_of_a_list_is_refused() -> None:
    """Passing one tool (or a string) where a list belongs is a clear error, not a scan."""
    with pytest.raises(ToolRecordError, match="iterable"):
        ToolIndex(record("solo"))  # type: ignore[arg-type]
    with pytest.raises(ToolRecordError, match="iterable"):
        ToolIndex("read_file")  # type: ignore[arg-type]


def test_a_bad_batch_changes_nothing(catalog: ToolIndex) -> None:
    """One bad record keeps its whole batch out, and a name twice in a batch is refused."""
    index = ToolIndex(CATALOG)
    with pytest.raises(ToolRecordError):
        index.add([record("new_tool", "Unheardof capability."), {"name": None}])
    with pytest.raises(ToolRecordError, match="already holds"):
        index.add([record("twice"), record("twice")])
    assert index.names() == catalog.names()
    assert index.search("unheardof") == []


def test_a_batch_failing_late_leaves_every_score_as_it_was() -> None:
    """Records indexed before a bad one (a replacement too) leave no trace in any score."""
    index = ToolIndex(CATALOG)
    untouched = ToolIndex(CATALOG)
    first = CATALOG[0]["name"]
    batch = [
        record(first, "Replaced text about invoices and invoices."),
        *(record(f"filler_{n}", "Invoices, invoices, receipts and reports.") for n in range(30)),
        {"name": 7},
    ]
    with pytest.raises(ToolRecordError):
        index.add(batch)
    assert index.names() == untouched.names()
    assert index.spec(first) == untouched.spec(first)
    for query in ("invoices", "send an email", "pull request", first):
        assert [(h.name, h.score) for h in index.search(query, 10)] == [
            (h.name, h.score) for h in untouched.search(query, 10)
        ]


def test_adding_a_name_again_replaces_the_tool() -> None:
    """Re-adding a tool (its description changed) replaces it: one entry, the new text."""
    index = ToolIndex([record("notes", "Keep shopping lists.")])
    index.add([record("notes", "Keep meeting minutes.")])
    assert index.names() == ["notes"]
    assert top(index, "meeting minutes") == ["notes"]
    assert top(index, "shopping") == []
    assert index.spec("notes").description == "Keep meeting minutes."


def test_spec_of_an_unknown_name_is_a_key_error(catalog: ToolIndex) -> None:
    """Looking up a name that is not indexed raises KeyError rather than returning None."""
    with pytest.raises(KeyError):
        catalog.spec("nope")
    assert "read_file" in catalog
    assert "nope" not in catalog


def test_suggestions_for_a_mistyped_name_are_few_and_close(catalog: ToolIndex) -> None:
    """A typo, a missing word or swapped words get the intended name first, and only a few."""
    assert catalog.suggest("github_list_issue")[0] == "github_list_issues"
    assert catalog.suggest("githb_create_pull_request")[0] == "github_create_pull_request"
    assert catalog.suggest("issues_list_github")[0] == "github_list_issues"
    assert catalog.suggest("slack_message")[0] == "slack_post_message"
    assert catalog.suggest("readfile")[0] == "read_file"
    assert len(catalog.suggest("file", limit=3)) <= 3
    assert catalog.suggest("read_file") == ["read_file"] or catalog.suggest("read_file")[0] == (
        "read_file"
    )


def test_an_unrelated_name_gets_no_suggestion(catalog: ToolIndex) -> None:
    """A name like nothing in the catalog gets an empty list, never the catalog."""
    assert catalog.suggest("quantum_teleporter") == []
    assert catalog.suggest("") == []


def test_suggestions_stay_few_in_a_large_catalog() -> None:
    """In a catalog of thousands of similar names a typo still yields at most ``limit`` names."""
    index = ToolIndex([record(f"service{number}_list_items") for number in range(3_000)])
    suggestions = index.suggest("service1234_list_item")
    assert suggestions[0] == "service1234_list_items"
    assert len(suggestions) <= 3


def test_importing_nucleo_core_does_not_load_the_search_engine() -> None:
    """``import nucleo_core`` (and its search package) leaves tantivy unloaded until an index."""
    code = (
        "import sys, nucleo_core, nucleo_core.search\n"
        "assert 'tantivy' not in sys.modules, 'loaded at import'\n"
        "nucleo_core.search.ToolIndex([{'name': 'a'}]).search('a')\n"
        "assert 'tantivy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_a_spec_with_every_field_is_indexed_by_its_display_name_too() -> None:
    """A ToolSpec's display name (MCP's title) is searchable like its name."""
    spec = ToolSpec(
        name="t1", description="Does a thing.", input_schema={}, display_name="Inventory Audit"
    )
    assert top(ToolIndex([spec, record("t2", "Does a thing.")]), "inventory") == ["t1"]


def test_ties_beyond_the_first_fetch_are_still_broken_by_name() -> None:
    """A hundred tools scoring alike give the alphabetically first ones, whatever their order."""
    names = [f"mirror_{number:03d}_send_message" for number in range(100)]
    shuffled = names[37:] + names[:37]
    index = ToolIndex([record(name, "Send a message to a chat channel.") for name in shuffled])
    hits = index.search("send a message to a channel", 5)
    assert len({hit.score for hit in hits}) == 1, "the hundred tools tie"
    assert [hit.name for hit in hits] == names[:5]


def test_what_an_apostrophe_leaves_matches_nothing() -> None:
    """A query's "what's" is not a match for every description with a possessive."""
    index = ToolIndex(
        [
            {"name": "pid", "description": "The server's process id."},
            {"name": "crypto_get_price", "description": "Get the current price of a coin."},
        ]
    )
    assert [hit.name for hit in index.search("what's bitcoin's price")] == ["crypto_get_price"]
    assert index.search("what's") == []


@pytest.mark.parametrize("query", ["merge these PDFs", "merge these pdfs", "merge this PDF"])
def test_an_acronyms_plural_is_one_word_and_meets_its_singular(query: str) -> None:
    """``PDFs`` is not split as camelCase (``PD``, ``Fs``) and meets ``pdf`` as files meet file."""
    index = ToolIndex(
        [
            {"name": "pdf_merge", "description": "Combine several documents into one."},
            {"name": "fs_usage", "description": "Disk usage of an fs mount."},
            {"name": "merge_pull_request", "description": "Merge a pull request."},
        ]
    )
    assert top(index, query, 1) == ["pdf_merge"]


def test_a_names_acronym_plural_is_found_by_its_singular() -> None:
    """``listPRs`` is ``list`` + ``PRs``, searchable as "pr" (not "p" + "rs")."""
    index = ToolIndex([record("listPRs"), record("list_rs_records"), record("unrelated_tool")])
    assert top(index, "list every pr") == ["listPRs", "list_rs_records"]
    assert top(index, "pr") == ["listPRs"]
    assert top(index, "rs", 1) == ["list_rs_records"]
