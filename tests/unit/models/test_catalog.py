"""The models layer's configuration and test seam.

Entries and their limits, the catalog (in code, from files, discovered), the thinker
declaration, the client override and the scripted model.
"""

import asyncio
import threading
from pathlib import Path

import pytest

from nucleo_core.errors import MisuseError, ModelNotConfigured, ModelServerError
from nucleo_core.models import (
    AnswerSize,
    Grade,
    ModelCatalog,
    ModelClient,
    ModelEntry,
    ModelRequest,
    ModelResponse,
    ResponseComplete,
    StopReason,
    TextBlock,
    TextDelta,
    ThinkerDeclaration,
    ToolUseBlock,
    Usage,
)
from nucleo_core.testing import (
    ScriptedModel,
    ScriptExhausted,
    override_client,
    text_response,
    tool_use_response,
)

# -- ModelEntry.parse ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry_id", "provider", "model", "base_url"),
    [
        ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", None),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", None),
        (
            "openai-compatible:http://127.0.0.1:11434/v1#llama3.2",
            "openai-compatible",
            "llama3.2",
            "http://127.0.0.1:11434/v1",
        ),
        (
            "openai-compatible:https://llm.example.com:8443/v1#qwen2.5:7b-instruct",
            "openai-compatible",
            "qwen2.5:7b-instruct",
            "https://llm.example.com:8443/v1",
        ),
    ],
)
def test_an_entry_id_is_parsed_into_provider_model_and_base_url(
    entry_id: str, provider: str, model: str, base_url: str | None
) -> None:
    """Each of the three id forms yields its provider, the provider's model id and endpoint."""
    entry = ModelEntry.parse(entry_id)

    assert (entry.id, entry.provider, entry.model, entry.base_url) == (
        entry_id,
        provider,
        model,
        base_url,
    )


def test_a_parsed_entry_has_the_default_limits() -> None:
    """An entry parsed without limits has positive defaults and calls tools natively."""
    entry = ModelEntry.parse("openai:gpt-4o")

    assert entry.context_window > 0
    assert entry.max_output_tokens > 0
    assert entry.native_tools is True


@pytest.mark.parametrize(
    "entry_id",
    [
        "",
        "claude-sonnet-4-5",
        "gemini:pro",
        "Anthropic:claude",
        "anthropic:",
        "openai:",
        "openai-compatible:http://127.0.0.1:11434/v1",
        "openai-compatible:#llama3.2",
        "openai-compatible:http://127.0.0.1:11434/v1#",
    ],
)
def test_a_malformed_entry_id_is_refused_naming_it_and_the_accepted_forms(entry_id: str) -> None:
    """A malformed id raises ModelNotConfigured quoting the id and the form it should have."""
    with pytest.raises(ModelNotConfigured) as raised:
        ModelEntry.parse(entry_id)

    message = str(raised.value)
    assert repr(entry_id) in message
    assert any(form in message for form in ("anthropic:<model>", "#<model>", "names no model"))


def test_limits_are_set_when_parsing() -> None:
    """Limits passed to parse are the entry's limits."""
    entry = ModelEntry.parse(
        "anthropic:claude-haiku-4-5", context_window=200_000, max_output_tokens=64_000
    )

    assert (entry.context_window, entry.max_output_tokens) == (200_000, 64_000)


@pytest.mark.parametrize("native_tools", [True, False])
def test_native_tools_accepts_both_booleans(native_tools: bool) -> None:
    """native_tools is a boolean setting: false (an envelope model) is as valid as true."""
    entry = ModelEntry.parse("openai-compatible:http://127.0.0.1:8080/v1#phi3")

    assert entry.with_limits(native_tools=native_tools).native_tools is native_tools


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("context_window", 0),
        ("context_window", -1),
        ("context_window", True),
        ("context_window", "8192"),
        ("context_window", 8192.0),
        ("max_output_tokens", 0),
        ("max_output_tokens", None),
        ("native_tools", 1),
        ("native_tools", "yes"),
        ("timeout", 0),
        ("timeout", -1.5),
        ("timeout", "30"),
        ("timeout", True),
        ("timeout", float("inf")),
        ("deadline", 0.0),
        ("deadline", None),
        ("retries", -1),
        ("retries", 1.0),
        ("retries", False),
    ],
)
def test_an_invalid_limit_is_refused_naming_the_entry_and_the_key(key: str, value: object) -> None:
    """A limit of the wrong type or not positive raises ModelNotConfigured naming entry and key."""
    with pytest.raises(ModelNotConfigured) as raised:
        ModelEntry.parse("anthropic:claude", **{key: value})

    assert "'anthropic:claude'" in str(raised.value)
    assert key in str(raised.value)


