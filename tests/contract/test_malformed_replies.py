"""Malformed model replies never kill a run, and tool failures are recorded for the developer.

A tool use whose input nests 10,000 deep, whose name is ``null`` or a number, is refused for
that one call with a correctable error; the other calls of the turn run, every tool use gets
its result, the conversation is stored and the transcript written. A tool that raises is
logged to ``nucleo.tools`` with its traceback and kept on the thinker's run.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
from _loop_kit import assert_paired
from hypothesis import given, settings

from nucleo_core import ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.conversations.message_codec import decode_message, encode_message
from nucleo_core.errors import CorrectableError, InvalidToolInput, UnknownTool
from nucleo_core.models import (
    ModelCatalog,
    ModelRequest,
    ModelResponse,
    StopReason,
    ThinkerDeclaration,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.models._json_depth import (
    MAX_JSON_DEPTH,
    exceeds,
    overflows,
    render,
    tool_input,
)
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking import CallStatus, ThinkingResponseHandler, ToolFailure
from nucleo_core.thinking._well_formed import well_formed
from nucleo_core.thinking.reactive import ReactiveThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.transcript import render_transcript
from nucleo_core.tools.registry import ToolRegistry

DEPTH = 10_000


def nested(depth: int) -> dict[str, Any]:
    """``{"query": [[[...]]]}`` nesting ``depth`` levels in all, built without recursion."""
    innermost: list[Any] = []
    value = innermost
    for _ in range(depth - 2):
        value = [value]
    return {"query": value}


class Boom(RuntimeError):
    """The internal error a broken tool raises."""


@tool(read_only=True, risk="low")
def search(query: str) -> str:
    """Search the notes."""
    return f"found: {query}"


@tool(read_only=True, risk="low")
def explode(query: str) -> str:
    """A tool with a bug."""
    raise Boom(f"secret detail about {query}")


class Notes(SingleObjectiveThinker[str, str]):
    """A thinker with two tools from the first turn."""

    declaration = ThinkerDeclaration("standard", "short")

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [search, explode]


class ChatNotes(ReactiveThinker):
    """A reactive thinker with the same tools."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [search, explode]


def notes(model: ScriptedModel, tmp_path: Path) -> Notes:
    return Notes(
        Notes.declaration,
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(tmp_path / "conversations.db"),
        client=model,
    )


def results_of(request: ModelRequest) -> dict[str, ToolResultBlock]:
    """The tool results the last message of ``request`` holds, by tool-use id."""
    return {
        block.tool_use_id: block
        for block in request.messages[-1].content
        if isinstance(block, ToolResultBlock)
    }


# -- a whole thinker turn ---------------------------------------------------------------------


def test_a_turn_with_a_10000_deep_input_and_unusable_names_goes_on(tmp_path: Path) -> None:
    """Deep input and null/int names are refused per call; the good call runs and all pair."""
    deep = ToolUseBlock(id="toolu_deep", name="search", input=nested(DEPTH))
    deep_text = ToolUseBlock(
        id="toolu_text", name="search", input='{"query": ' + "[" * DEPTH + "]" * DEPTH + "}"
    )
    null_name = ToolUseBlock(id="toolu_null", name=None, input={"query": "q"})  # type: ignore[arg-type]
    int_name = ToolUseBlock(id="toolu_int", name=7, input={"query": "q"})  # type: ignore[arg-type]
    good = ToolUseBlock(id="toolu_good", name="search", input={"query": "lisbon"})
    model = ScriptedModel(
        [tool_use_response(deep, deep_text, null_name, int_name, good), "All done."]
    )
    thinker = notes(model, tmp_path)

    answer = asyncio.run(thinker.run("Look it up.", durable=True))

    assert answer == "All done."
    results = results_of(model.requests[1])
    assert results["toolu_good"] == ToolResultBlock(
        tool_use_id="toolu_good", content="found: lisbon"
    )
    for call_id in ("toolu_deep", "toolu_text"):
        assert results[call_id].is_error
        assert f"more than {MAX_JSON_DEPTH} levels deep" in results[call_id].content
        assert "[[" not in results[call_id].content  # never the input itself
    for call_id in ("toolu_null", "toolu_int"):
        assert results[call_id].is_error
        assert results[call_id].content.startswith(
            "The tool name must be a string naming one of the available tools:"
        )
        assert "search" in results[call_id].content
    assert_paired(model.requests[1].messages)
    transcript = thinker.transcript()
    assert transcript is not None
    assert "toolu_deep" in transcript
    assert len(transcript) < 5_000  # the deep inputs are shown in their bounded cut form


