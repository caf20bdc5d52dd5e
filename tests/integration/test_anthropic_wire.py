"""`AnthropicClient` on the wire: the official SDK's real HTTP path against a local server.

Every test points the SDK at `wire_server` on 127.0.0.1, so the request body asserted is the
one the SDK really sent, and every reply (JSON, event stream, error status, garbage) goes
through the SDK's own parsing before the adapter reads it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import anthropic
import pytest
from wire_server import Recorded, Reply, WireServer, refused_port, wire_server

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import (
    ModelConnectionError,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    ModelRequestRejected,
    ModelResponseMalformed,
    ModelServerError,
)
from nucleo_core.models._json_depth import MAX_JSON_DEPTH, overflows
from nucleo_core.models.anthropic import AnthropicClient
from nucleo_core.models.client import ModelClient, ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.messages import (
    Message,
    ProviderBlock,
    ReasoningBlock,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.tools.render import to_anthropic
from nucleo_core.tools.spec import ToolSpec

MODEL = "claude-wire-test"

SEARCH = ToolSpec(
    name="search",
    description="Search the notes.",
    input_schema={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
)
READ = ToolSpec(
    name="read_file",
    description="Read one file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
)

HELLO = ModelRequest(model=MODEL, messages=(Message.user("Hello"),))


# --- helpers ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_server() -> Iterator[WireServer]:
    # One server for the module: stopping one waits out its half-second poll interval.
    with wire_server() as started:
        yield started


@pytest.fixture
def server(shared_server: WireServer) -> WireServer:
    shared_server.replies.clear()
    shared_server.requests.clear()
    return shared_server


def make_client(server: WireServer, **options: Any) -> AnthropicClient:
    settings: dict[str, Any] = {"max_retries": 0, **options}
    return AnthropicClient(api_key="test-key", base_url=server.url, **settings)


def complete(server: WireServer, request: ModelRequest = HELLO) -> ModelResponse:
    async def run() -> ModelResponse:
        async with make_client(server) as client:
            return await client.complete(request)

    return asyncio.run(run())


def stream(
    server: WireServer, request: ModelRequest = HELLO
) -> tuple[list[StreamEvent], ModelError | None]:
    """Every event the stream yielded, and the error that ended it (``None`` if none did)."""

    async def run() -> tuple[list[StreamEvent], ModelError | None]:
        events: list[StreamEvent] = []
        async with make_client(server) as client:
            try:
                async for event in client.stream(request):
                    events.append(event)
            except ModelError as exc:
                return events, exc
        return events, None

    return asyncio.run(run())


def sent(server: WireServer) -> dict[str, Any]:
    """The one request body the server received, decoded."""
    assert len(server.requests) == 1
    request: Recorded = server.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/messages")
    body: dict[str, Any] = request.json()
    return body


def message(
    *content: dict[str, Any], stop_reason: str = "end_turn", **usage: int
) -> dict[str, Any]:
    """A Messages API reply body."""
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 7, **usage},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def error_body(error_type: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": text}}


def sse(*events: dict[str, Any]) -> Reply:
    """An event stream in Anthropic's format: each event named by its own ``type``."""
    return Reply.sse([(event["type"], event) for event in events])


def message_start(input_tokens: int = 21) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_02",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1},
        },
    }


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, **payload: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": payload}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(stop_reason: str, output_tokens: int) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": {"output_tokens": output_tokens},
    }


MESSAGE_STOP = {"type": "message_stop"}


# --- configuration ---------------------------------------------------------------------------


def test_missing_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a key argument or ANTHROPIC_API_KEY, construction says which variable to set."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelNotConfigured, match="ANTHROPIC_API_KEY"):
        AnthropicClient()


def test_api_key_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, server: WireServer
) -> None:
    """ANTHROPIC_API_KEY stands in for a missing api_key argument, and reaches the wire."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    server.replies.append(Reply.json(message(text("hi"))))

    async def run() -> None:
        async with AnthropicClient(base_url=server.url, max_retries=0) as client:
            await client.complete(HELLO)

    asyncio.run(run())
    assert "env-key" in " ".join(server.requests[0].headers.values())


def test_missing_sdk_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the anthropic SDK importable, construction gives the commands that install it."""
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(
        ModelNotConfigured, match=r"pip install 'anthropic>=.*pip install '\.\[anthropic\]'"
    ):
        AnthropicClient(api_key="test-key")