def test_an_unknown_limit_is_refused_listing_the_allowed_ones() -> None:
    """An unknown setting is refused with the list of settings an entry takes."""
    with pytest.raises(ModelNotConfigured) as raised:
        ModelEntry.parse("anthropic:claude", temperature=0.2)

    message = str(raised.value)
    assert "'temperature'" in message
    for allowed in ("context_window", "max_output_tokens", "native_tools", "base_url"):
        assert allowed in message


def test_timeouts_retries_and_deadline_are_read_from_configuration(tmp_path: Path) -> None:
    """An entry table's timeout, retries and deadline become the entry's, seconds as floats."""
    path = tmp_path / "nucleo.toml"
    path.write_text(
        '[models.entries."openai-compatible:http://127.0.0.1:8000/v1#smollm2"]\n'
        "timeout = 30\nretries = 0\ndeadline = 90.5\n",
        encoding="utf-8",
    )

    entry = ModelCatalog.from_file(path).entry("openai-compatible:http://127.0.0.1:8000/v1#smollm2")

    assert (entry.timeout, entry.retries, entry.deadline) == (30.0, 0, 90.5)
    assert isinstance(entry.timeout, float)


def test_an_entry_has_no_deadline_and_two_retries_by_default() -> None:
    """Without settings an entry keeps the SDK's timeout, retries twice and has no deadline."""
    entry = ModelEntry.parse("openai:gpt-4o")

    assert (entry.timeout, entry.retries, entry.deadline) == (None, 2, None)


def test_with_limits_returns_a_copy_and_leaves_the_entry_unchanged() -> None:
    """Entries are values: with_limits makes a new one."""
    entry = ModelEntry.parse("openai:gpt-4o")
    changed = entry.with_limits(max_output_tokens=1_000)

    assert changed.max_output_tokens == 1_000
    assert entry.max_output_tokens != 1_000
    assert changed.id == entry.id


def test_a_base_url_may_point_a_named_provider_elsewhere() -> None:
    """An anthropic or openai entry takes a base_url, for a proxy or a gateway."""
    entry = ModelEntry.parse("openai:gpt-4o", base_url="https://gateway.example.com/v1")

    assert entry.base_url == "https://gateway.example.com/v1"


# -- ModelCatalog in code --------------------------------------------------------------------------


def test_a_catalog_built_in_code_maps_grades_to_entries() -> None:
    """grades= maps each grade to an entry; resolve seats a declaration on its grade's entry."""
    catalog = ModelCatalog(
        [ModelEntry.parse("anthropic:claude-opus-4-1", max_output_tokens=32_000)],
        grades={"strong": "anthropic:claude-opus-4-1", "fast": "openai:gpt-4o-mini"},
    )

    strong = catalog.resolve(ThinkerDeclaration("strong", AnswerSize.LONG))
    assert (strong.model, strong.max_output_tokens) == ("claude-opus-4-1", 32_000)
    assert catalog.resolve(ThinkerDeclaration(Grade.FAST, AnswerSize.SHORT)).model == "gpt-4o-mini"
    assert catalog.grades == {"strong": "anthropic:claude-opus-4-1", "fast": "openai:gpt-4o-mini"}
    assert set(catalog.entries) == {"anthropic:claude-opus-4-1", "openai:gpt-4o-mini"}


def test_a_pin_beats_the_grade_when_resolving() -> None:
    """Resolving with a pin answers the pinned entry whatever the grade maps to."""
    catalog = ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"})

    seat = catalog.resolve(ThinkerDeclaration("standard", 100), pin="openai:gpt-4o")
    assert seat.id == "openai:gpt-4o"


def test_an_unassigned_grade_cannot_be_resolved() -> None:
    """Resolving a grade no entry is assigned to raises ModelNotConfigured naming the grade."""
    with pytest.raises(ModelNotConfigured, match="'standard'"):
        ModelCatalog().resolve(ThinkerDeclaration("standard", 100))


def test_assigning_a_malformed_id_is_refused() -> None:
    """Assigning parses the id, so a malformed one fails where it is written."""
    with pytest.raises(ModelNotConfigured):
        ModelCatalog().assign("standard", "claude")


