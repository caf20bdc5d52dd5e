"""ThinkingResponseHandlerToolUseTest (seed 002: "Results always pair").

The handler keeps every tool use of an answer as a `ToolCall`, in order, under its id: one it
cannot resolve carries its error instead of vanishing, so no tool-use id is ever orphaned. Calls
parsed from a JSON envelope get minted ids. Names resolve through ``registry.available``, so a
tool outside the current restriction or phase is unknown. Whatever a model sends, the handler
returns a `ThinkingResponse` or raises `AnswerRefused`, and nothing else.
"""

import json
from collections.abc import Mapping
from contextlib import nullcontext
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from pydantic import BaseModel

from nucleo_core import (
    InvalidToolInput,
    Phase,
    Tool,
    ToolProvider,
    ToolRegistry,
    UnknownTool,
    tool,
)
from nucleo_core.errors import AnswerRefused
from nucleo_core.models import (
    ContentBlock,
    ModelResponse,
    ReasoningBlock,
    StopReason,
    TextBlock,
    ToolUseBlock,
)
from nucleo_core.testing import text_response, tool_use_response
from nucleo_core.thinking import ThinkingResponse, ThinkingResponseHandler
from nucleo_core.tools import RawInput


class SearchInput(BaseModel):
    query: str
    limit: int = 10


@tool(name="search", read_only=True, risk="low")
class Search(Tool[SearchInput, list[str]]):
    """Search the notes."""

    def run(self, input: SearchInput) -> list[str]:
        return [input.query] * input.limit


@tool(read_only=True, risk="low")
def read_note(path: str) -> str:
    """Read one note."""
    return path


@tool
def write_note(path: str, text: str) -> str:
    """Write one note."""
    return f"{path}:{text}"


class Summary(BaseModel):
    title: str
    points: list[str]


REGISTERED = ("search", "read_note", "write_note")


def registry() -> ToolRegistry:
    """The palette the handler resolves names through."""
    return ToolRegistry([Search, read_note, write_note])


def handler(
    output_type: object = str, *, native_tools: bool = True, tools: ToolRegistry | None = None
) -> ThinkingResponseHandler[Any]:
    """A handler over the sample palette (or ``tools``)."""
    return ThinkingResponseHandler(
        output_type, tools=tools if tools is not None else registry(), native_tools=native_tools
    )


def native(*blocks: ContentBlock, stop: StopReason = StopReason.TOOL_USE) -> ModelResponse:
    """A response holding ``blocks``."""
    return ModelResponse(content=blocks, stop_reason=stop)


def envelope(**fields: object) -> str:
    """An envelope's JSON text."""
    return json.dumps(fields)


# -- native tool uses ------------------------------------------------------------------------------


def test_native_tool_uses_are_kept_in_order_with_their_ids() -> None:
    """Every native tool use becomes a ToolCall, in the answer's order, under its own id."""
    uses = (
        ToolUseBlock(id="toolu_3", name="write_note", input={"path": "a", "text": "b"}),
        ToolUseBlock(id="toolu_1", name="search", input={"query": "q"}),
        ToolUseBlock(id="toolu_2", name="read_note", input='{"path": "c"}'),
    )
    result = handler().handle(native(TextBlock(text="Let me look."), *uses))

    assert result.final_answer is False
    assert result.answer is None
    assert [call.id for call in result.tool_calls] == ["toolu_3", "toolu_1", "toolu_2"]
    assert [call.name for call in result.tool_calls] == ["write_note", "search", "read_note"]
    assert [call.raw_input for call in result.tool_calls] == [use.input for use in uses]
    assert all(call.ok and not call.minted_id for call in result.tool_calls)


def test_a_resolved_call_carries_its_provider_and_validated_input() -> None:
    """A call to an available tool with valid input carries the provider and the parsed input."""
    palette = registry()
    result = handler(tools=palette).handle(tool_use_response(("search", {"query": "q"})))

    (call,) = result.tool_calls
    assert call.provider is palette.available("search")
    assert call.input == SearchInput(query="q", limit=10)
    assert call.error is None