def test_importing_nucleo_does_not_import_the_sdk() -> None:
    """Importing nucleo_core, its models layer and this adapter module leaves the SDK unloaded."""
    code = (
        "import sys, nucleo_core, nucleo_core.models, nucleo_core.models.anthropic; "
        "assert 'anthropic' not in sys.modules, 'anthropic was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_client_is_a_model_client_and_hides_its_key(server: WireServer) -> None:
    """The adapter satisfies the ModelClient protocol and its repr never shows the key."""

    async def run() -> None:
        async with make_client(server) as client:
            assert isinstance(client, ModelClient)
            assert "test-key" not in repr(client)
            assert server.url in repr(client)

    asyncio.run(run())


# --- the request -----------------------------------------------------------------------------


def test_request_body_carries_cached_system_and_tools(server: WireServer) -> None:
    """System text and tool definitions are sent with one cache breakpoint after each."""
    server.replies.append(Reply.json(message(text("ok"))))
    complete(
        server,
        ModelRequest(
            model=MODEL,
            system="You are terse.",
            messages=(Message.user("Find notes on caching"),),
            tools=(SEARCH, READ),
            max_tokens=321,
            temperature=0.25,
            stop_sequences=("END",),
        ),
    )
    body = sent(server)
    assert body["model"] == MODEL
    assert body["max_tokens"] == 321
    assert body["temperature"] == 0.25
    assert body["stop_sequences"] == ["END"]
    assert "stream" not in body
    assert body["system"] == [
        {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["tools"] == [
        {
            "name": "search",
            "description": "Search the notes.",
            "input_schema": dict(SEARCH.input_schema),
        },
        {
            "name": "read_file",
            "description": "Read one file.",
            "input_schema": dict(READ.input_schema),
            "cache_control": {"type": "ephemeral"},
        },
    ]
    assert body["tool_choice"] == {"type": "auto"}
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Find notes on caching"}]}
    ]


def test_cache_marker_does_not_touch_the_shared_tool_definitions(server: WireServer) -> None:
    """Marking the last tool leaves the spec's schema and a fresh rendering unmarked."""
    server.replies.append(Reply.json(message(text("ok"))))
    schema_before = dict(READ.input_schema)
    complete(server, ModelRequest(model=MODEL, messages=HELLO.messages, tools=(READ,)))
    assert sent(server)["tools"][0]["cache_control"] == {"type": "ephemeral"}
    assert dict(READ.input_schema) == schema_before
    assert "cache_control" not in to_anthropic((READ,))[0]


def test_no_system_and_no_tools_send_no_cache_markers(server: WireServer) -> None:
    """Without system text or tools, neither field, nor tool_choice, nor a marker is sent."""
    server.replies.append(Reply.json(message(text("ok"))))
    complete(server, ModelRequest(model=MODEL, messages=HELLO.messages, tool_choice="any"))
    body = sent(server)
    for absent in ("system", "tools", "tool_choice", "temperature", "stop_sequences"):
        assert absent not in body
    assert "cache_control" not in str(body)


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"type": "auto"}),
        ("any", {"type": "any"}),
        ("none", {"type": "none"}),
        ("search", {"type": "tool", "name": "search"}),
    ],
)
def test_tool_choice_is_mapped(server: WireServer, choice: str, expected: dict[str, str]) -> None:
    """Each neutral tool choice becomes the Messages API's tool_choice object."""
    server.replies.append(Reply.json(message(text("ok"))))
    complete(
        server,
        ModelRequest(model=MODEL, messages=HELLO.messages, tools=(SEARCH,), tool_choice=choice),
    )
    assert sent(server)["tool_choice"] == expected


