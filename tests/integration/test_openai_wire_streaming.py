"""A streaming thinker loop, and a server's context window, through the real ``openai`` SDK.

The thinker is seated through a catalog on an ``openai-compatible`` entry of a scripted server
on 127.0.0.1: the loop streams its requests (``stream_text``), and the catalog reads the
context window from the listings the server answers (`WireServer.routes`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from wire_server import Reply, WireServer, wire_server

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.models.catalog import ModelEntry
from nucleo_core.models.messages import Usage
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import ContentEvent

MODEL = "smollm2"


@pytest.fixture(scope="module")
def shared_server() -> Iterator[WireServer]:
    # One server for the module: stopping one waits out its poll interval.
    with wire_server() as started:
        yield started


@pytest.fixture
def server(shared_server: WireServer) -> WireServer:
    shared_server.replies.clear()
    shared_server.requests.clear()
    shared_server.routes.clear()
    shared_server.routed.clear()
    return shared_server


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    """One streamed chunk with one choice."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def usage_chunk(prompt: int, completion: int) -> dict[str, Any]:
    """The last chunk of a stream asked for usage: no choice, the usage."""
    return {
        **chunk({}),
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion},
    }


def sse(*chunks: dict[str, Any]) -> Reply:
    """A stream of ``chunks`` ending with ``[DONE]``."""
    return Reply.sse([(None, data) for data in chunks] + [(None, "[DONE]")])


def completion(text: str) -> Reply:
    """A whole (unstreamed) chat completion."""
    return Reply.json(
        {
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "created": 1700000000,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        }
    )


@tool(read_only=True, risk="low")
def search_notes(query: str) -> str:
    """Search the notes."""
    return f"found: {query}"


class NoteThinker(SingleObjectiveThinker[str, str]):
    """A thinker with one tool."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [search_notes]


def entry_of(server: WireServer, **settings: Any) -> ModelEntry:
    return ModelEntry.parse(f"openai-compatible:{server.url}/v1#{MODEL}", **settings)


def thinker_on(entry: ModelEntry) -> NoteThinker:
    return NoteThinker(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog([entry], grades={"standard": entry.id}),
        conversations=ConversationService(":memory:"),
    )


def run_streaming(thinker: NoteThinker, *objectives: str) -> tuple[list[str], list[ContentEvent]]:
    """Run ``thinker`` on each objective with streaming on; the answers and every event."""
    events: list[ContentEvent] = []
    thinker.listeners.append(events.append)
    thinker.stream_text = True

    async def main() -> list[str]:
        assert thinker.catalog is not None
        try:
            return [await thinker.run(objective) for objective in objectives]
        finally:
            await thinker.catalog.aclose()

    return asyncio.run(main()), events


def deltas(events: list[ContentEvent]) -> str:
    return "".join(event.text for event in events if event.delta)


# -- streaming in the loop ---------------------------------------------------------------------


def test_a_streamed_turn_shows_its_text_runs_its_tool_call_and_counts_its_usage(
    server: WireServer,
) -> None:
    """Text deltas reach the listeners; streamed call fragments run as one call; usage adds up."""
    server.replies.append(
        sse(
            chunk({"role": "assistant", "content": "Let me "}),
            chunk({"content": "search."}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "search_notes", "arguments": '{"que'},
                        }
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ry": "tea"}'}}]}),
            chunk({}, "tool_calls"),
            usage_chunk(30, 8),
        )
    )
    server.replies.append(
        sse(chunk({"content": "Tea is "}), chunk({"content": "noted."}, "stop"), usage_chunk(41, 3))
    )
    thinker = thinker_on(entry_of(server))

    (answer,), events = run_streaming(thinker, "Find tea.")

    assert answer == "Tea is noted."
    assert deltas(events) == "Let me search.Tea is noted."
    assert [event for event in events if event.done] == [
        ContentEvent(text="", done=True, delta=True),
        ContentEvent(text="", done=True, delta=True),
        ContentEvent(text="", done=True),
    ]
    first, second = (request.json() for request in server.requests)
    assert first["stream"] is True
    assert first["stream_options"] == {"include_usage": True}
    (result,) = [message for message in second["messages"] if message["role"] == "tool"]
    assert result == {"role": "tool", "tool_call_id": "call_1", "content": "found: tea"}
    (calls,) = [message for message in second["messages"] if message.get("tool_calls")]
    assert calls["content"] == "Let me search."
    assert json.loads(calls["tool_calls"][0]["function"]["arguments"]) == {"query": "tea"}
    assert thinker.last_usage == Usage(input_tokens=71, output_tokens=11)


def test_a_stream_refused_before_its_first_event_is_retried_and_shown_once(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A 503 while the model loads is retried (logged); the text then streams once."""
    server.replies.append(
        Reply.json({"error": {"message": "Loading model", "type": "unavailable"}}, status=503)
    )
    server.replies.append(sse(chunk({"content": "Ready "}), chunk({"content": "now."}, "stop")))
    thinker = thinker_on(entry_of(server, retries=1))

    with caplog.at_level(logging.WARNING, logger="nucleo.models"):
        (answer,), events = run_streaming(thinker, "Hello?")

    assert answer == "Ready now."
    assert deltas(events) == "Ready now."
    assert len(server.requests) == 2
    assert any("retry 1 of 1" in record.getMessage() for record in caplog.records)