def test_unresolvable_calls_keep_their_id_and_carry_their_error() -> None:
    """Unknown names and bad input are kept under their ids, each with the error that explains."""
    uses = (
        ToolUseBlock(id="toolu_unknown", name="teleport", input={}),
        ToolUseBlock(id="toolu_not_json", name="search", input='{"query": "q'),
        ToolUseBlock(id="toolu_not_object", name="search", input="[1, 2]"),
        ToolUseBlock(id="toolu_bad_field", name="search", input={"query": 5}),
        ToolUseBlock(id="toolu_nameless", name="", input={"query": "q"}),
        ToolUseBlock(id="toolu_fine", name="read_note", input={"path": "p"}),
    )
    result = handler().handle(native(*uses))

    calls = {call.id: call for call in result.tool_calls}
    assert list(calls) == [use.id for use in uses]
    assert isinstance(calls["toolu_unknown"].error, UnknownTool)
    assert isinstance(calls["toolu_not_json"].error, InvalidToolInput)
    assert isinstance(calls["toolu_not_object"].error, InvalidToolInput)
    assert isinstance(calls["toolu_bad_field"].error, InvalidToolInput)
    assert isinstance(calls["toolu_nameless"].error, UnknownTool)
    assert calls["toolu_fine"].ok
    assert [call.ok for call in result.tool_calls] == [False] * 5 + [True]


class BrittleProvider(ToolProvider):
    """A hand-written provider (an MCP bridge, say) whose parsing raises a plain ValueError."""

    @property
    def name(self) -> str:
        return "brittle"

    @property
    def description(self) -> str:
        return "A tool whose parse_input lets the JSON decoder's error escape."

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {"text": {"type": "string"}}}

    def parse_input(self, raw: RawInput) -> Any:
        return json.loads(raw) if isinstance(raw, str | bytes | bytearray) else dict(raw)

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        raise NotImplementedError


def test_a_provider_whose_parsing_raises_an_untyped_error_still_yields_a_tool_call() -> None:
    """A provider's stray parse exception becomes the call's InvalidToolInput, never an escape."""
    palette = ToolRegistry([BrittleProvider()])
    response = tool_use_response(("brittle", '{"text": "\u27e6secret'))
    result = handler(tools=palette).handle(response)

    (call,) = result.tool_calls
    assert call.id == response.tool_uses[0].id
    assert isinstance(call.error, InvalidToolInput)
    assert "\u27e6secret" not in str(call.error)


# -- restrictions and phases -----------------------------------------------------------------------


def test_a_tool_outside_the_active_restriction_counts_as_unknown() -> None:
    """A registered tool the current restriction excludes resolves as unknown."""
    palette = registry()
    palette.restrict("skill:notes", ["read_note"])
    result = handler(tools=palette).handle(
        tool_use_response(("search", {"query": "q"}), ("read_note", {"path": "p"}))
    )

    restricted, allowed = result.tool_calls
    assert isinstance(restricted.error, UnknownTool)
    assert restricted.error.available == ("read_note",)
    assert restricted.provider is None
    assert allowed.ok


def test_a_tool_absent_from_the_current_phase_counts_as_unknown() -> None:
    """A registered tool the current phase does not permit resolves as unknown."""
    palette = registry()
    palette.enter_phase(Phase.only("drafting", ["write_note"]))
    result = handler(tools=palette).handle(
        tool_use_response(("read_note", {"path": "p"}), ("write_note", {"path": "p", "text": "t"}))
    )

    absent, present = result.tool_calls
    assert isinstance(absent.error, UnknownTool)
    assert absent.error.available == ("write_note",)
    assert present.ok


def test_resolution_follows_the_registry_at_the_time_of_handling() -> None:
    """Lifting a restriction between answers makes the tool resolvable again."""
    palette = registry()
    the_handler = handler(tools=palette)
    palette.restrict("skill:notes", ["read_note"])
    answer = tool_use_response(("search", {"query": "q"}))
    assert not the_handler.handle(answer).tool_calls[0].ok

    palette.lift_restriction("skill:notes")
    assert the_handler.handle(answer).tool_calls[0].ok


# -- envelope tool calls ---------------------------------------------------------------------------