def test_tool_round_trip_carries_results_and_reasoning(server: WireServer) -> None:
    """A replayed turn sends signed and redacted thinking, tool uses and flagged tool results."""
    server.replies.append(Reply.json(message(text("done"))))
    assistant = Message(
        role="assistant",
        content=(
            ReasoningBlock(text="Two lookups are needed.", signature="sig-abc"),
            ReasoningBlock(text="", redacted=True, data="opaque-data"),
            TextBlock(text="Looking."),
            ToolUseBlock(id="toolu_1", name="search", input={"query": "cache"}),
            ToolUseBlock(id="toolu_2", name="read_file", input={"path": "a.md"}),
        ),
    )
    results = Message(
        role="user",
        content=(
            ToolResultBlock(tool_use_id="toolu_1", content="3 notes"),
            ToolResultBlock(tool_use_id="toolu_2", content="no such file", is_error=True),
        ),
    )
    complete(
        server,
        ModelRequest(
            model=MODEL, messages=(Message.user("Go"), assistant, results), tools=(SEARCH, READ)
        ),
    )
    assert sent(server)["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Go"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Two lookups are needed.", "signature": "sig-abc"},
                {"type": "redacted_thinking", "data": "opaque-data"},
                {"type": "text", "text": "Looking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "search",
                    "input": {"query": "cache"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "read_file",
                    "input": {"path": "a.md"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "3 notes",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "no such file",
                    "is_error": True,
                },
            ],
        },
    ]


def test_unsendable_blocks_are_left_out(server: WireServer) -> None:
    """Unsigned reasoning and empty text, which the API refuses, are not sent."""
    server.replies.append(Reply.json(message(text("ok"))))
    assistant = Message(
        role="assistant",
        content=(ReasoningBlock(text="from elsewhere"), TextBlock(text=""), TextBlock(text="Hi")),
    )
    complete(server, ModelRequest(model=MODEL, messages=(Message.user("Go"), assistant)))
    assert sent(server)["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Hi"}],
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [('{"query": "x"}', {"query": "x"}), ("not json", {}), ("[1, 2]", {})],
)
def test_string_tool_input_is_sent_as_an_object(
    server: WireServer, raw: str, expected: dict[str, Any]
) -> None:
    """Text tool input (from another provider) is sent decoded when it is a JSON object, else {}."""
    server.replies.append(Reply.json(message(text("ok"))))
    turn = Message(role="assistant", content=(ToolUseBlock(id="call_1", name="search", input=raw),))
    complete(server, ModelRequest(model=MODEL, messages=(Message.user("Go"), turn)))
    assert sent(server)["messages"][1]["content"][0]["input"] == expected


# --- the response ----------------------------------------------------------------------------


def test_plain_text_answer(server: WireServer) -> None:
    """A text answer maps to a TextBlock, END_TURN, the model id and every usage count."""
    server.replies.append(
        Reply.json(
            message(
                text("Hello "),
                text("there."),
                cache_read_input_tokens=100,
                cache_creation_input_tokens=40,
            )
        )
    )
    response = complete(server)
    assert response.content == (TextBlock(text="Hello "), TextBlock(text="there."))
    assert response.text == "Hello there."
    assert response.stop_reason is StopReason.END_TURN
    assert response.raw_stop_reason == "end_turn"
    assert response.model == MODEL
    # The neutral input count includes cached tokens (11 uncached + 100 read + 40 written).
    assert response.usage == Usage(
        input_tokens=151, output_tokens=7, cache_read_tokens=100, cache_write_tokens=40
    )


def test_one_tool_use(server: WireServer) -> None:
    """A tool_use block maps to a ToolUseBlock with its id, name and decoded input."""
    server.replies.append(
        Reply.json(
            message(
                text("Let me look."),
                tool_use("toolu_9", "search", {"query": "cache", "limit": 3}),
                stop_reason="tool_use",
            )
        )
    )
    response = complete(server)
    assert response.stop_reason is StopReason.TOOL_USE
    assert response.tool_uses == (
        ToolUseBlock(id="toolu_9", name="search", input={"query": "cache", "limit": 3}),
    )
    assert response.content[0] == TextBlock(text="Let me look.")


def test_parallel_tool_uses_keep_their_order(server: WireServer) -> None:
    """Several tool uses in one answer all come back, in the order the model sent them."""
    server.replies.append(
        Reply.json(
            message(
                tool_use("toolu_a", "search", {"query": "one"}),
                tool_use("toolu_b", "read_file", {"path": "two.md"}),
                tool_use("toolu_c", "search", {"query": "three"}),
                stop_reason="tool_use",
            )
        )
    )
    response = complete(server)
    assert [(use.id, use.name) for use in response.tool_uses] == [
        ("toolu_a", "search"),
        ("toolu_b", "read_file"),
        ("toolu_c", "search"),
    ]
    assert response.as_message().tool_uses == response.tool_uses