def test_a_turn_s_deep_input_is_stored_and_sent_back_bounded(tmp_path: Path) -> None:
    """The conversation stores the deep call in its cut form, and the next request holds it."""
    model = ScriptedModel(
        [
            tool_use_response(ToolUseBlock(id="toolu_deep", name="search", input=nested(DEPTH))),
            "Done.",
        ]
    )
    thinker = notes(model, tmp_path)
    asyncio.run(thinker.run("Look it up.", conversation_id="c-deep", durable=True))

    stored = thinker.conversations.open("c-deep", durable=True)
    (kept,) = [use for message in stored.messages for use in message.tool_uses]
    assert isinstance(kept.input, str)
    assert len(kept.input) <= 1_100
    assert overflows(kept.input) is not None  # still reads as too deep, so it stays refused
    sent = model.requests[1].messages[1].tool_uses[0]
    assert sent.input == kept.input
    thinker.conversations.close(stored)


def test_a_tool_failure_is_logged_and_kept_on_the_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool that raises is logged at ERROR to nucleo.tools with its traceback, and on the run."""
    model = ScriptedModel(
        [
            tool_use_response(
                ToolUseBlock(id="toolu_boom", name="explode", input={"query": "q"}),
                ToolUseBlock(id="toolu_ok", name="search", input={"query": "q"}),
            ),
            "Done.",
        ]
    )
    thinker = notes(model, tmp_path)

    with caplog.at_level(logging.WARNING, logger="nucleo.tools"):
        asyncio.run(thinker.run("Look it up."))

    (record,) = [r for r in caplog.records if r.name == "nucleo.tools"]
    assert record.levelno == logging.ERROR
    assert "'explode'" in record.getMessage()
    assert "toolu_boom" in record.getMessage()
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], Boom)
    assert "raise Boom" in caplog.text  # the traceback is in the log
    (failure,) = thinker.last_tool_failures or ()
    assert (failure.tool, failure.call_id, failure.status) == (
        "explode",
        "toolu_boom",
        CallStatus.FAILED,
    )
    assert isinstance(failure.error, Boom)
    assert "raise Boom" in failure.traceback
    # What the model read withholds the message (it may quote input or a secret).
    told = results_of(model.requests[1])["toolu_boom"].content
    assert "recorded for the developer" in told
    assert "secret" not in told


def test_a_run_without_tool_failures_records_none(tmp_path: Path) -> None:
    """A run whose tools all succeed leaves an empty failure list; none before any run."""
    model = ScriptedModel([tool_use_response(("search", {"query": "q"})), "Done."])
    thinker = notes(model, tmp_path)
    assert thinker.last_tool_failures is None

    asyncio.run(thinker.run("Look it up."))

    assert thinker.last_tool_failures == ()


def test_a_reactive_turn_keeps_its_tool_failures_on_its_outcome(tmp_path: Path) -> None:
    """A reactive turn's outcome lists the turn's failed calls."""
    model = ScriptedModel([tool_use_response(("explode", {"query": "q"})), "Sorry."])
    thinker = ChatNotes(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(tmp_path / "conversations.db"),
        client=model,
    )

    asyncio.run(thinker.turn("Look it up.", conversation_id="chat"))

    outcome = thinker.last_outcome
    assert outcome is not None
    assert [failure.tool for failure in outcome.tool_failures] == ["explode"]
    assert outcome.tool_failures == thinker.last_tool_failures


def test_a_correctable_error_a_tool_raises_is_logged_as_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool's own CorrectableError (meant for the model) is recorded at WARNING, not ERROR."""

    @tool(read_only=True, risk="low")
    def picky(query: str) -> str:
        """Refuses short queries."""
        raise CorrectableError("Send a longer query.")

    class Picky(Notes):
        @classmethod
        def declare_default_tools(cls) -> list[Any]:
            return [picky]

    model = ScriptedModel([tool_use_response(("picky", {"query": "q"})), "Done."])
    thinker = Picky(
        Picky.declaration,
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(":memory:"),
        client=model,
    )
    with caplog.at_level(logging.WARNING, logger="nucleo.tools"):
        asyncio.run(thinker.run("Go."))

    (record,) = [r for r in caplog.records if r.name == "nucleo.tools"]
    assert record.levelno == logging.WARNING
    assert [f.tool for f in thinker.last_tool_failures or ()] == ["picky"]
    (told,) = results_of(model.requests[1]).values()
    assert told.content == "Send a longer query."