def test_envelope_tool_calls_get_minted_unique_ids() -> None:
    """Calls parsed from the text get fresh ids, distinct within and across answers."""
    text = envelope(
        final_answer=False,
        tool_calls=[
            {"name": "search", "input": {"query": "a"}},
            {"name": "search", "input": {"query": "a"}},
            {"name": "read_note", "input": {"path": "p"}},
        ],
        reasoning="Looking.",
    )
    the_handler = handler(native_tools=False)
    first = the_handler.handle(text_response(text))
    second = the_handler.handle(text_response(text))

    ids = [call.id for call in (*first.tool_calls, *second.tool_calls)]
    assert len(ids) == 6
    assert len(set(ids)) == 6
    assert all(call.id and call.minted_id for call in first.tool_calls)
    assert all(call.ok for call in first.tool_calls)
    assert first.final_answer is False
    assert first.reasoning == "Looking."


def test_unresolvable_envelope_calls_keep_a_minted_id_and_their_error() -> None:
    """Envelope entries that cannot resolve still become calls with an id and an error."""
    text = envelope(
        final_answer=False,
        tool_calls=[
            {"name": "teleport", "input": {}},
            {"name": "search", "input": ["q"]},
            {"name": "search", "input": '{"query": '},
            {"input": {"query": "q"}},
            "search",
            {"name": "search", "arguments": {"query": "q"}},
        ],
    )
    result = handler(native_tools=False).handle(text_response(text))

    errors = [type(call.error) for call in result.tool_calls]
    assert [UnknownTool if kind and issubclass(kind, UnknownTool) else kind for kind in errors] == [
        UnknownTool,
        InvalidToolInput,
        InvalidToolInput,
        UnknownTool,
        UnknownTool,
        type(None),
    ]
    # The entries that name no tool at all are told the name must be a string naming one.
    for call in result.tool_calls[3:5]:
        assert str(call.error).startswith("The tool name must be a string naming one of")
    assert all(call.minted_id for call in result.tool_calls)
    assert len({call.id for call in result.tool_calls}) == 6


def test_native_tool_uses_beside_an_envelope_keep_their_ids_and_come_first() -> None:
    """A native model that also writes an envelope keeps its native ids; text calls are minted."""
    text = envelope(final_answer=False, tool_calls=[{"name": "read_note", "input": {"path": "p"}}])
    response = native(
        TextBlock(text=text), ToolUseBlock(id="toolu_n", name="search", input={"query": "q"})
    )
    result = handler().handle(response)

    first, second = result.tool_calls
    assert (first.id, first.minted_id) == ("toolu_n", False)
    assert second.minted_id is True
    assert second.id != "toolu_n"


def test_an_envelope_that_calls_no_tool_and_gives_no_answer_is_refused() -> None:
    """final_answer false with no tool calls is refused: there would be nothing to do."""
    with pytest.raises(AnswerRefused) as refused:
        handler(native_tools=False).handle(text_response(envelope(final_answer=False)))

    assert refused.value.kind == "validation"
    assert "tool_calls" in str(refused.value)


def test_an_envelope_whose_tool_calls_is_not_a_list_is_refused() -> None:
    """A tool_calls field that is not a list is refused naming the field."""
    text = envelope(final_answer=False, tool_calls={"name": "search"})
    with pytest.raises(AnswerRefused) as refused:
        handler(native_tools=False).handle(text_response(text))

    assert "tool_calls" in str(refused.value)


def test_text_that_is_not_an_envelope_is_a_parse_refusal_for_a_model_without_native_tools() -> None:
    """A model without native tool calling must answer in the envelope; prose is not parsed."""
    with pytest.raises(AnswerRefused) as refused:
        handler(native_tools=False).handle(text_response("The answer is 4."))

    assert refused.value.kind == "parse"
    assert "final_answer" in str(refused.value)