def test_thinking_blocks_come_back_as_reasoning(server: WireServer) -> None:
    """Thinking keeps its signature and redacted thinking its opaque data, for the next turn."""
    server.replies.append(
        Reply.json(
            message(
                {"type": "thinking", "thinking": "Consider it.", "signature": "sig-1"},
                {"type": "redacted_thinking", "data": "encrypted"},
                text("Answer."),
            )
        )
    )
    response = complete(server)
    assert response.content == (
        ReasoningBlock(text="Consider it.", signature="sig-1"),
        ReasoningBlock(text="", redacted=True, data="encrypted"),
        TextBlock(text="Answer."),
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("max_tokens", StopReason.MAX_TOKENS),
        ("refusal", StopReason.REFUSAL),
        ("stop_sequence", StopReason.STOP_SEQUENCE),
        ("pause_turn", StopReason.OTHER),
        ("a_reason_from_the_future", StopReason.OTHER),
    ],
)
def test_stop_reasons_are_mapped(server: WireServer, raw: str, expected: StopReason) -> None:
    """Truncation, refusal and stop sequences map to their neutral reasons; others to OTHER."""
    server.replies.append(Reply.json(message(text("partial"), stop_reason=raw)))
    response = complete(server)
    assert response.stop_reason is expected
    assert response.raw_stop_reason == raw


def test_unknown_block_kinds_are_left_out(server: WireServer) -> None:
    """A content block of a kind nucleo never asks for is skipped, not fatal."""
    server.replies.append(
        Reply.json(message({"type": "a_kind_from_the_future", "id": "x_1"}, text("ok")))
    )
    assert complete(server).content == (TextBlock(text="ok"),)


def test_server_tool_blocks_are_kept_as_provider_blocks(server: WireServer) -> None:
    """A server tool's call and result are kept verbatim (to be sent back), never run."""
    call = {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "x"}}
    result = {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []}
    server.replies.append(Reply.json(message(call, result, text("ok"))))
    assert complete(server).content == (
        ProviderBlock(provider="anthropic", data=call),
        ProviderBlock(provider="anthropic", data=result),
        TextBlock(text="ok"),
    )


# --- errors ----------------------------------------------------------------------------------


def test_rate_limit_carries_retry_after_seconds(server: WireServer) -> None:
    """A 429 with retry-after: 7 is ModelRateLimited with retry_after == 7, chained to the SDK's."""
    server.replies.append(
        Reply.json(error_body("rate_limit_error", "Slow down"), status=429, **{"retry-after": "7"})
    )
    with pytest.raises(ModelRateLimited) as caught:
        complete(server)
    assert caught.value.retry_after == 7
    assert caught.value.status == 429
    assert caught.value.provider == "anthropic"
    assert "429" in str(caught.value)
    assert "rate_limit_error" in str(caught.value)
    assert isinstance(caught.value.__cause__, anthropic.RateLimitError)


def test_rate_limit_retry_after_as_http_date(server: WireServer) -> None:
    """A retry-after given as an HTTP date becomes the seconds until that date."""
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    server.replies.append(
        Reply.json(error_body("rate_limit_error", "Slow down"), status=429, **{"retry-after": when})
    )
    with pytest.raises(ModelRateLimited) as caught:
        complete(server)
    assert caught.value.retry_after is not None
    assert 20 < caught.value.retry_after <= 30


def test_rate_limit_without_retry_after(server: WireServer) -> None:
    """A 429 that names no delay has retry_after None."""
    server.replies.append(Reply.json(error_body("rate_limit_error", "Slow down"), status=429))
    with pytest.raises(ModelRateLimited) as caught:
        complete(server)
    assert caught.value.retry_after is None