def test_the_catalog_s_views_are_copies() -> None:
    """Mutating entries or grades as returned does not change the catalog."""
    catalog = ModelCatalog(grades={"standard": "openai:gpt-4o"})
    grades = catalog.grades
    entries = catalog.entries
    grades.clear()  # type: ignore[attr-defined]
    entries.clear()  # type: ignore[attr-defined]

    assert catalog.grades == {"standard": "openai:gpt-4o"}
    assert "openai:gpt-4o" in catalog.entries


def test_adding_an_entry_replaces_one_of_the_same_id() -> None:
    """Adding upserts by id, so a grade mapped to the id sees the new limits."""
    catalog = ModelCatalog(grades={"standard": "openai:gpt-4o"})
    catalog.add(ModelEntry.parse("openai:gpt-4o", max_output_tokens=555))

    assert catalog.resolve(ThinkerDeclaration("standard", 100)).max_output_tokens == 555


# -- ModelCatalog from files -----------------------------------------------------------------------

PYPROJECT = """\
[project]
name = "my-agents"

[tool.nucleo.models.grades]
fast = "openai:gpt-4o-mini"
standard = "openai-compatible:http://127.0.0.1:11434/v1#llama3.2"

[tool.nucleo.models.entries."openai-compatible:http://127.0.0.1:11434/v1#llama3.2"]
context_window = 32768
max_output_tokens = 4096
"""

NUCLEO_TOML = """\
[models.grades]
strong = "anthropic:claude-opus-4-1"

[models.entries."anthropic:claude-opus-4-1"]
max_output_tokens = 32000
"""


def test_a_catalog_is_read_from_the_tool_nucleo_models_table_of_pyproject(tmp_path: Path) -> None:
    """from_file reads grades and entries with their limits from [tool.nucleo.models]."""
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT, encoding="utf-8")
    catalog = ModelCatalog.from_file(path)

    local = "openai-compatible:http://127.0.0.1:11434/v1#llama3.2"
    assert catalog.grades == {"fast": "openai:gpt-4o-mini", "standard": local}
    seat = catalog.resolve(ThinkerDeclaration("standard", AnswerSize.MEDIUM))
    assert (seat.base_url, seat.model) == ("http://127.0.0.1:11434/v1", "llama3.2")
    assert (seat.context_window, seat.max_output_tokens) == (32_768, 4_096)


def test_a_catalog_is_read_from_the_models_table_of_nucleo_toml(tmp_path: Path) -> None:
    """from_file reads [models] from a nucleo.toml."""
    path = tmp_path / "nucleo.toml"
    path.write_text(NUCLEO_TOML, encoding="utf-8")
    catalog = ModelCatalog.from_file(path)

    seat = catalog.resolve(ThinkerDeclaration("strong", AnswerSize.LONG))
    assert (seat.id, seat.max_output_tokens) == ("anthropic:claude-opus-4-1", 32_000)


def test_an_envelope_model_can_be_configured(tmp_path: Path) -> None:
    """native_tools = false in an entry table configures a model that answers in the envelope."""
    path = tmp_path / "nucleo.toml"
    path.write_text(
        '[models.entries."openai-compatible:http://127.0.0.1:8080/v1#phi3"]\n'
        "native_tools = false\n",
        encoding="utf-8",
    )
    catalog = ModelCatalog.from_file(path)

    assert catalog.entries["openai-compatible:http://127.0.0.1:8080/v1#phi3"].native_tools is False


def test_a_file_without_the_table_gives_an_empty_catalog(tmp_path: Path) -> None:
    """A pyproject.toml with no [tool.nucleo.models] configures nothing, without error."""
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n', encoding="utf-8")
    catalog = ModelCatalog.from_file(path)

    assert (catalog.grades, catalog.entries) == ({}, {})


@pytest.mark.parametrize(
    ("file_name", "text", "key"),
    [
        ("nucleo.toml", "[models\n", "not valid TOML"),
        ("nucleo.toml", "[models]\ngrade = {}\n", "grade"),
        ("nucleo.toml", "[models]\nentries = 3\n", "models.entries"),
        ("nucleo.toml", '[models.entries]\n"anthropic:x" = 3\n', "models.entries.'anthropic:x'"),
        ("nucleo.toml", '[models.entries."anthropic:x"]\ncontext_window = -3\n', "context_window"),
        ("nucleo.toml", '[models.entries."anthropic:x"]\nwindow = 3\n', "'window'"),
        ("nucleo.toml", '[models.entries."bogus:x"]\n', "'bogus:x'"),
        ("nucleo.toml", "[models.grades]\nfast = 3\n", "models.grades"),
        ("nucleo.toml", '[models.grades]\nfast = "claude"\n', "models.grades.fast"),
        ("pyproject.toml", '[tool.nucleo.models.grades]\nfast = "x:y"\n', "models.grades.fast"),
        ("pyproject.toml", "[tool.nucleo.models]\nextra = 1\n", "extra"),
    ],
)
def test_malformed_configuration_is_refused_naming_the_file_and_the_key(
    tmp_path: Path, file_name: str, text: str, key: str
) -> None:
    """A malformed models table raises ModelNotConfigured naming the file and the faulty key."""
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelNotConfigured) as raised:
        ModelCatalog.from_file(path)

    assert str(path) in str(raised.value)
    assert key in str(raised.value)