# -- answers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"title": "T", "points": ["a", "b"]}',
        '  {"title": "T", "points": ["a", "b"]}\n',
        '```json\n{"title": "T", "points": ["a", "b"]}\n```',
        '```JSON\n{"title": "T", "points": ["a", "b"]}\n```',
        '```\n{"title": "T", "points": ["a", "b"]}\n```',
        '\n```json\n{"title": "T",\n "points": ["a", "b"]}\n```\n',
    ],
)
def test_a_structured_answer_is_parsed_from_text_including_a_fenced_json_block(text: str) -> None:
    """A structured output type is read from plain or ```json-fenced JSON in the text."""
    result = handler(Summary).handle(text_response(text))

    assert result.final_answer is True
    assert result.answer == Summary(title="T", points=["a", "b"])
    assert result.tool_calls == ()


def test_a_structured_answer_is_read_from_the_envelope_answer_field() -> None:
    """In envelope mode the answer is the envelope's answer field, validated to the output type."""
    text = envelope(final_answer=True, answer={"title": "T", "points": []}, reasoning="Done.")
    result = handler(Summary, native_tools=False).handle(text_response(text))

    assert result.answer == Summary(title="T", points=[])
    assert result.reasoning == "Done."


def test_a_fenced_envelope_is_read_as_the_envelope() -> None:
    """An envelope wrapped in a ```json fence is still the envelope."""
    text = "```json\n" + envelope(final_answer=True, answer="Four.") + "\n```"
    result = handler(native_tools=False).handle(text_response(text))

    assert result.answer == "Four."


def test_an_envelope_with_final_answer_true_and_no_answer_is_refused() -> None:
    """A final answer lacking its answer field never reaches the caller."""
    with pytest.raises(AnswerRefused) as refused:
        handler(Summary, native_tools=False).handle(text_response(envelope(final_answer=True)))

    assert refused.value.kind == "validation"
    assert "answer" in refused.value.problems[0]


def test_reasoning_blocks_are_kept_as_the_reasoning() -> None:
    """Reasoning the provider returned as blocks becomes the response's reasoning."""
    response = native(
        ReasoningBlock(text="First, the notes."),
        ToolUseBlock(id="toolu_r", name="search", input={"query": "q"}),
    )
    assert handler().handle(response).reasoning == "First, the notes."


@pytest.mark.parametrize(
    ("output_type", "native_tools", "refused"),
    [(str, True, False), (str, False, True), (Summary, True, True)],
)
@pytest.mark.parametrize("text", ["[" * 100_000, '{"final_answer": ' + "[" * 100_000])
def test_pathologically_nested_json_is_refused_or_read_never_a_crash(
    text: str, output_type: object, native_tools: bool, refused: bool
) -> None:
    """Text nested deeper than the JSON decoder can follow is refused or read, never a crash."""
    with pytest.raises(AnswerRefused) if refused else nullcontext():
        handler(output_type, native_tools=native_tools).handle(text_response(text))


# -- the property ----------------------------------------------------------------------------------

JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.text(max_size=10)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
NAMES = st.sampled_from([*REGISTERED, "teleport", ""]) | st.text(max_size=12)
OBJECT_INPUTS = st.fixed_dictionaries(
    {},
    optional={
        "query": st.text(max_size=8) | JSON_VALUES,
        "limit": st.integers() | JSON_VALUES,
        "path": st.text(max_size=8),
        "text": st.text(max_size=8),
    },
) | st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=3)


@st.composite
def truncated_json(draw: st.DrawFn, value: st.SearchStrategy[Any]) -> str:
    """A JSON text of a drawn value, cut short somewhere (possibly not at all)."""
    whole = json.dumps(draw(value))
    return whole[: draw(st.integers(min_value=0, max_value=len(whole)))]