@pytest.mark.parametrize(
    ("status", "error_type"), [(500, "api_error"), (503, "api_error"), (529, "overloaded_error")]
)
def test_server_failures(server: WireServer, status: int, error_type: str) -> None:
    """5xx and the overloaded 529 are ModelServerError naming the status and error type."""
    server.replies.append(Reply.json(error_body(error_type, "Try later"), status=status))
    with pytest.raises(ModelServerError) as caught:
        complete(server)
    assert caught.value.status == status
    assert str(status) in str(caught.value)
    assert error_type in str(caught.value)


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (401, "authentication_error"),
        (400, "invalid_request_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
    ],
)
def test_rejected_requests(server: WireServer, status: int, error_type: str) -> None:
    """Other 4xx are ModelRequestRejected naming status, type and message, never the key."""
    server.replies.append(
        Reply.json(
            error_body(error_type, "Provider says no"), status=status, **{"request-id": "req_42"}
        )
    )
    with pytest.raises(ModelRequestRejected) as caught:
        complete(server)
    message_text = str(caught.value)
    assert caught.value.status == status
    for expected in (str(status), error_type, "Provider says no", "req_42"):
        assert expected in message_text
    assert "test-key" not in message_text


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(
            Reply(
                body=b'{"type": "message", "content": [',
                headers={"content-type": "application/json"},
            ),
            id="invalid-json",
        ),
        pytest.param(
            Reply.json({k: v for k, v in message(text("x")).items() if k != "content"}),
            id="no-content",
        ),
        pytest.param(
            Reply.json({k: v for k, v in message(text("x")).items() if k != "stop_reason"}),
            id="no-stop-reason",
        ),
        pytest.param(Reply.json([1, 2, 3]), id="not-an-object"),
        pytest.param(
            Reply(body=b"<html>oops</html>", headers={"content-type": "text/html"}), id="html"
        ),
        pytest.param(Reply.json(message({"type": "text"})), id="text-without-text"),
        pytest.param(Reply.json(message({"text": "no type"})), id="block-without-type"),
        pytest.param(Reply.json(message(text("x"), input_tokens="many")), id="usage-not-int"),
    ],
)
def test_malformed_replies(server: WireServer, reply: Reply) -> None:
    """A 200 whose body is not a readable Messages API answer is ModelResponseMalformed."""
    server.replies.append(reply)
    with pytest.raises(ModelResponseMalformed, match="Anthropic"):
        complete(server)


def test_connection_refused() -> None:
    """A server that refuses the connection is ModelConnectionError naming where it pointed."""

    async def run(port: int) -> None:
        async with AnthropicClient(
            api_key="test-key", base_url=f"http://127.0.0.1:{port}", max_retries=0
        ) as client:
            await client.complete(HELLO)

    with (
        refused_port() as port,
        pytest.raises(ModelConnectionError, match=f"127.0.0.1:{port}") as caught,
    ):
        asyncio.run(run(port))
    assert isinstance(caught.value.__cause__, anthropic.APIConnectionError)


def test_timeout_is_a_connection_error(server: WireServer) -> None:
    """A server slower than the client's timeout is ModelConnectionError."""
    server.replies.append(dataclasses.replace(Reply.json(message(text("late"))), delay=1.0))

    async def run() -> None:
        async with make_client(server, timeout=0.2) as client:
            await client.complete(HELLO)

    with pytest.raises(ModelConnectionError, match="did not answer in time") as caught:
        asyncio.run(run())
    assert isinstance(caught.value.__cause__, anthropic.APITimeoutError)


# --- streaming -------------------------------------------------------------------------------


def test_stream_yields_text_then_the_whole_response(server: WireServer) -> None:
    """Text arrives as TextDeltas, then one ResponseComplete holding the whole streamed answer."""
    server.replies.append(
        sse(
            message_start(input_tokens=21),
            block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
            delta(0, type="thinking_delta", thinking="Check first."),
            delta(0, type="signature_delta", signature="sig-stream"),
            block_stop(0),
            block_start(1, {"type": "text", "text": ""}),
            delta(1, type="text_delta", text="Hel"),
            delta(1, type="text_delta", text="lo"),
            block_stop(1),
            block_start(2, {"type": "tool_use", "id": "toolu_s", "name": "search", "input": {}}),
            delta(2, type="input_json_delta", partial_json='{"query": '),
            delta(2, type="input_json_delta", partial_json='"cache"}'),
            block_stop(2),
            message_delta("tool_use", output_tokens=30),
            MESSAGE_STOP,
        )
    )
    events, error = stream(
        server,
        ModelRequest(model=MODEL, system="Be brief.", messages=HELLO.messages, tools=(SEARCH,)),
    )
    assert error is None
    assert events[:-1] == [TextDelta("Hel"), TextDelta("lo")]
    final = events[-1]
    assert isinstance(final, ResponseComplete)
    assert final.response == ModelResponse(
        content=(
            ReasoningBlock(text="Check first.", signature="sig-stream"),
            TextBlock(text="Hello"),
            ToolUseBlock(id="toolu_s", name="search", input={"query": "cache"}),
        ),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(input_tokens=21, output_tokens=30),
        model=MODEL,
        raw_stop_reason="tool_use",
    )
    body = sent(server)
    assert body["stream"] is True
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}


