"""What llama-cpp-python's server sends, replayed through the real ``openai`` SDK on 127.0.0.1.

Captured from ``python -m llama_cpp.server --chat_format chatml-function-calling`` (0.3.36)
with SmolLM2-135M: offered tools with ``tool_choice: "auto"``, its model answering in text gets
``"content": ""`` and ``finish_reason: "stop"``, streamed (a role chunk, an empty content chunk,
a finish chunk, no usage) and whole alike: the handler constrains that text to a tool name or
the end of the turn. With ``tool_choice: "none"`` the same request streams the model's text.
nucleo asks such an empty answer again with ``"none"``, once per exchange, and never returns or
keeps an empty answer. ``nucleo demo`` on a model that does not answer within its deadline tells
that thinker as stopped and goes on to its summary.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wire_server import Reply, WireServer, wire_server

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import ResponseValidationError
from nucleo_core.models.catalog import ModelEntry
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import ContentEvent

MODEL = "smollm2"


@pytest.fixture(scope="module")
def shared_server() -> Iterator[WireServer]:
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
    return {
        "id": "chatcmpl-a8393671",
        "model": MODEL,
        "created": 1796192378,
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }


def sse(*chunks: dict[str, Any]) -> Reply:
    return Reply.sse([(None, data) for data in chunks] + [(None, "[DONE]")])


#: What llama-cpp-python streams when its model answers in text while tools are offered.
EMPTY_STREAM = (chunk({"role": "assistant"}), chunk({"content": ""}), chunk({}, "stop"))


def whole(content: str) -> Reply:
    """A whole completion, as llama-cpp-python sends it (here: with tools offered, ``""``)."""
    return Reply.json(
        {
            "id": "chatcmpl-7fc442b1",
            "object": "chat.completion",
            "created": 1796192386,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"content": content, "role": "assistant"},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 14, "completion_tokens": 9, "total_tokens": 23},
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


def run(server: WireServer, *, stream: bool) -> tuple[str, list[ContentEvent]]:
    entry = ModelEntry.parse(f"openai-compatible:{server.url}/v1#{MODEL}", context_window=8192)
    thinker = NoteThinker(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog([entry], grades={"standard": entry.id}),
        conversations=ConversationService(":memory:"),
    )
    events: list[ContentEvent] = []
    if stream:
        thinker.listeners.append(events.append)
        thinker.stream_text = True

    async def main() -> str:
        assert thinker.catalog is not None
        try:
            return await thinker.run("Hello!")
        finally:
            await thinker.catalog.aclose()

    return asyncio.run(main()), events


def test_a_streamed_empty_answer_with_tools_is_asked_again_with_tool_choice_none(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The empty stream is not the answer: the same turn is streamed again, tools not callable."""
    server.replies.append(sse(*EMPTY_STREAM))
    server.replies.append(
        sse(chunk({"content": "Hello"}), chunk({"content": "!"}), chunk({}, "stop"))
    )

    with caplog.at_level(logging.WARNING, logger="nucleo.models"):
        answer, events = run(server, stream=True)

    assert answer == "Hello!"
    assert "".join(event.text for event in events if event.delta) == "Hello!"
    sent = [request.json() for request in server.requests]
    assert [body["tool_choice"] for body in sent] == ["auto", "none"]
    assert [body.get("stream", False) for body in sent] == [True, True]  # none: it streams
    assert sent[0]["messages"] == sent[1]["messages"]  # asked again, not corrected
    assert "search_notes" in [tool["function"]["name"] for tool in sent[1]["tools"]]
    warned = [r.getMessage() for r in caplog.records if "answered nothing" in r.getMessage()]
    assert len(warned) == 1


def test_a_whole_empty_answer_with_tools_is_asked_again_with_tool_choice_none(
    server: WireServer,
) -> None:
    """Unstreamed, the same: the second request, tools not callable, gets the text."""
    server.replies.extend([whole(""), whole("Hello there.")])

    answer, _ = run(server, stream=False)

    assert answer == "Hello there."
    assert [request.json()["tool_choice"] for request in server.requests] == ["auto", "none"]


def test_answers_that_stay_empty_end_in_an_error_saying_the_model_answered_nothing(
    server: WireServer,
) -> None:
    """Asked again and corrected, still empty: a typed error naming it, no empty answer."""
    server.replies.extend([whole("")] * 4)  # the first, the one with none, two corrections

    with pytest.raises(ResponseValidationError, match="the model answered nothing") as raised:
        run(server, stream=False)

    assert raised.value.attempts == 3
    choices = [request.json()["tool_choice"] for request in server.requests]
    assert choices == ["auto", "none", "none", "none"]