TOOL_INPUTS = (
    OBJECT_INPUTS
    | OBJECT_INPUTS.map(json.dumps)
    | truncated_json(OBJECT_INPUTS)
    | st.text(max_size=20)
)
ENVELOPE_CALLS = st.lists(
    st.fixed_dictionaries({}, optional={"name": NAMES | JSON_VALUES, "input": TOOL_INPUTS})
    | JSON_VALUES,
    max_size=4,
)
ENVELOPES = st.fixed_dictionaries(
    {"final_answer": st.booleans() | JSON_VALUES},
    optional={
        "answer": JSON_VALUES
        | st.fixed_dictionaries({"title": st.text(max_size=5), "points": st.lists(st.text())}),
        "tool_calls": ENVELOPE_CALLS | JSON_VALUES,
        "reasoning": JSON_VALUES,
    },
)
ANSWERS: st.SearchStrategy[Any] = st.sampled_from(
    [{"title": "T", "points": ["a"]}, [1, 2], 7, "Plain words."]
)
WELL_FORMED = (
    ANSWERS.map(json.dumps)
    | ANSWERS.map(lambda answer: f"```json\n{json.dumps(answer)}\n```")
    | ANSWERS.map(lambda answer: json.dumps({"final_answer": True, "answer": answer}))
)
TEXTS = (
    WELL_FORMED
    | st.text(max_size=40)
    | ENVELOPES.map(json.dumps)
    | ENVELOPES.map(lambda e: f"```json\n{json.dumps(e)}\n```")
    | truncated_json(ENVELOPES)
    | JSON_VALUES.map(json.dumps)
)


@st.composite
def responses(draw: st.DrawFn) -> ModelResponse:
    """An arbitrary answer: text, reasoning and tool-use blocks in any order, any stop reason."""
    ids = draw(st.just([]) | st.lists(st.text(min_size=1, max_size=12), unique=True, max_size=5))
    blocks: list[ContentBlock] = [
        ToolUseBlock(id=use_id, name=draw(NAMES), input=draw(TOOL_INPUTS)) for use_id in ids
    ]
    blocks += [TextBlock(text=text) for text in draw(st.lists(TEXTS, max_size=2))]
    blocks += [ReasoningBlock(text=text) for text in draw(st.lists(st.text(), max_size=1))]
    order = draw(st.permutations(blocks))
    return ModelResponse(content=tuple(order), stop_reason=draw(st.sampled_from(StopReason)))


@st.composite
def palettes(draw: st.DrawFn) -> ToolRegistry | None:
    """No palette, or the sample one, possibly restricted or in a phase."""
    if draw(st.booleans()):
        return None
    palette = registry()
    if draw(st.booleans()):
        palette.restrict("skill", draw(st.lists(st.sampled_from(REGISTERED), max_size=2)))
    if draw(st.booleans()):
        palette.enter_phase(Phase.read_only_tools("planning"))
    return palette


@given(
    response=responses(),
    palette=palettes(),
    output_type=st.sampled_from([str, Summary, list[int], int]),
    native_tools=st.booleans(),
)
def test_the_handler_returns_or_refuses_and_accounts_for_every_tool_use_id(
    response: ModelResponse,
    palette: ToolRegistry | None,
    output_type: object,
    native_tools: bool,
) -> None:
    """Any answer is returned or refused (nothing else), and every tool-use id appears once."""
    the_handler: ThinkingResponseHandler[Any] = ThinkingResponseHandler(
        output_type, tools=palette, native_tools=native_tools
    )
    refusal_kind: str | None = None
    try:
        result = the_handler.handle(response)
    except AnswerRefused as refused:
        refusal_kind = refused.kind
    if refusal_kind is not None:
        event(f"refused ({refusal_kind})")
        assert refusal_kind in ("parse", "validation")
        return
    event("final answer" if result.final_answer else "tool calls")

    assert isinstance(result, ThinkingResponse)
    ids = [call.id for call in result.tool_calls]
    for use in response.tool_uses:
        assert ids.count(use.id) == 1
    assert len(set(ids)) == len(ids)
    assert [call.id for call in result.tool_calls if not call.minted_id] == [
        use.id for use in response.tool_uses
    ]
    for call in result.tool_calls:
        if call.ok:
            assert call.provider is not None
            assert palette is not None
            assert palette.available(call.name) is call.provider
        else:
            assert isinstance(call.error, UnknownTool | InvalidToolInput)
            assert (call.provider is None) == isinstance(call.error, UnknownTool)
    if result.final_answer:
        assert result.tool_calls == ()
        assert result.answer is not None
        if output_type is Summary:
            assert isinstance(result.answer, Summary)
    else:
        assert result.tool_calls
        assert result.answer is None
