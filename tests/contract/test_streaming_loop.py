"""Streaming in the thinker loop: the model's text reaches the listeners as it arrives.

With ``stream_text`` on, each exchange is streamed (`ScriptedModel.stream`), its text passed to
the listeners as delta `ContentEvent`s, while the turn's response — tool uses, usage, stop reason
— is the one a completed request gives, so the loop runs exactly as it does unstreamed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _loop_kit import Lookup, answer, make
from pydantic import BaseModel

from nucleo_core.models import ModelResponse, StopReason, TextBlock, ToolResultBlock, Usage
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import ContentEvent


class Assistant(SingleObjectiveThinker[str, str]):
    """One read-only tool."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup]


class Verdict(BaseModel):
    verdict: str


class Judge(SingleObjectiveThinker[str, Verdict]):
    """A typed answer: JSON, not text for a reader."""


class Desk(ChatThinker):
    """A chat with no tools of its own."""


def _cut(text: str) -> ModelResponse:
    """An answer cut off at its budget."""
    return ModelResponse(
        content=(TextBlock(text=text),),
        stop_reason=StopReason.MAX_TOKENS,
        usage=Usage(input_tokens=3, output_tokens=4),
    )


def _streaming(thinker: Any) -> list[ContentEvent]:
    events: list[ContentEvent] = []
    thinker.listeners.append(events.append)
    thinker.stream_text = True
    return events


def _deltas(events: list[ContentEvent]) -> str:
    return "".join(event.text for event in events if event.delta)


def test_a_turn_text_streams_as_deltas_and_the_answer_is_not_repeated() -> None:
    """Each turn's text arrives as deltas, each reply ended by a done delta; no answer repeat."""
    looking = tool_use_response(("lookup", {"key": "x"}), text="Let me look that up.")
    model = ScriptedModel([looking, answer("The answer is 42, as looked up.")])
    thinker = make(Assistant, model)
    events = _streaming(thinker)

    result = asyncio.run(thinker.run("What is x?"))

    assert result == "The answer is 42, as looked up."
    assert model.streamed == [True, True]
    replies = [index for index, event in enumerate(events) if event.delta and event.done]
    assert len(replies) == 2
    first_reply = "".join(event.text for event in events[: replies[0]])
    assert first_reply == "Let me look that up."
    assert _deltas(events) == "Let me look that up." + result
    assert len([event for event in events if event.delta and event.text]) > 2  # in pieces
    assert events[-1] == ContentEvent(text="", done=True)  # the answer: nothing left to show
    # The streamed tool use ran and its result went back, as unstreamed.
    (result_block,) = [
        block
        for block in model.requests[1].messages[-1].content
        if isinstance(block, ToolResultBlock)
    ]
    assert result_block.tool_use_id == looking.tool_uses[0].id
    assert result_block.content == "x means 42"


def test_without_stream_text_nothing_streams_and_the_answer_is_one_event() -> None:
    """The default: requests are completed and the listeners get the accepted answer only."""
    model = ScriptedModel([answer("Plain.")])
    thinker = make(Assistant, model)
    events: list[ContentEvent] = []
    thinker.listeners.append(events.append)

    asyncio.run(thinker.run("Hi"))

    assert model.streamed == [False]
    assert events == [ContentEvent(text="Plain.", done=True)]


def test_an_escalated_answer_shows_only_what_goes_beyond_the_cut_one() -> None:
    """An answer cut at its budget is asked again; its text shown so far is not shown twice."""
    model = ScriptedModel(
        [_cut("The capital of France"), answer("The capital of France is Paris.")]
    )
    thinker = make(Assistant, model)
    events = _streaming(thinker)

    result = asyncio.run(thinker.run("Capital?"))

    assert result == "The capital of France is Paris."
    assert model.requests[1].max_tokens == 2 * model.requests[0].max_tokens
    assert _deltas(events) == result
    assert [event for event in events if event.done] == [
        ContentEvent(text="", done=True, delta=True),
        ContentEvent(text="", done=True),
    ]


def test_an_escalated_answer_that_says_something_else_is_shown_whole_once() -> None:
    """When the second attempt diverges, streaming stops and the answer comes whole at the end."""
    model = ScriptedModel([_cut("Bonjour, je"), answer("Paris.")])
    thinker = make(Assistant, model)
    events = _streaming(thinker)

    asyncio.run(thinker.run("Capital?"))

    assert _deltas(events) == "Bonjour, je"
    assert events[-1] == ContentEvent(text="Paris.", done=True)


def test_a_typed_answer_is_not_streamed() -> None:
    """JSON for a declared type is not text for a reader: the request is completed."""
    model = ScriptedModel([answer(Verdict(verdict="fine"))])
    thinker = make(Judge, model)
    events = _streaming(thinker)

    verdict = asyncio.run(thinker.run("Judge."))

    assert verdict == Verdict(verdict="fine")
    assert model.streamed == [False]
    assert [event.delta for event in events] == [False]


def test_a_chat_streams_its_reply_and_its_chunks_add_nothing_shown() -> None:
    """A chat reply arrives as deltas; the answer's chunks are then one empty done chunk."""
    reply = "Paris is the capital of France, and has been for a very long while now."
    model = ScriptedModel([reply])
    with make(Desk, model) as desk:
        events = _streaming(desk)
        answered = asyncio.run(desk.send("Capital?", conversation_id="c1"))

    assert answered == reply
    assert model.streamed == [True]
    assert _deltas(events) == reply
    assert [event for event in events if not event.delta] == [ContentEvent(text="", done=True)]