def test_stream_of_several_tool_uses(server: WireServer) -> None:
    """Parallel tool uses streamed as input_json deltas are all assembled, in order."""
    server.replies.append(
        sse(
            message_start(),
            block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}}),
            delta(0, type="input_json_delta", partial_json='{"query": "a"}'),
            block_stop(0),
            block_start(1, {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {}}),
            delta(1, type="input_json_delta", partial_json='{"path": '),
            delta(1, type="input_json_delta", partial_json='"b.md"}'),
            block_stop(1),
            message_delta("tool_use", output_tokens=12),
            MESSAGE_STOP,
        )
    )
    events, error = stream(server)
    assert error is None
    assert len(events) == 1
    final = events[0]
    assert isinstance(final, ResponseComplete)
    assert final.response.tool_uses == (
        ToolUseBlock(id="toolu_1", name="search", input={"query": "a"}),
        ToolUseBlock(id="toolu_2", name="read_file", input={"path": "b.md"}),
    )


def test_stream_refused_with_429(server: WireServer) -> None:
    """A stream refused up front with 429 is ModelRateLimited with the retry-after delay."""
    server.replies.append(
        Reply.json(error_body("rate_limit_error", "Slow down"), status=429, **{"retry-after": "7"})
    )
    events, error = stream(server)
    assert events == []
    assert isinstance(error, ModelRateLimited)
    assert error.retry_after == 7


def test_stream_overloaded_midway(server: WireServer) -> None:
    """An overloaded_error event mid-stream ends it with ModelServerError after the text so far."""
    server.replies.append(
        sse(
            message_start(),
            block_start(0, {"type": "text", "text": ""}),
            delta(0, type="text_delta", text="Part"),
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        )
    )
    events, error = stream(server)
    assert events == [TextDelta("Part")]
    assert isinstance(error, ModelServerError)
    assert "overloaded_error" in str(error)
    assert isinstance(error.__cause__, anthropic.APIStatusError)


def test_stream_of_a_server_error_status(server: WireServer) -> None:
    """A stream answered with 529 is ModelServerError."""
    server.replies.append(Reply.json(error_body("overloaded_error", "Overloaded"), status=529))
    events, error = stream(server)
    assert events == []
    assert isinstance(error, ModelServerError)
    assert error.status == 529


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(Reply.json(message(text("not a stream"))), id="json-not-sse"),
        pytest.param(
            Reply(
                body=b"event: message_start\ndata: {oops\n\n",
                headers={"content-type": "text/event-stream"},
            ),
            id="bad-event-json",
        ),
        pytest.param(
            sse(
                message_start(),
                block_start(0, {"type": "text", "text": ""}),
                delta(0, type="text_delta", text="cut"),
            ),
            id="cut-mid-text",
        ),
        pytest.param(
            sse(
                message_start(),
                block_start(0, {"type": "text", "text": ""}),
                delta(0, type="text_delta", text="cut"),
                block_stop(0),
                message_delta("end_turn", output_tokens=3),
            ),
            id="cut-before-message-stop",
        ),
        pytest.param(
            sse(message_start(), delta(3, type="text_delta", text="where?"), MESSAGE_STOP),
            id="delta-for-missing-block",
        ),
    ],
)
def test_malformed_streams(server: WireServer, reply: Reply) -> None:
    """A stream that is not a complete Messages API event stream is ModelResponseMalformed."""
    server.replies.append(reply)
    _, error = stream(server)
    assert isinstance(error, ModelResponseMalformed)


def test_stream_connection_refused() -> None:
    """A stream to a server that refuses the connection is ModelConnectionError."""

    async def run(port: int) -> None:
        async with AnthropicClient(
            api_key="test-key", base_url=f"http://127.0.0.1:{port}", max_retries=0
        ) as client:
            async for _ in client.stream(HELLO):
                pass

    with refused_port() as port, pytest.raises(ModelConnectionError):
        asyncio.run(run(port))


# --- malformed tool uses ----------------------------------------------------------------------

DEEP = 10_000