def test_a_server_refusing_stream_options_streams_without_them_and_says_so(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A 400 naming ``stream_options`` is asked again without them, and the log says it."""
    refusal = {"error": {"message": "Unrecognized request argument: stream_options"}}
    server.replies.append(Reply.json(refusal, status=400))
    server.replies.append(sse(chunk({"content": "Fine."}, "stop")))
    thinker = thinker_on(entry_of(server))

    with caplog.at_level(logging.INFO, logger="nucleo.models"):
        (answer,), events = run_streaming(thinker, "Hello?")

    assert answer == "Fine."
    assert deltas(events) == "Fine."
    assert "stream_options" not in server.requests[1].json()
    assert any("refused stream_options" in record.getMessage() for record in caplog.records)


# -- the context window, read from the server --------------------------------------------------


def run_once(server: WireServer, entry: ModelEntry, *objectives: str) -> NoteThinker:
    """A thinker on ``entry`` after answering ``objectives`` (one scripted reply each)."""
    for index, _ in enumerate(objectives):
        server.replies.append(completion(f"Answer {index}."))
    thinker = thinker_on(entry)

    async def main() -> None:
        assert thinker.catalog is not None
        try:
            for objective in objectives:
                await thinker.run(objective)
        finally:
            await thinker.catalog.aclose()

    asyncio.run(main())
    return thinker


def window_of(thinker: NoteThinker) -> ModelEntry:
    assert thinker.catalog is not None
    return thinker.catalog.resolve(thinker.declaration, thinker.pin)


def test_vllm_s_max_model_len_is_the_window_and_is_asked_once(server: WireServer) -> None:
    """The ``max_model_len`` vLLM lists becomes the entry's window; two runs ask once."""
    server.routes[("GET", "/v1/models")] = Reply.json(
        {"object": "list", "data": [{"id": MODEL, "object": "model", "max_model_len": 4096}]}
    )

    thinker = run_once(server, entry_of(server), "One?", "Two?")

    seat = window_of(thinker)
    assert (seat.context_window, seat.context_window_source) == (4096, "server")
    assert [(r.method, r.path) for r in server.routed] == [("GET", "/v1/models")]
    assert thinker.context_budget() == 4096 * 3 // 4 - thinker.request_overhead()


def test_llama_cpp_s_running_window_beats_the_trained_one(server: WireServer) -> None:
    """llama.cpp lists ``n_ctx_train``; its ``/props`` ``n_ctx`` (the window it runs) wins."""
    server.routes[("GET", "/v1/models")] = Reply.json(
        {"data": [{"id": "SmolLM2.gguf", "meta": {"n_ctx_train": 8192, "n_params": 1}}]}
    )
    server.routes[("GET", "/props")] = Reply.json(
        {"default_generation_settings": {"n_ctx": 2048}, "total_slots": 1}
    )

    thinker = run_once(server, entry_of(server), "One?")

    assert window_of(thinker).context_window == 2048
    assert [r.path for r in server.routed] == ["/v1/models", "/props"]


def test_ollama_s_num_ctx_is_read_from_api_show(server: WireServer) -> None:
    """Ollama lists no window; ``/api/show`` is asked for the model, and its ``num_ctx`` read."""
    server.routes[("GET", "/v1/models")] = Reply.json({"data": [{"id": MODEL}, {"id": "other"}]})
    server.routes[("POST", "/api/show")] = Reply.json(
        {
            "parameters": 'stop "<|im_end|>"\nnum_ctx 3072',
            "model_info": {"llama.context_length": 8192},
        }
    )

    thinker = run_once(server, entry_of(server), "One?")

    assert window_of(thinker).context_window == 3072
    assert server.routed[-1].json() == {"model": MODEL}


def test_a_server_that_says_nothing_keeps_the_default_and_the_log_says_so(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Every listing 404: the default stays, the log says how to set it, and it is asked once."""
    with caplog.at_level(logging.INFO, logger="nucleo.models"):
        thinker = run_once(server, entry_of(server), "One?", "Two?")

    seat = window_of(thinker)
    assert (seat.context_window, seat.context_window_source) == (128_000, "default")
    assert [r.path for r in server.routed] == ["/v1/models", "/props", "/api/show"]
    (said,) = [r.getMessage() for r in caplog.records if "context window" in r.getMessage()]
    assert "does not say its context window" in said
    assert "set context_window" in said


def test_a_configured_window_is_not_asked_for(server: WireServer) -> None:
    """An entry with ``context_window`` set never asks the server: the setting wins."""
    server.routes[("GET", "/v1/models")] = Reply.json({"data": [{"id": MODEL, "max_model_len": 9}]})

    thinker = run_once(server, entry_of(server, context_window=6000), "One?")

    assert window_of(thinker).context_window == 6000
    assert server.routed == []


def test_an_unreadable_listing_is_passed_over(server: WireServer) -> None:
    """A listing that is not JSON, or names the window wrongly, says nothing; the run goes on."""
    server.routes[("GET", "/v1/models")] = Reply(
        body=b"<html>", headers={"content-type": "text/html"}
    )
    server.routes[("GET", "/props")] = Reply.json({"n_ctx": "lots"})
    server.routes[("POST", "/api/show")] = Reply.json({"model_info": {"llama.context_length": 0}})

    thinker = run_once(server, entry_of(server), "One?")

    assert window_of(thinker).context_window == 128_000
    assert server.requests[0].json()["model"] == MODEL  # the run went on to its answer


def test_a_server_that_answers_a_stream_with_a_whole_completion_is_read(
    server: WireServer,
) -> None:
    """A server ignoring ``stream`` answers one JSON completion: its text shows, once, whole."""
    server.replies.append(completion("Not streamed, still read."))
    thinker = thinker_on(entry_of(server))

    (answer,), events = run_streaming(thinker, "Hello?")

    assert answer == "Not streamed, still read."
    assert [event.text for event in events if event.delta] == ["Not streamed, still read.", ""]
    assert server.requests[0].json()["stream"] is True
    assert thinker.last_usage == Usage(input_tokens=5, output_tokens=2)


def test_a_stream_past_its_budget_is_cut_there_and_read_as_cut_off(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A server ignoring ``max_tokens`` is cut past it: escalated to the ceiling, then kept."""
    endless = [chunk({"content": f"w{n} "}) for n in range(200)]
    server.replies.append(sse(*endless, chunk({}, "stop")))
    server.replies.append(sse(*endless, chunk({}, "stop")))
    thinker = thinker_on(entry_of(server, max_output_tokens=40))
    thinker.declaration = ThinkerDeclaration("standard", 20)

    with caplog.at_level(logging.WARNING, logger="nucleo.models"):
        (answer,), events = run_streaming(thinker, "Talk.")

    budgets = [request.json()["max_tokens"] for request in server.requests]
    assert budgets == [20, 40]  # cut past 20 pieces, asked again at the ceiling, cut past 40
    said = "".join(f"w{n} " for n in range(41))
    assert answer == said.strip()  # the answer as the handler reads it
    assert deltas(events) == said  # the first 21 pieces were not shown twice
    cuts = [r.getMessage() for r in caplog.records if "the stream is cut" in r.getMessage()]
    assert len(cuts) == 2


def test_a_server_that_cannot_stream_tool_calls_is_asked_whole_from_then_on(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """An empty stream offering tools is asked again whole, and so are later requests with tools."""
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "search_notes", "arguments": '{"query": "tea"}'},
    }
    called = {
        "id": "chatcmpl-3",
        "object": "chat.completion",
        "created": 1700000000,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "", "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
    }
    server.replies.append(Reply.sse([(None, "[DONE]")]))  # what llama-cpp-python sends
    server.replies.append(Reply.json(called))
    server.replies.append(completion("Tea is noted."))
    thinker = thinker_on(entry_of(server))

    with caplog.at_level(logging.WARNING, logger="nucleo.models"):
        (answer,), events = run_streaming(thinker, "Find tea.")

    assert answer == "Tea is noted."
    assert deltas(events) == "Tea is noted."
    assert [request.json().get("stream", False) for request in server.requests] == [
        True,
        False,
        False,
    ]
    tool_message = server.requests[2].json()["messages"][-1]
    assert tool_message == {"role": "tool", "tool_call_id": "call_1", "content": "found: tea"}
    warned = [
        r.getMessage() for r in caplog.records if "cannot stream tool calls" in r.getMessage()
    ]
    assert len(warned) == 1