def environment() -> dict[str, str]:
    """This process's environment without keys or nucleo switches, at a fixed width."""
    kept = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("NUCLEO_", "ANTHROPIC_", "OPENAI_"))
    }
    return {**kept, "COLUMNS": "100", "NO_COLOR": "1"}


def completion(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
    }


def test_demo_on_a_model_past_its_deadline_tells_that_thinker_stopped_and_goes_on(
    tmp_path: Path,
) -> None:
    """The planner's exchange outlasts --deadline: told as stopped; the rest, then the summary."""
    text = {"role": "assistant", "content": ""}
    with wire_server() as server:
        server.replies.append(Reply(delay=30.0))  # held until the client gives up
        server.replies.append(
            Reply.json(completion({**text, "content": "There is no plan to review."}, "stop"))
        )
        server.replies.append(
            Reply.json(completion({**text, "content": "No plan, so no invitation."}, "stop"))
        )
        entry = f"openai-compatible:{server.url}/v1#{MODEL}"
        done = subprocess.run(
            [sys.executable, "-m", "nucleo_core.cli", "demo", "--model", entry, "--deadline", "2"],
            cwd=tmp_path,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    assert done.returncode == 0, done.stderr
    assert "no answer within the deadline of 2 s" in done.stdout
    assert "PlanReviewer, a SingleObjectiveThinker" in done.stdout
    assert "PicnicHost, a SingleObjectiveThinker" in done.stdout
    assert "Step 8 - " in done.stdout
    assert "Stopped without an answer: PicnicPlanner" in done.stdout
    assert "Not shown: " in done.stdout.splitlines()[-1]
    assert len(server.requests) == 3


def test_demo_on_a_server_that_is_not_running_still_ends_with_its_one_error(
    tmp_path: Path,
) -> None:
    """A refused connection is no model's way: the demo ends, exit 2, naming the server."""
    from wire_server import refused_port

    with refused_port() as port:
        entry = f"openai-compatible:http://127.0.0.1:{port}/v1#{MODEL}"
        done = subprocess.run(
            [sys.executable, "-m", "nucleo_core.cli", "demo", "--model", entry, "--retries", "0"],
            cwd=tmp_path,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    assert done.returncode == 2
    assert "cannot reach the server" in done.stderr
    assert "PlanReviewer" not in done.stdout


def test_after_a_stream_without_tool_calls_a_request_with_tool_choice_none_streams_again(
    server: WireServer,
) -> None:
    """The client completes requests that may call tools; one that may not is streamed."""
    call = {
        "id": "call__0_search_notes_cmpl-1",
        "type": "function",
        "function": {"name": "search_notes", "arguments": '{"query": "tea"}'},
    }
    called = completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    server.replies.append(Reply.sse([(None, "[DONE]")]))  # it chose a call: nothing streams
    server.replies.append(Reply.json(called))
    server.replies.append(whole(""))  # its text, dropped
    server.replies.append(sse(chunk({"content": "Tea is noted."}), chunk({}, "stop")))

    answer, events = run(server, stream=True)

    assert answer == "Tea is noted."
    assert "".join(event.text for event in events if event.delta) == "Tea is noted."
    sent = [request.json() for request in server.requests]
    assert [body.get("stream", False) for body in sent] == [True, False, False, True]
    assert [body["tool_choice"] for body in sent] == ["auto", "auto", "auto", "none"]
    assert sent[2]["messages"][-1]["role"] == "tool"  # the result is sent, paired


def test_demo_max_turns_is_each_thinker_s_turn_limit(tmp_path: Path) -> None:
    """With --max-turns 2 a planner calling tools on and on stops after two turns, told."""
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "request_tools", "arguments": '{"tools": ["forecast"]}'},
    }
    again = Reply.json(
        completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    )
    text = {"role": "assistant", "content": "No plan to review."}
    with wire_server() as server:
        server.replies.extend([again, again])
        server.replies.append(Reply.json(completion(text, "stop")))
        server.replies.append(Reply.json(completion({**text, "content": "No invitation."}, "stop")))
        entry = f"openai-compatible:{server.url}/v1#{MODEL}"
        done = subprocess.run(
            [sys.executable, "-m", "nucleo_core.cli", "demo", "--model", entry, "--max-turns", "2"],
            cwd=tmp_path,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    assert done.returncode == 0, done.stderr
    assert "reached 2 turns without a final answer" in done.stdout
    assert "Stopped without an answer: PicnicPlanner" in done.stdout
    assert "Not shown: " in done.stdout.splitlines()[-1]
    assert len(server.requests) == 4