def deep_reply(*blocks: str) -> Reply:
    """A Messages API reply whose content blocks are given as JSON text.

    ``json.dumps`` cannot write a value nested 10,000 deep, so the blocks are spliced in.
    """
    body = json.dumps(message(stop_reason="tool_use")).replace(
        '"content": []', '"content": [' + ", ".join(blocks) + "]"
    )
    return Reply(body=body.encode(), headers={"content-type": "application/json"})


def deep_tool_use(id: str) -> str:
    """A tool_use block whose input nests ``DEEP`` levels deep."""
    value = "[" * DEEP + "]" * DEEP
    return f'{{"type": "tool_use", "id": "{id}", "name": "search", "input": {{"query": {value}}}}}'


def test_a_tool_input_nested_10000_deep_is_cut_and_the_rest_of_the_reply_is_read(
    server: WireServer,
) -> None:
    """A 10,000-deep input (too deep for the SDK's JSON decoding) leaves the other blocks whole."""
    server.replies.append(
        deep_reply(
            json.dumps(text("Looking.")),
            deep_tool_use("toolu_deep"),
            json.dumps(tool_use("toolu_ok", "search", {"query": "lisbon"})),
        )
    )
    response = complete(server)

    deep, good = response.tool_uses
    assert response.text == "Looking."
    assert good == ToolUseBlock(id="toolu_ok", name="search", input={"query": "lisbon"})
    assert (deep.id, deep.name) == ("toolu_deep", "search")
    assert isinstance(deep.input, str)  # its bounded cut form, still reading as too deep
    assert len(deep.input) <= 1_100
    assert overflows(deep.input) is not None


def test_a_tool_input_just_past_the_depth_limit_is_cut_too(server: WireServer) -> None:
    """An input the SDK can decode but nesting past MAX_JSON_DEPTH is cut all the same."""
    value: Any = []
    for _ in range(MAX_JSON_DEPTH):
        value = [value]
    server.replies.append(Reply.json(message(tool_use("t", "search", {"query": value}))))

    (use,) = complete(server).tool_uses
    assert isinstance(use.input, str)
    assert overflows(use.input) is not None


@pytest.mark.parametrize("name", [None, 7], ids=["null", "integer"])
def test_a_tool_name_that_is_not_a_string_is_kept_empty(server: WireServer, name: object) -> None:
    """A tool_use named null or a number becomes a call named "" for the handler to refuse."""
    server.replies.append(
        Reply.json(
            message(
                {"type": "tool_use", "id": "toolu_bad", "name": name, "input": {"query": "q"}},
                tool_use("toolu_ok", "search", {"query": "q"}),
                stop_reason="tool_use",
            )
        )
    )
    bad, good = complete(server).tool_uses
    assert bad == ToolUseBlock(id="toolu_bad", name="", input={"query": "q"})
    assert good.name == "search"


@pytest.mark.parametrize(("given", "kept"), [(5, "5"), (None, "null"), ([1], "[1]")])
def test_a_tool_input_that_is_not_an_object_is_kept_as_its_json_text(
    server: WireServer, given: object, kept: str
) -> None:
    """An input that is not an object is kept as its JSON text, for the handler to refuse."""
    server.replies.append(
        Reply.json(message({"type": "tool_use", "id": "t", "name": "search", "input": given}))
    )
    (use,) = complete(server).tool_uses
    assert use.input == kept


def test_a_too_deep_input_in_the_conversation_is_sent_as_an_empty_object(
    server: WireServer,
) -> None:
    """History holding a 10,000-deep input (or its cut form) is sent, as {} for that call."""
    value: list[Any] = []
    for _ in range(DEEP):
        value = [value]
    turn = Message(
        role="assistant",
        content=(
            ToolUseBlock(id="t1", name="search", input={"query": value}),
            ToolUseBlock(id="t2", name="search", input="[" * DEEP),
        ),
    )
    server.replies.append(Reply.json(message(text("ok"))))
    complete(server, ModelRequest(model=MODEL, messages=(Message.user("Go"), turn)))
    sent_inputs = [block["input"] for block in sent(server)["messages"][1]["content"]]
    assert sent_inputs == [{}, {}]