@pytest.mark.parametrize(
    ("file_name", "text", "key"),
    [
        ("nucleo.toml", "models = 3\n", "models"),
        ("nucleo.toml", 'models = "anthropic:claude"\n', "models"),
        ("pyproject.toml", "[tool]\nnucleo = 1\n", "tool.nucleo"),
        ("pyproject.toml", "[tool.nucleo]\nmodels = []\n", "tool.nucleo.models"),
    ],
)
def test_a_models_table_that_is_not_a_table_is_refused_naming_the_file_and_the_key(
    tmp_path: Path, file_name: str, text: str, key: str
) -> None:
    """A models key holding a value that is not a table is a configuration error, not a crash."""
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelNotConfigured) as raised:
        ModelCatalog.from_file(path)

    assert str(path) in str(raised.value)
    assert key in str(raised.value)
    assert "table" in str(raised.value)


# -- discover ------------------------------------------------------------------------------------


def test_discover_walks_up_from_a_subfolder_to_the_configuration(tmp_path: Path) -> None:
    """Discovery finds the pyproject.toml configuring models in a parent folder."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    start = tmp_path / "src" / "agents"
    start.mkdir(parents=True)

    assert ModelCatalog.discover(start).grades["fast"] == "openai:gpt-4o-mini"


def test_discover_prefers_nucleo_toml_over_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    """Where both files configure models, nucleo.toml wins."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "nucleo.toml").write_text(NUCLEO_TOML, encoding="utf-8")
    start = tmp_path / "pkg"
    start.mkdir()

    assert ModelCatalog.discover(start).grades == {"strong": "anthropic:claude-opus-4-1"}


def test_discover_skips_a_pyproject_without_models_on_the_way_up(tmp_path: Path) -> None:
    """A nearer pyproject.toml that configures no models does not stop the walk."""
    (tmp_path / "nucleo.toml").write_text(NUCLEO_TOML, encoding="utf-8")
    member = tmp_path / "packages" / "member"
    member.mkdir(parents=True)
    (member / "pyproject.toml").write_text('[project]\nname = "member"\n', encoding="utf-8")

    assert ModelCatalog.discover(member).grades == {"strong": "anthropic:claude-opus-4-1"}