# -- properties ---------------------------------------------------------------------------------

json_names = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def nested_value(depth: int, leaf: str) -> Any:
    """A value nesting ``depth`` levels, alternating arrays and objects."""
    value: Any = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


REGISTRY = ToolRegistry()
REGISTRY.register(search)


@settings(max_examples=150, deadline=None)
@given(
    name=json_names,
    depth=st.integers(min_value=0, max_value=3 * MAX_JSON_DEPTH),
    as_text=st.booleans(),
)
def test_any_name_and_any_nesting_is_at_worst_a_correctable_error_of_that_call(
    name: object, depth: int, as_text: bool
) -> None:
    """Whatever name and nesting a tool use has, the handler keeps it with a correctable error."""
    value = {"query": nested_value(depth, "q")}
    given_input: Any = render(value) if as_text else value
    use = ToolUseBlock(id="toolu_p", name=name, input=given_input)  # type: ignore[arg-type]
    good = ToolUseBlock(id="toolu_good", name="search", input={"query": "q"})
    response = well_formed(ModelResponse(content=(use, good), stop_reason=StopReason.TOOL_USE))

    result = ThinkingResponseHandler(tools=REGISTRY).handle(response)

    first, second = result.tool_calls
    assert second.ok
    assert first.id == "toolu_p"
    too_deep = depth + 1 > MAX_JSON_DEPTH
    if not isinstance(name, str) or name != "search":
        assert isinstance(first.error, UnknownTool)
    elif too_deep:
        assert isinstance(first.error, InvalidToolInput)
        assert "levels deep" in str(first.error)
    # The answer can be stored and rendered, whatever it held.
    message = response.as_message()
    assert decode_message(encode_message(message)) == message
    assert "toolu_p" in render_transcript([message])


@settings(max_examples=100, deadline=None)
@given(depth=st.integers(min_value=0, max_value=3 * MAX_JSON_DEPTH), leaf=st.text(max_size=5))
def test_the_cut_form_of_a_too_deep_value_still_reads_as_too_deep(depth: int, leaf: str) -> None:
    """A value is cut exactly when it nests past the limit, and its cut form overflows too."""
    value = nested_value(depth, leaf)
    kept = tool_input({"v": value})
    if depth + 1 > MAX_JSON_DEPTH:
        assert exceeds({"v": value})
        assert isinstance(kept, str)
        assert overflows(kept) is not None
        assert len(kept) <= 1_100
    else:
        assert kept == {"v": value}
        assert json.loads(render({"v": value})) == {"v": value}


def test_a_tool_failure_record_names_tool_call_and_exception() -> None:
    """ToolFailure is the typed record of one failed call."""
    try:
        raise Boom("x")
    except Boom as exc:
        failure = ToolFailure(tool="t", call_id="c", status=CallStatus.FAILED, error=exc)
    assert "Boom: x" in failure.traceback