def test_a_stream_whose_tool_input_nests_too_deep_is_malformed_not_a_recursion_error(
    server: WireServer,
) -> None:
    """A stream event too deep to decode ends the stream with ModelResponseMalformed."""
    start = json.dumps(message_start())
    block = deep_tool_use("toolu_deep")
    body = (
        f"event: message_start\ndata: {start}\n\n"
        "event: content_block_start\n"
        f'data: {{"type": "content_block_start", "index": 0, "content_block": {block}}}\n\n'
    )
    server.replies.append(Reply(body=body.encode(), headers={"content-type": "text/event-stream"}))
    _, error = stream(server)
    assert isinstance(error, ModelResponseMalformed)


# --- a whole thinker turn over the wire ---------------------------------------------------------


@tool(read_only=True, risk="low")
def search_notes(query: str) -> str:
    """Search the notes."""
    return f"found: {query}"


class NoteThinker(SingleObjectiveThinker[str, str]):
    """A thinker with one tool."""

    declaration = ThinkerDeclaration("standard", "short")

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [search_notes]


def test_a_thinker_turn_goes_on_past_a_deep_input_and_a_null_name(server: WireServer) -> None:
    """Through the real SDK, the bad calls get error results and the good one runs."""
    value = "[" * DEEP + "]" * DEEP
    server.replies.append(
        deep_reply(
            f'{{"type": "tool_use", "id": "toolu_deep", "name": "search_notes", '
            f'"input": {{"query": {value}}}}}',
            '{"type": "tool_use", "id": "toolu_null", "name": null, "input": {}}',
            json.dumps(tool_use("toolu_ok", "search_notes", {"query": "lisbon"})),
        )
    )
    server.replies.append(Reply.json(message(text("Lisbon is in the notes."))))

    async def main() -> str:
        async with make_client(server) as client:
            thinker = NoteThinker(
                NoteThinker.declaration,
                hub=ToolHub(),
                catalog=ModelCatalog(grades={"standard": f"anthropic:{MODEL}"}),
                conversations=ConversationService(":memory:"),
                client=client,
            )
            answer = await thinker.run("Find Lisbon.")
            assert thinker.transcript() is not None
            return answer

    assert asyncio.run(main()) == "Lisbon is in the notes."
    results = {
        block["tool_use_id"]: block
        for block in server.requests[1].json()["messages"][-1]["content"]
        if block["type"] == "tool_result"
    }
    assert list(results) == ["toolu_deep", "toolu_null", "toolu_ok"]
    assert results["toolu_ok"]["content"] == "found: lisbon"
    assert not results["toolu_ok"]["is_error"]
    assert results["toolu_deep"]["is_error"]
    assert f"more than {MAX_JSON_DEPTH} levels deep" in results["toolu_deep"]["content"]
    assert results["toolu_null"]["is_error"]
    assert "must be a string naming one of the available tools" in results["toolu_null"]["content"]
    # The deep call went back as {} and the null-named one with the name "".
    calls = server.requests[1].json()["messages"][1]["content"]
    assert [(call["name"], call["input"]) for call in calls] == [
        ("search_notes", {}),
        ("", {}),
        ("search_notes", {"query": "lisbon"}),
    ]


# -- retries: nucleo's, each logged ----------------------------------------------------------


def test_an_overloaded_api_is_retried_and_each_retry_logged(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A 529 is sent again within ``max_retries``; the retry is a WARNING on nucleo.models."""
    server.replies.append(Reply.json(error_body("overloaded_error", "Overloaded"), status=529))
    server.replies.append(Reply.json(message(text("Hello!"))))

    async def run() -> ModelResponse:
        async with make_client(server, max_retries=1) as client:
            return await client.complete(HELLO)

    with caplog.at_level(logging.WARNING, logger="nucleo.models"):
        response = asyncio.run(run())

    assert response.text == "Hello!"
    assert len(server.requests) == 2
    (retry,) = [r for r in caplog.records if r.name == "nucleo.models.anthropic"]
    assert "retry 1 of 1" in retry.getMessage()


def test_a_bad_request_is_not_retried(server: WireServer) -> None:
    """A 400 is raised at once, however many retries are allowed: it would be refused again."""
    server.replies.append(Reply.json(error_body("invalid_request_error", "bad"), status=400))
    server.replies.append(Reply.json(message(text("never reached"))))

    async def run() -> ModelResponse:
        async with make_client(server, max_retries=3) as client:
            return await client.complete(HELLO)

    with pytest.raises(ModelRequestRejected):
        asyncio.run(run())
    assert len(server.requests) == 1