def test_discover_takes_the_nearest_configuration(tmp_path: Path) -> None:
    """A configuration in a subfolder beats one further up."""
    (tmp_path / "nucleo.toml").write_text(NUCLEO_TOML, encoding="utf-8")
    member = tmp_path / "member"
    member.mkdir()
    (member / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")

    assert "fast" in ModelCatalog.discover(member).grades


def test_discover_starts_from_the_working_folder_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a start folder, discover walks up from the current working folder."""
    (tmp_path / "nucleo.toml").write_text(NUCLEO_TOML, encoding="utf-8")
    inner = tmp_path / "inner"
    inner.mkdir()
    monkeypatch.chdir(inner)

    assert ModelCatalog.discover().grades == {"strong": "anthropic:claude-opus-4-1"}


# -- the client seam -------------------------------------------------------------------------------

LOCAL = "openai-compatible:http://127.0.0.1:9/v1#m"


def test_client_for_answers_the_installed_client_inside_the_block_only() -> None:
    """Inside override_client every lookup answers the scripted model; outside it does not."""
    catalog = ModelCatalog()
    entry = catalog.entry(LOCAL)
    model = ScriptedModel()
    with override_client(model) as installed:
        assert installed is model
        assert catalog.client_for(entry) is model
        assert catalog.client_for(catalog.entry("anthropic:claude")) is model
    outside = catalog.client_for(entry)
    try:
        assert outside is not model
        assert isinstance(outside, ModelClient)
    finally:
        asyncio.run(outside.aclose())


def test_outside_the_block_the_real_adapter_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an override, an anthropic entry needs its key: the seam is the only shortcut."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    catalog = ModelCatalog()
    entry = catalog.entry("anthropic:claude")
    with override_client(ScriptedModel()):
        catalog.client_for(entry)
    with pytest.raises(ModelNotConfigured, match="ANTHROPIC_API_KEY"):
        catalog.client_for(entry)


def test_overrides_nest_and_the_outer_one_is_restored() -> None:
    """An inner override_client shadows the outer one until its block ends."""
    catalog = ModelCatalog()
    entry = catalog.entry(LOCAL)
    outer, inner = ScriptedModel(), ScriptedModel()
    with override_client(outer):
        with override_client(inner):
            assert catalog.client_for(entry) is inner
        assert catalog.client_for(entry) is outer


def test_the_override_reaches_tasks_of_an_event_loop_started_inside_the_block() -> None:
    """Tasks copy the context, so code run under asyncio.run sees the override."""
    catalog = ModelCatalog()
    entry = catalog.entry(LOCAL)
    model = ScriptedModel()

    async def lookup() -> ModelClient:
        return await asyncio.create_task(asyncio.sleep(0, catalog.client_for(entry)))

    with override_client(model):
        assert asyncio.run(lookup()) is model


def test_the_override_is_local_to_its_context() -> None:
    """Another thread does not see the client installed in this one."""
    catalog = ModelCatalog()
    entry = catalog.entry(LOCAL)
    model = ScriptedModel()
    seen: list[object] = []

    def look() -> None:
        client = catalog.client_for(entry)
        seen.append(client)
        asyncio.run(client.aclose())

    with override_client(model):
        thread = threading.Thread(target=look)
        thread.start()
        thread.join()

    assert len(seen) == 1
    assert seen[0] is not model


def test_a_catalog_keeps_one_client_per_entry_on_a_running_loop() -> None:
    """On one event loop the catalog reuses the client it made for an entry, until aclose."""
    catalog = ModelCatalog()
    entry = catalog.entry(LOCAL)

    async def twice() -> tuple[ModelClient, ModelClient]:
        first, second = catalog.client_for(entry), catalog.client_for(entry)
        await catalog.aclose()
        return first, second

    first, second = asyncio.run(twice())
    assert first is second


# -- ThinkerDeclaration ----------------------------------------------------------------------------


@pytest.mark.parametrize("grade", ["", None, 3, b"standard"])
def test_a_declaration_refuses_a_grade_that_is_not_a_grade_name(grade: object) -> None:
    """The grade must be a non-empty name; anything else is misuse, raised at construction."""
    with pytest.raises(MisuseError, match="grade"):
        ThinkerDeclaration(grade, AnswerSize.SHORT)  # type: ignore[arg-type]


@pytest.mark.parametrize("answer_size", [0, -1, True, False, 1.5, "huge", None])
def test_a_declaration_refuses_an_answer_size_that_is_not_a_size(answer_size: object) -> None:
    """The answer size must be an AnswerSize or a positive token count."""
    with pytest.raises(MisuseError, match="answer_size"):
        ThinkerDeclaration("standard", answer_size)  # type: ignore[arg-type]


def test_a_declaration_takes_a_grade_name_or_enum_and_a_size_or_token_count() -> None:
    """Grades are names (Grade members or a project's own); sizes are AnswerSize or tokens."""
    assert ThinkerDeclaration(Grade.STRONG, AnswerSize.LONG).answer_tokens == 16_384
    assert ThinkerDeclaration("reviewer", 777).answer_tokens == 777
    sizes = [ThinkerDeclaration("standard", size).answer_tokens for size in AnswerSize]
    assert sizes == sorted(sizes)
    assert len(set(sizes)) == len(sizes)


def test_a_declaration_is_a_value() -> None:
    """Two declarations of the same seat are equal, and a declaration cannot be changed."""
    declaration = ThinkerDeclaration("standard", AnswerSize.MEDIUM)

    assert declaration == ThinkerDeclaration("standard", AnswerSize.MEDIUM)
    with pytest.raises(AttributeError):
        declaration.grade = "strong"  # type: ignore[misc]


# -- ScriptedModel ---------------------------------------------------------------------------------


def ask(model: ScriptedModel) -> ModelResponse:
    """One request to ``model``."""
    return asyncio.run(model.complete(ModelRequest(model="m", messages=())))


def test_a_scripted_model_is_a_model_client() -> None:
    """ScriptedModel implements the ModelClient protocol."""
    assert isinstance(ScriptedModel(), ModelClient)


def test_a_queue_script_answers_in_order_and_records_every_request() -> None:
    """Queued answers are given in order; each request is recorded as it was received."""
    answer = ModelResponse(content=(TextBlock(text="second"),), stop_reason=StopReason.END_TURN)
    model = ScriptedModel(["first", answer])
    requests = [ModelRequest(model="a", max_tokens=10), ModelRequest(model="b", max_tokens=20)]

    first = asyncio.run(model.complete(requests[0]))
    second = asyncio.run(model.complete(requests[1]))

    assert first.text == "first"
    assert first.stop_reason is StopReason.END_TURN
    assert second is answer
    assert model.requests == requests
    assert all(got is sent for got, sent in zip(model.requests, requests, strict=True))
    assert model.remaining == 0


def test_a_function_script_answers_every_request_and_never_runs_out() -> None:
    """A function script is called with each request and answers as often as asked."""
    model = ScriptedModel(lambda request: f"budget {request.max_tokens}")
    answers = [
        asyncio.run(model.complete(ModelRequest(model="m", max_tokens=n))).text for n in (1, 2, 3)
    ]

    assert answers == ["budget 1", "budget 2", "budget 3"]
    assert len(model.requests) == 3


def test_a_queued_callable_is_called_with_its_request() -> None:
    """An answer in the queue may itself be a function of the request."""
    model = ScriptedModel([lambda request: request.model.upper()])

    assert asyncio.run(model.complete(ModelRequest(model="abc"))).text == "ABC"


def test_a_queued_exception_is_raised_and_its_request_still_recorded() -> None:
    """A scripted error is raised for its request, which is recorded like any other."""
    model = ScriptedModel([ModelServerError("down", provider="scripted"), "after"])
    with pytest.raises(ModelServerError):
        ask(model)

    assert len(model.requests) == 1
    assert ask(model).text == "after"


def test_an_exhausted_script_raises_script_exhausted() -> None:
    """Asking beyond the queue raises ScriptExhausted, a misuse; push() extends the script."""
    model = ScriptedModel(["only"])
    ask(model)
    with pytest.raises(ScriptExhausted) as raised:
        ask(model)

    assert isinstance(raised.value, MisuseError)
    assert "push()" in str(raised.value)
    model.push("more", "and more")
    assert model.remaining == 2
    assert ask(model).text == "more"


def test_stream_yields_text_deltas_then_one_response_complete() -> None:
    """Streaming gives the text in deltas, then the whole response, and records the request."""
    answer = text_response("A streamed answer, in several pieces.")
    model = ScriptedModel([answer])

    async def collect() -> list[object]:
        return [event async for event in model.stream(ModelRequest(model="m"))]

    events = asyncio.run(collect())

    deltas, last = events[:-1], events[-1]
    assert len(deltas) > 1
    assert all(isinstance(delta, TextDelta) for delta in deltas)
    assert "".join(delta.text for delta in deltas) == answer.text  # type: ignore[attr-defined]
    assert last == ResponseComplete(answer)
    assert len(model.requests) == 1


def test_stream_of_an_answer_without_text_is_just_the_response() -> None:
    """A tool-use answer streams no deltas, only its ResponseComplete."""
    answer = tool_use_response(("search", {"query": "q"}))
    model = ScriptedModel([answer])

    async def collect() -> list[object]:
        return [event async for event in model.stream(ModelRequest(model="m"))]

    assert asyncio.run(collect()) == [ResponseComplete(answer)]


def test_response_helpers_build_text_and_tool_use_answers() -> None:
    """text_response and tool_use_response build answers with the right stop reasons and ids."""
    truncated = text_response("cut", stop_reason=StopReason.MAX_TOKENS)
    assert (truncated.text, truncated.stop_reason) == ("cut", StopReason.MAX_TOKENS)
    assert truncated.usage.output_tokens >= 1

    given = ToolUseBlock(id="toolu_given", name="read", input="{}")
    calls = tool_use_response(("a", {}), ("b", '{"x": 1}'), given, text="Calling.")
    assert calls.stop_reason is StopReason.TOOL_USE
    assert calls.text == "Calling."
    assert [use.name for use in calls.tool_uses] == ["a", "b", "read"]
    assert calls.tool_uses[2] is given
    assert len({use.id for use in calls.tool_uses}) == 3
    assert calls.usage == Usage()
