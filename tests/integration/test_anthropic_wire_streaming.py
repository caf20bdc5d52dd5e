"""A streaming thinker loop through the real ``anthropic`` SDK, against a server on 127.0.0.1.

The thinker streams its requests (``stream_text``): the Messages API's server-sent events are
read by the SDK, the text reaches the listeners as it arrives, and the turn's tool use, stop
reason and usage are the ones the events carried.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from wire_server import Reply, WireServer, wire_server

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.models.anthropic import AnthropicClient
from nucleo_core.models.messages import Usage
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import ContentEvent

MODEL = "claude-test"


@pytest.fixture(scope="module")
def shared_server() -> Iterator[WireServer]:
    with wire_server() as started:
        yield started


@pytest.fixture
def server(shared_server: WireServer) -> WireServer:
    shared_server.replies.clear()
    shared_server.requests.clear()
    return shared_server


def sse(*events: dict[str, Any]) -> Reply:
    """An event stream in Anthropic's format: each event named by its own ``type``."""
    return Reply.sse([(event["type"], event) for event in events])


def message_start(input_tokens: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1},
        },
    }


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    """A text block streamed in ``pieces``."""
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        *(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": p},
            }
            for p in pieces
        ),
        {"type": "content_block_stop", "index": index},
    ]


def tool_block(index: int, call_id: str, name: str, *json_pieces: str) -> list[dict[str, Any]]:
    """A tool use whose input is streamed as JSON fragments."""
    start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in json_pieces
        ),
        {"type": "content_block_stop", "index": index},
    ]


def message_end(stop_reason: str, output_tokens: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


@tool(read_only=True, risk="low")
def search_notes(query: str) -> str:
    """Search the notes."""
    return f"found: {query}"


class NoteThinker(SingleObjectiveThinker[str, str]):
    """A thinker with one tool."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [search_notes]


def test_a_streamed_turn_shows_its_text_runs_its_tool_use_and_counts_its_usage(
    server: WireServer,
) -> None:
    """Text deltas reach the listeners; the streamed tool use runs; usage is the events'."""
    server.replies.append(
        sse(
            message_start(21),
            *text_block(0, "Let me ", "search."),
            *tool_block(1, "toolu_1", "search_notes", '{"query"', ': "tea"}'),
            *message_end("tool_use", 9),
        )
    )
    server.replies.append(
        sse(message_start(40), *text_block(0, "Tea is ", "noted."), *message_end("end_turn", 4))
    )
    events: list[ContentEvent] = []

    async def main() -> str:
        async with AnthropicClient(api_key="k", base_url=server.url, max_retries=0) as client:
            thinker = NoteThinker(
                ThinkerDeclaration("standard", "short"),
                hub=ToolHub(),
                catalog=ModelCatalog(grades={"standard": f"anthropic:{MODEL}"}),
                conversations=ConversationService(":memory:"),
                client=client,
            )
            thinker.listeners.append(events.append)
            thinker.stream_text = True
            answer = await thinker.run("Find tea.")
            assert thinker.last_usage == Usage(input_tokens=61, output_tokens=13)
            return answer

    assert asyncio.run(main()) == "Tea is noted."
    assert "".join(event.text for event in events if event.delta) == "Let me search.Tea is noted."
    assert [event.text for event in events if event.delta and event.text] == [
        "Let me ",
        "search.",
        "Tea is ",
        "noted.",
    ]
    assert events[-1] == ContentEvent(text="", done=True)
    first, second = (request.json() for request in server.requests)
    assert first["stream"] is True
    assert second["messages"][1]["content"] == [
        {"type": "text", "text": "Let me search."},
        {"type": "tool_use", "id": "toolu_1", "name": "search_notes", "input": {"query": "tea"}},
    ]
    (result,) = second["messages"][2]["content"]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", "toolu_1")
    assert json.dumps(result["content"]).count("found: tea") == 1
