"""`OpenAIChatClient` through the real ``openai`` SDK, against a scripted server on 127.0.0.1.

Every test runs the SDK's whole HTTP path: the request body checked is the one the SDK really
sent, and each reply is bytes the test scripted (JSON, server-sent events, error statuses).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from wire_server import Reply, WireServer, refused_port, wire_server

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import (
    ModelConnectionError,
    ModelNotConfigured,
    ModelRateLimited,
    ModelRequestRejected,
    ModelResponseMalformed,
    ModelServerError,
)
from nucleo_core.models._json_depth import MAX_JSON_DEPTH, overflows
from nucleo_core.models.client import ModelClient, ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.messages import (
    Message,
    ReasoningBlock,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.models.openai import KEYLESS_PLACEHOLDER, OpenAIChatClient
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.tools.spec import ToolSpec

T = TypeVar("T")

SEARCH = ToolSpec(
    name="search",
    description="Search the web.",
    input_schema={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
)
READ_FILE = ToolSpec(
    name="read_file",
    description="Read a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
)
HELLO = ModelRequest(model="gpt-test", system="Be brief.", messages=(Message.user("Hi"),))


@pytest.fixture(scope="module")
def shared_server() -> Iterator[WireServer]:
    # One server for the module: stopping one waits out its half-second poll.
    with wire_server() as started:
        yield started


@pytest.fixture
def server(shared_server: WireServer) -> WireServer:
    shared_server.replies.clear()
    shared_server.requests.clear()
    return shared_server


def run(
    server: WireServer,
    scenario: Callable[[OpenAIChatClient], Awaitable[T]],
    **options: Any,
) -> T:
    """Run ``scenario`` with a client pointed at ``server``, closed afterwards."""
    settings: dict[str, Any] = {
        "base_url": server.url + "/v1",
        "api_key": "test-key",
        "max_retries": 0,
        **options,
    }

    async def main() -> T:
        async with OpenAIChatClient(**settings) as client:
            return await scenario(client)

    return asyncio.run(main())


def complete(server: WireServer, request: ModelRequest = HELLO, **options: Any) -> ModelResponse:
    """One ``complete`` call against ``server``."""
    return run(server, lambda client: client.complete(request), **options)


def collect(server: WireServer, request: ModelRequest = HELLO, **options: Any) -> list[StreamEvent]:
    """Every event of one ``stream`` call against ``server``."""

    async def scenario(client: OpenAIChatClient) -> list[StreamEvent]:
        return [event async for event in client.stream(request)]

    return run(server, scenario, **options)


def completion(
    message: dict[str, Any], finish_reason: str | None = "stop", **extra: Any
) -> dict[str, Any]:
    """A chat completion body with one choice."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-test-2024",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
        **extra,
    }


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """One entry of a message's ``tool_calls``."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    """One streamed chunk with one choice."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test-2024",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def sse(*chunks: dict[str, Any]) -> Reply:
    """A stream of ``chunks`` ending with ``[DONE]``."""
    return Reply.sse([(None, data) for data in chunks] + [(None, "[DONE]")])


def error_reply(status: int, message: str, **headers: str) -> Reply:
    """An error in OpenAI's shape."""
    body = {"error": {"message": message, "type": "error", "param": None, "code": None}}
    return Reply.json(body, status=status, **headers)


# -- the request the SDK sends -------------------------------------------------------------


def test_request_maps_system_tools_and_conversation_onto_chat_completions(
    server: WireServer,
) -> None:
    """The body has the system message first, tools in order, and the tool round trip intact."""
    server.replies.append(Reply.json(completion({"content": "done"})))
    request = ModelRequest(
        model="gpt-test",
        system="You are terse.",
        tools=(SEARCH, READ_FILE),
        messages=(
            Message.user("Find two things."),
            Message(
                role="assistant",
                content=(
                    ReasoningBlock(text="I should search twice."),
                    TextBlock(text="Searching."),
                    ToolUseBlock(id="call_1", name="search", input={"query": "cats"}),
                    ToolUseBlock(id="call_2", name="read_file", input='{"path": broken'),
                ),
            ),
            Message(
                role="user",
                content=(
                    ToolResultBlock(tool_use_id="call_1", content="3 results"),
                    ToolResultBlock(tool_use_id="call_2", content="bad input", is_error=True),
                    TextBlock(text="Go on."),
                ),
            ),
            Message(
                role="assistant",
                content=(ToolUseBlock(id="call_3", name="search", input={}),),
            ),
            Message(role="user", content=(ToolResultBlock(tool_use_id="call_3", content="0"),)),
        ),
        max_tokens=300,
        temperature=0.2,
        stop_sequences=("END",),
    )

    complete(server, request)

    sent = server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer test-key"
    body = sent.json()
    assert body["model"] == "gpt-test"
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the web.",
                "parameters": SEARCH.input_schema,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file.",
                "parameters": READ_FILE.input_schema,
            },
        },
    ]
    assert body["tool_choice"] == "auto"
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Find two things."},
        {
            "role": "assistant",
            "content": "Searching.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"query": "cats"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": broken'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "3 results"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: bad input"},
        {"role": "user", "content": "Go on."},
        {
            "role": "assistant",
            "content": "",  # never null: llama-cpp-python's server answers null with a 500
            "tool_calls": [
                {
                    "id": "call_3",
                    "type": "function",
                    "function": {"name": "search", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_3", "content": "0"},
    ]
    assert body["max_tokens"] == 300
    assert "max_completion_tokens" not in body
    assert body["temperature"] == 0.2
    assert body["stop"] == ["END"]
    assert "stream" not in body


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("any", "required"),
        ("read_file", {"type": "function", "function": {"name": "read_file"}}),
    ],
)
def test_tool_choice_is_sent_in_openai_terms(server: WireServer, choice: str, sent: Any) -> None:
    """``any`` becomes ``required`` and a tool name becomes a named function choice."""
    server.replies.append(Reply.json(completion({"content": "ok"})))
    request = ModelRequest(
        model="gpt-test",
        messages=(Message.user("Hi"),),
        tools=(SEARCH, READ_FILE),
        tool_choice=choice,
    )

    complete(server, request)

    assert server.requests[0].json()["tool_choice"] == sent


def test_request_without_tools_sends_neither_tools_nor_tool_choice(server: WireServer) -> None:
    """A request with no tools leaves ``tools`` and ``tool_choice`` out of the body."""
    server.replies.append(Reply.json(completion({"content": "ok"})))

    complete(server, ModelRequest(model="gpt-test", messages=(Message.user("Hi"),)))

    body = server.requests[0].json()
    assert "tools" not in body
    assert "tool_choice" not in body
    assert "temperature" not in body
    assert "stop" not in body
    assert body["messages"] == [{"role": "user", "content": "Hi"}]


def test_budget_field_can_be_switched_to_max_completion_tokens(server: WireServer) -> None:
    """``max_tokens_parameter`` sends the budget as ``max_completion_tokens`` instead."""
    server.replies.append(Reply.json(completion({"content": "ok"})))

    complete(server, max_tokens_parameter="max_completion_tokens")

    body = server.requests[0].json()
    assert body["max_completion_tokens"] == HELLO.max_tokens
    assert "max_tokens" not in body


def test_custom_base_url_without_key_sends_placeholder_not_the_environment_key(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keyless local server gets the placeholder, never the OpenAI key from the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-secret")
    server.replies.append(Reply.json(completion({"content": "ok"})))

    complete(server, api_key=None)

    assert server.requests[0].headers["authorization"] == f"Bearer {KEYLESS_PLACEHOLDER}"


def test_default_headers_reach_the_server(server: WireServer) -> None:
    """Headers given at construction are sent with the request."""
    server.replies.append(Reply.json(completion({"content": "ok"})))

    complete(server, default_headers={"x-team": "nucleo"})

    assert server.requests[0].headers["x-team"] == "nucleo"


# -- reading answers -----------------------------------------------------------------------


def test_plain_text_answer_reads_text_usage_and_model(server: WireServer) -> None:
    """Message content becomes one text block; ``stop`` is END_TURN; usage maps field by field."""
    usage = {
        "prompt_tokens": 40,
        "completion_tokens": 7,
        "total_tokens": 47,
        "prompt_tokens_details": {"cached_tokens": 32},
        "completion_tokens_details": {"reasoning_tokens": 3},
    }
    server.replies.append(Reply.json(completion({"content": "Hello!"}, usage=usage)))

    response = complete(server)

    assert response.content == (TextBlock(text="Hello!"),)
    assert response.stop_reason is StopReason.END_TURN
    assert response.raw_stop_reason == "stop"
    assert response.model == "gpt-test-2024"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 7)
    assert response.usage.cache_read_tokens == 32
    assert response.usage.extra == {"reasoning_tokens": 3}


def test_usage_without_details_counts_no_cached_tokens(server: WireServer) -> None:
    """A usage block without ``prompt_tokens_details`` reads as zero cached tokens."""
    server.replies.append(Reply.json(completion({"content": "Hello!"})))

    response = complete(server)

    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 5)
    assert response.usage.cache_read_tokens == 0


def test_one_tool_call_becomes_a_tool_use_block(server: WireServer) -> None:
    """A tool call's JSON arguments are decoded into the input; ``tool_calls`` is TOOL_USE."""
    calls = [tool_call("call_a", "search", '{"query": "cats"}')]
    server.replies.append(Reply.json(completion({"tool_calls": calls}, "tool_calls")))

    response = complete(server)

    assert response.content == (ToolUseBlock(id="call_a", name="search", input={"query": "cats"}),)
    assert response.stop_reason is StopReason.TOOL_USE


def test_parallel_tool_calls_keep_their_order_after_the_text(server: WireServer) -> None:
    """Several tool calls become tool-use blocks in the order sent, after the message text."""
    calls = [
        tool_call("call_a", "search", '{"query": "cats"}'),
        tool_call("call_b", "read_file", '{"path": "/tmp/x"}'),
        tool_call("call_c", "search", '{"query": "dogs"}'),
    ]
    message = {"content": "Let me look.", "tool_calls": calls}
    server.replies.append(Reply.json(completion(message, "tool_calls")))

    response = complete(server)

    assert response.content[0] == TextBlock(text="Let me look.")
    assert [(use.id, use.name) for use in response.tool_uses] == [
        ("call_a", "search"),
        ("call_b", "read_file"),
        ("call_c", "search"),
    ]
    assert response.tool_uses[1].input == {"path": "/tmp/x"}


@pytest.mark.parametrize("arguments", ['{"query": "cats"', "[1, 2]", "not json at all"])
def test_tool_call_arguments_that_are_no_json_object_stay_raw_text(
    server: WireServer, arguments: str
) -> None:
    """Arguments that do not decode to a JSON object are kept as the raw string, not raised."""
    calls = [tool_call("call_a", "search", arguments)]
    server.replies.append(Reply.json(completion({"tool_calls": calls}, "tool_calls")))

    response = complete(server)

    assert response.tool_uses == (ToolUseBlock(id="call_a", name="search", input=arguments),)


def test_tool_call_without_id_gets_a_minted_id(server: WireServer) -> None:
    """A tool call a local server sent without an id gets a unique ``call_`` id."""
    calls = [
        {"type": "function", "function": {"name": "search", "arguments": "{}"}},
        {"type": "function", "function": {"name": "search", "arguments": ""}},
    ]
    server.replies.append(Reply.json(completion({"tool_calls": calls}, "tool_calls")))

    response = complete(server)

    first, second = response.tool_uses
    assert first.id.startswith("call_")
    assert first.id != second.id
    assert first.input == second.input == {}


def test_stop_with_tool_calls_reads_as_tool_use(server: WireServer) -> None:
    """A server that ends tool calls with ``stop`` (as Ollama does) still gives TOOL_USE."""
    calls = [tool_call("call_a", "search", '{"query": "x"}')]
    server.replies.append(Reply.json(completion({"tool_calls": calls}, "stop")))

    response = complete(server)

    assert response.stop_reason is StopReason.TOOL_USE
    assert response.raw_stop_reason == "stop"


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason"),
    [
        ("length", StopReason.MAX_TOKENS),
        ("content_filter", StopReason.REFUSAL),
        ("function_call", StopReason.TOOL_USE),
        ("eos_token", StopReason.OTHER),
        (None, StopReason.OTHER),
    ],
)
def test_finish_reasons_map_to_neutral_stop_reasons(
    server: WireServer, finish_reason: str | None, stop_reason: StopReason
) -> None:
    """Truncation is MAX_TOKENS, a content filter is REFUSAL, and unknown reasons are OTHER."""
    server.replies.append(Reply.json(completion({"content": "partial"}, finish_reason)))

    response = complete(server)

    assert response.stop_reason is stop_reason
    assert response.raw_stop_reason == finish_reason
    assert response.text == "partial"


def test_refusal_becomes_text_and_refusal_stop_reason(server: WireServer) -> None:
    """``message.refusal`` is kept as text and the stop reason is REFUSAL."""
    message = {"refusal": "I can't help with that."}
    server.replies.append(Reply.json(completion(message, "stop")))

    response = complete(server)

    assert response.content == (TextBlock(text="I can't help with that."),)
    assert response.stop_reason is StopReason.REFUSAL
    assert response.raw_stop_reason == "stop"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_extension_becomes_a_leading_reasoning_block(
    server: WireServer, field: str
) -> None:
    """A server's ``reasoning_content``/``reasoning`` field is the first block of the answer."""
    message = {"content": "42", field: "Six times seven."}
    server.replies.append(Reply.json(completion(message)))

    response = complete(server)

    assert response.content == (ReasoningBlock(text="Six times seven."), TextBlock(text="42"))


# -- errors --------------------------------------------------------------------------------


def test_rate_limit_carries_retry_after_seconds(server: WireServer) -> None:
    """A 429 with ``retry-after: 3`` is ModelRateLimited with ``retry_after == 3``."""
    server.replies.append(error_reply(429, "Slow down.", **{"retry-after": "3"}))

    with pytest.raises(ModelRateLimited) as caught:
        complete(server)

    assert caught.value.retry_after == 3
    assert caught.value.status == 429
    assert caught.value.provider == "openai"
    assert "Slow down." in str(caught.value)


def test_rate_limit_reads_retry_after_ms(server: WireServer) -> None:
    """``retry-after-ms`` is read in milliseconds and wins over ``retry-after``."""
    headers = {"retry-after-ms": "1500", "retry-after": "9"}
    server.replies.append(error_reply(429, "Slow down.", **headers))

    with pytest.raises(ModelRateLimited) as caught:
        complete(server)

    assert caught.value.retry_after == 1.5


def test_rate_limit_reads_retry_after_http_date(server: WireServer) -> None:
    """A ``retry-after`` HTTP date becomes the seconds left until then."""
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    server.replies.append(error_reply(429, "Slow down.", **{"retry-after": when}))

    with pytest.raises(ModelRateLimited) as caught:
        complete(server)

    assert caught.value.retry_after is not None
    assert 25 <= caught.value.retry_after <= 31


def test_rate_limit_without_retry_after_leaves_it_none(server: WireServer) -> None:
    """A 429 that does not say how long to wait has ``retry_after`` None."""
    server.replies.append(error_reply(429, "Slow down."))

    with pytest.raises(ModelRateLimited) as caught:
        complete(server)

    assert caught.value.retry_after is None


@pytest.mark.parametrize("status", [500, 503])
def test_server_failure_is_model_server_error(server: WireServer, status: int) -> None:
    """A 5xx is ModelServerError carrying the status, chained to the SDK's error."""
    server.replies.append(error_reply(status, "The server had an error."))

    with pytest.raises(ModelServerError) as caught:
        complete(server)

    assert caught.value.status == status
    assert caught.value.__cause__ is not None


def test_unauthorized_is_rejected_without_echoing_the_key(server: WireServer) -> None:
    """A 401 is ModelRequestRejected naming the status and message, with the key masked."""
    server.replies.append(error_reply(401, "Incorrect API key provided: test-key."))

    with pytest.raises(ModelRequestRejected) as caught:
        complete(server)

    message = str(caught.value)
    assert caught.value.status == 401
    assert "401" in message
    assert "Incorrect API key provided" in message
    assert "test-key" not in message


def test_bad_request_reads_a_top_level_error_message(server: WireServer) -> None:
    """A 400 in vLLM's shape (``message`` at the top) still names the server's message."""
    body = {"object": "error", "message": "max_tokens is too large", "code": 400}
    server.replies.append(Reply.json(body, status=400))

    with pytest.raises(ModelRequestRejected) as caught:
        complete(server, provider="openai-compatible")

    assert "max_tokens is too large" in str(caught.value)
    assert caught.value.provider == "openai-compatible"


def test_invalid_json_body_is_malformed(server: WireServer) -> None:
    """A 200 whose JSON body does not parse is ModelResponseMalformed."""
    server.replies.append(
        Reply(body=b'{"choices": [', headers={"content-type": "application/json"})
    )

    with pytest.raises(ModelResponseMalformed):
        complete(server)


def test_body_without_choices_is_malformed(server: WireServer) -> None:
    """A JSON body with no choices is ModelResponseMalformed."""
    server.replies.append(Reply.json({"id": "x", "object": "chat.completion", "model": "m"}))

    with pytest.raises(ModelResponseMalformed):
        complete(server)


def test_non_json_body_is_malformed(server: WireServer) -> None:
    """A 200 that is not JSON at all (a proxy's HTML page) is ModelResponseMalformed."""
    server.replies.append(Reply(body=b"<html>hi</html>", headers={"content-type": "text/html"}))

    with pytest.raises(ModelResponseMalformed):
        complete(server)


@pytest.mark.parametrize(
    "function",
    [{"arguments": "{}"}, {"name": None, "arguments": "{}"}, {"name": 7, "arguments": "{}"}],
    ids=["missing", "null", "integer"],
)
def test_a_tool_call_without_a_string_name_is_kept_with_an_empty_name(
    server: WireServer, function: dict[str, Any]
) -> None:
    """A call naming no function, or null, or a number, is kept named "" beside the others."""
    calls = [
        {"id": "call_bad", "type": "function", "function": function},
        {"id": "call_ok", "type": "function", "function": {"name": "search", "arguments": "{}"}},
    ]
    server.replies.append(Reply.json(completion({"tool_calls": calls}, "tool_calls")))

    bad, good = complete(server).tool_uses
    assert bad == ToolUseBlock(id="call_bad", name="", input={})
    assert good.name == "search"


def test_closed_port_is_a_connection_error() -> None:
    """A server that refuses the connection is ModelConnectionError."""

    async def main(port: int) -> None:
        client = OpenAIChatClient(
            base_url=f"http://127.0.0.1:{port}/v1", api_key="test-key", max_retries=0
        )
        try:
            await client.complete(HELLO)
        finally:
            await client.aclose()

    with refused_port() as port, pytest.raises(ModelConnectionError) as caught:
        asyncio.run(main(port))

    assert f"127.0.0.1:{port}" in str(caught.value)


def test_timeout_is_a_connection_error(server: WireServer) -> None:
    """A server that does not answer within ``timeout`` is ModelConnectionError."""
    server.replies.append(
        Reply(
            body=json.dumps(completion({"content": "late"})).encode(),
            headers={"content-type": "application/json"},
            delay=0.5,
        )
    )

    with pytest.raises(ModelConnectionError, match="timed out"):
        complete(server, timeout=0.1)


# -- streaming -----------------------------------------------------------------------------


def test_stream_yields_text_deltas_then_the_whole_response(server: WireServer) -> None:
    """Content deltas arrive as TextDeltas, then one ResponseComplete; usage is asked for."""
    server.replies.append(
        sse(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hel"}),
            chunk({"content": "lo!"}),
            chunk({}, "stop"),
        )
    )

    events = collect(server)

    assert events[:2] == [TextDelta("Hel"), TextDelta("lo!")]
    assert len(events) == 3
    final = events[-1]
    assert isinstance(final, ResponseComplete)
    assert final.response.content == (TextBlock(text="Hello!"),)
    assert final.response.stop_reason is StopReason.END_TURN
    assert final.response.model == "gpt-test-2024"
    body = server.requests[0].json()
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}  # asked of every server


def test_stream_gathers_tool_call_fragments_by_index(server: WireServer) -> None:
    """Streamed tool call fragments are joined per index into whole tool-use blocks."""
    server.replies.append(
        sse(
            chunk({"role": "assistant", "content": "Looking."}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "search", "arguments": ""},
                        }
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"que'}}]}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 1,
                            "id": "call_b",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": '{"path":'},
                        }
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ry": "cats"}'}}]}),
            chunk({"tool_calls": [{"index": 1, "function": {"arguments": ' "/x"}'}}]}),
            chunk({}, "tool_calls"),
        )
    )

    events = collect(server)

    assert events[0] == TextDelta("Looking.")
    final = events[-1]
    assert isinstance(final, ResponseComplete)
    assert final.response.content == (
        TextBlock(text="Looking."),
        ToolUseBlock(id="call_a", name="search", input={"query": "cats"}),
        ToolUseBlock(id="call_b", name="read_file", input={"path": "/x"}),
    )
    assert final.response.stop_reason is StopReason.TOOL_USE


def test_stream_keeps_calls_apart_when_a_server_numbers_them_all_zero(
    server: WireServer,
) -> None:
    """Whole tool calls that share index 0 but carry new ids stay separate calls."""
    server.replies.append(
        sse(
            chunk({"tool_calls": [{"index": 0, **tool_call("call_a", "search", "{}")}]}),
            chunk({"tool_calls": [{"index": 0, **tool_call("call_b", "read_file", "{}")}]}),
            chunk({}, "tool_calls"),
        )
    )

    final = collect(server)[-1]

    assert isinstance(final, ResponseComplete)
    assert [use.id for use in final.response.tool_uses] == ["call_a", "call_b"]


def test_stream_reads_usage_reasoning_and_refusal(server: WireServer) -> None:
    """Usage from the final chunk, reasoning deltas and refusal deltas all reach the response."""
    usage_chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test-2024",
        "choices": [],
        "usage": {
            "prompt_tokens": 9,
            "completion_tokens": 4,
            "total_tokens": 13,
            "prompt_tokens_details": {"cached_tokens": 8},
        },
    }
    server.replies.append(
        sse(
            chunk({"reasoning_content": "Hmm, "}),
            chunk({"reasoning_content": "no."}),
            chunk({"refusal": "I won't "}),
            chunk({"refusal": "do that."}),
            chunk({}, "stop"),
            usage_chunk,
        )
    )

    events = collect(server, stream_usage=True)

    assert server.requests[0].json()["stream_options"] == {"include_usage": True}
    assert not [event for event in events if isinstance(event, TextDelta)]
    final = events[-1]
    assert isinstance(final, ResponseComplete)
    assert final.response.content == (
        ReasoningBlock(text="Hmm, no."),
        TextBlock(text="I won't do that."),
    )
    assert final.response.stop_reason is StopReason.REFUSAL
    usage = final.response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (9, 4, 8)


def test_stream_error_status_raises_before_any_event(server: WireServer) -> None:
    """A stream refused with 429 raises ModelRateLimited with its retry-after."""
    server.replies.append(error_reply(429, "Slow down.", **{"retry-after": "3"}))

    with pytest.raises(ModelRateLimited) as caught:
        collect(server)

    assert caught.value.retry_after == 3


def test_stream_error_event_midway_is_a_server_error(server: WireServer) -> None:
    """An error event inside a started stream is ModelServerError."""
    server.replies.append(
        Reply.sse(
            [
                (None, chunk({"content": "Hel"})),
                (None, {"error": {"message": "The server had an error.", "type": "server"}}),
            ]
        )
    )

    with pytest.raises(ModelServerError, match="The server had an error"):
        collect(server)


def test_stream_with_invalid_json_chunk_is_malformed(server: WireServer) -> None:
    """A chunk whose data is not JSON is ModelResponseMalformed."""
    server.replies.append(Reply.sse([(None, chunk({"content": "Hel"})), (None, "{oops")]))

    with pytest.raises(ModelResponseMalformed):
        collect(server)


def test_empty_stream_is_malformed(server: WireServer) -> None:
    """A stream that ends before any chunk is ModelResponseMalformed."""
    server.replies.append(Reply.sse([(None, "[DONE]")]))

    with pytest.raises(ModelResponseMalformed):
        collect(server)


# -- configuration -------------------------------------------------------------------------


def test_missing_openai_key_is_not_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without base_url and without OPENAI_API_KEY, construction names the variable to set."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(ModelNotConfigured, match="OPENAI_API_KEY"):
        OpenAIChatClient()


def test_missing_sdk_is_not_configured_with_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the openai SDK, construction gives the commands that install it."""
    monkeypatch.setitem(sys.modules, "openai", None)

    with pytest.raises(
        ModelNotConfigured, match=r"pip install 'openai>=.*pip install '\.\[openai\]'"
    ):
        OpenAIChatClient(base_url="http://127.0.0.1:1/v1")


def test_client_satisfies_the_model_client_protocol_and_hides_its_key() -> None:
    """The adapter is a ModelClient, and its repr shows the endpoint but never the key."""

    async def main() -> str:
        async with OpenAIChatClient(
            base_url="http://user:pw@127.0.0.1:1/v1?token=t", api_key="sk-secret-key-1234"
        ) as client:
            assert isinstance(client, ModelClient)
            return repr(client)

    shown = asyncio.run(main())

    assert "127.0.0.1:1/v1" in shown
    assert "sk-secret" not in shown
    assert "pw" not in shown
    assert "token" not in shown


def test_importing_the_adapter_does_not_import_the_sdk() -> None:
    """``import nucleo_core.models.openai`` leaves the openai SDK unimported until use."""
    code = (
        "import sys, nucleo_core, nucleo_core.models.openai; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'openai')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", "import json; " + code],
        capture_output=True,
        text=True,
        check=True,
    )

    assert json.loads(result.stdout) == []


# -- malformed tool calls ------------------------------------------------------------------

DEEP = 10_000
DEEP_ARGUMENTS = '{"query": ' + "[" * DEEP + "]" * DEEP + "}"


def deep_completion(*calls: str) -> Reply:
    """A chat completion whose tool calls are given as JSON text.

    ``json.dumps`` cannot write a value nested 10,000 deep, so the calls are spliced in.
    """
    body = json.dumps(completion({"tool_calls": []}, "tool_calls")).replace(
        '"tool_calls": []', '"tool_calls": [' + ", ".join(calls) + "]"
    )
    return Reply(body=body.encode(), headers={"content-type": "application/json"})


def good_call(call_id: str = "call_ok", name: str = "search") -> str:
    return json.dumps(
        {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": '{"query": "q"}'},
        }
    )


def test_arguments_nested_10000_deep_are_cut_and_the_other_calls_read(server: WireServer) -> None:
    """Arguments text nesting 10,000 deep is kept in its bounded cut form, never decoded."""
    deep = json.dumps(
        {
            "id": "call_deep",
            "type": "function",
            "function": {"name": "search", "arguments": DEEP_ARGUMENTS},
        }
    )
    server.replies.append(deep_completion(deep, good_call()))

    deep_use, good = complete(server).tool_uses
    assert good == ToolUseBlock(id="call_ok", name="search", input={"query": "q"})
    assert isinstance(deep_use.input, str)
    assert len(deep_use.input) <= 1_100
    assert overflows(deep_use.input) is not None


def test_an_argument_object_nested_10000_deep_is_cut_and_the_rest_read(server: WireServer) -> None:
    """A server sending arguments as a 10,000-deep object (too deep for the SDK) loses one call."""
    deep = (
        '{"id": "call_deep", "type": "function", "function": {"name": "search", '
        '"arguments": ' + DEEP_ARGUMENTS + "}}"
    )
    server.replies.append(deep_completion(deep, good_call()))

    deep_use, good = complete(server).tool_uses
    assert good.input == {"query": "q"}
    assert isinstance(deep_use.input, str)
    assert overflows(deep_use.input) is not None


def test_streamed_arguments_nested_10000_deep_are_cut(server: WireServer) -> None:
    """Streamed argument fragments that nest 10,000 deep are cut, the stream read to its end."""
    half = len(DEEP_ARGUMENTS) // 2
    server.replies.append(
        sse(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_deep",
                            "type": "function",
                            "function": {"name": "search", "arguments": DEEP_ARGUMENTS[:half]},
                        }
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": DEEP_ARGUMENTS[half:]}}]}),
            chunk({}, finish_reason="tool_calls"),
        )
    )
    final = collect(server)[-1]
    assert isinstance(final, ResponseComplete)
    (use,) = final.response.tool_uses
    assert isinstance(use.input, str)
    assert overflows(use.input) is not None


def test_a_stream_chunk_nesting_too_deep_is_malformed_not_a_recursion_error(
    server: WireServer,
) -> None:
    """A chunk too deep to decode at all ends the stream with ModelResponseMalformed."""
    deep_chunk = (
        '{"choices": [{"index": 0, "delta": {"content": ' + "[" * DEEP + "]" * DEEP + "}}]}"
    )
    server.replies.append(Reply.sse([(None, deep_chunk), (None, "[DONE]")]))

    with pytest.raises(ModelResponseMalformed):
        collect(server)


def test_a_too_deep_input_in_the_conversation_is_sent_in_its_cut_form(server: WireServer) -> None:
    """History holding a 10,000-deep input object is sent, its arguments the bounded cut form."""
    value: list[Any] = []
    for _ in range(DEEP):
        value = [value]
    turn = Message(
        role="assistant",
        content=(ToolUseBlock(id="call_1", name="search", input={"query": value}),),
    )
    server.replies.append(Reply.json(completion({"content": "ok"})))
    complete(server, ModelRequest(model="gpt-test", messages=(Message.user("Go"), turn)))

    (call,) = server.requests[0].json()["messages"][1]["tool_calls"]
    assert overflows(call["function"]["arguments"]) is not None
    assert len(call["function"]["arguments"]) <= 1_100


# -- a whole thinker turn over the wire ------------------------------------------------------


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


def test_a_thinker_turn_goes_on_past_deep_arguments_and_an_integer_name(
    server: WireServer,
) -> None:
    """Through the real SDK, the bad calls get error results and the good one runs."""
    deep = json.dumps(
        {
            "id": "call_deep",
            "type": "function",
            "function": {"name": "search_notes", "arguments": DEEP_ARGUMENTS},
        }
    )
    numbered = '{"id": "call_int", "type": "function", "function": {"name": 7, "arguments": "{}"}}'
    server.replies.append(deep_completion(deep, numbered, good_call(name="search_notes")))
    server.replies.append(Reply.json(completion({"content": "Found it."})))

    async def main() -> str:
        async with OpenAIChatClient(base_url=server.url + "/v1", api_key="k", max_retries=0) as c:
            thinker = NoteThinker(
                NoteThinker.declaration,
                hub=ToolHub(),
                catalog=ModelCatalog(grades={"standard": "openai:gpt-test"}),
                conversations=ConversationService(":memory:"),
                client=c,
            )
            answer = await thinker.run("Find it.")
            assert thinker.transcript() is not None
            return answer

    assert asyncio.run(main()) == "Found it."
    results = {
        message["tool_call_id"]: message["content"]
        for message in server.requests[1].json()["messages"]
        if message["role"] == "tool"
    }
    assert list(results) == ["call_deep", "call_int", "call_ok"]
    assert results["call_ok"] == "found: q"
    assert results["call_deep"].startswith("Error: ")
    assert f"more than {MAX_JSON_DEPTH} levels deep" in results["call_deep"]
    assert "[[" not in results["call_deep"]
    assert "must be a string naming one of the available tools" in results["call_int"]


# -- what a real local server refuses, and retries -------------------------------------------

#: What llama-cpp-python's server (0.3) answers to ``"content": null`` on a tool-call turn: a 500
#: whose message is pydantic's report for every shape of its message union, echoing the
#: values sent, then a stack frame (as it was read off the real server, shortened).
LLAMA_CPP_VALIDATION_500 = {
    "error": {
        "message": (
            "4 validation errors:\n"
            "  {'type': 'literal_error', 'loc': ('body', 'messages', 1, "
            "'ChatCompletionRequestSystemMessage', 'role'), 'msg': \"Input should be 'system'\", "
            "'input': 'assistant', 'ctx': {'expected': \"'system'\"}}\n"
            "  {'type': 'string_type', 'loc': ('body', 'messages', 1, "
            "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a "
            "valid string', 'input': None}\n"
            "  {'type': 'literal_error', 'loc': ('body', 'messages', 1, "
            "'ChatCompletionRequestToolMessage', 'role'), 'msg': \"Input should be 'tool'\", "
            "'input': 'assistant', 'ctx': {'expected': \"'tool'\"}}\n"
            "  {'type': 'missing', 'loc': ('body', 'messages', 1, "
            "'ChatCompletionRequestToolMessage', 'tool_call_id'), 'msg': 'Field required', "
            "'input': {'role': 'assistant', 'content': 'SECRET-TEXT'}}\n\n"
            '  File "llama_cpp/server/app.py", line 376, in create_chat_completion\n'
            "    POST /v1/chat/completions"
        ),
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


def test_a_500_validation_report_is_said_in_short_and_not_retried(server: WireServer) -> None:
    """A 500 validation report names the refused fields, echoes no value, and is not retried."""
    server.replies.append(Reply.json(LLAMA_CPP_VALIDATION_500, status=500))
    server.replies.append(Reply.json(completion({"content": "never reached"})))

    with pytest.raises(ModelServerError) as caught:
        complete(server, provider="openai-compatible", max_retries=2)

    message = str(caught.value)
    assert "refused the request (HTTP 500)" in message
    cause = "messages.1.ChatCompletionRequestAssistantMessage.content: Input should be a valid"
    assert message.endswith(f"the request does not fit the server's schema: {cause} string")
    assert "ToolMessage" not in message  # the shapes whose role did not match are left out
    assert "SECRET-TEXT" not in message
    assert "errors.pydantic.dev" not in message
    assert len(server.requests) == 1


def test_a_pydantic_text_report_and_a_fastapi_detail_are_summarized(server: WireServer) -> None:
    """Pydantic's text rendering and FastAPI's ``detail`` list both come out as field: reason."""
    text = (
        "1 validation error for ChatCompletionRequestAssistantMessage\ncontent\n"
        "  Input should be a valid string [type=string_type, input_value=None, "
        "input_type=NoneType]\n    For further information visit https://errors.pydantic.dev"
    )
    server.replies.append(error_reply(500, text))
    detail = {
        "detail": [{"loc": ["body", "max_tokens"], "msg": "Input should be > 0", "input": -3}]
    }
    server.replies.append(Reply.json(detail, status=422))

    with pytest.raises(ModelServerError) as first:
        complete(server, max_retries=2)
    with pytest.raises(ModelRequestRejected) as second:
        complete(server, max_retries=2)

    assert "content: Input should be a valid string" in str(first.value)
    assert "input_value" not in str(first.value)
    assert "max_tokens: Input should be > 0" in str(second.value)
    assert "-3" not in str(second.value)
    assert len(server.requests) == 2  # neither was retried


def test_a_transient_failure_is_retried_and_each_retry_logged(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A 503 and a 429 are retried within ``max_retries``, each retry a WARNING saying why."""
    server.replies.append(error_reply(503, "Loading model"))
    server.replies.append(error_reply(429, "Busy", **{"retry-after-ms": "10"}))
    server.replies.append(Reply.json(completion({"content": "Hello!"})))

    with caplog.at_level(logging.WARNING, logger="nucleo.models"):
        response = complete(server, provider="openai-compatible", max_retries=2)

    assert response.text == "Hello!"
    assert len(server.requests) == 3
    retries = [r for r in caplog.records if r.name == "nucleo.models.openai-compatible"]
    assert [r.levelno for r in retries] == [logging.WARNING, logging.WARNING]
    assert "HTTP 503" in retries[0].getMessage()
    assert "retry 1 of 2" in retries[0].getMessage()
    assert "HTTP 429" in retries[1].getMessage()
    assert "retry 2 of 2" in retries[1].getMessage()


def test_a_timed_out_attempt_is_retried_then_the_error_raised(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """An attempt past ``timeout`` is retried ``max_retries`` times (logged), then raised."""
    late = Reply(body=b"{}", headers={"content-type": "application/json"}, delay=0.3)
    server.replies.extend([late, late])

    with (
        caplog.at_level(logging.WARNING, logger="nucleo.models"),
        pytest.raises(ModelConnectionError, match="timed out"),
    ):
        complete(server, timeout=0.1, max_retries=1)

    assert len(server.requests) == 2
    assert ["retry 1 of 1" in r.getMessage() for r in caplog.records] == [True]


def test_no_retry_when_max_retries_is_zero(server: WireServer) -> None:
    """``max_retries=0`` sends a request once, even when the failure is transient."""
    server.replies.append(error_reply(503, "Loading model"))

    with pytest.raises(ModelServerError):
        complete(server, max_retries=0)

    assert len(server.requests) == 1


def test_a_stream_refused_before_its_first_event_is_retried(server: WireServer) -> None:
    """A stream whose opening failed transiently is opened again; its text arrives once."""
    server.replies.append(error_reply(503, "Loading model"))
    server.replies.append(sse(chunk({"content": "Hi"}), chunk({}, "stop")))

    events = collect(server, max_retries=1)

    assert events[0] == TextDelta("Hi")
    assert len(server.requests) == 2


def test_streamed_usage_is_asked_of_a_local_server_and_read(server: WireServer) -> None:
    """A local server's stream is asked for usage, and the usage chunk fills the response."""
    usage_chunk = {
        **chunk({}),
        "choices": [],
        "usage": {"prompt_tokens": 7, "completion_tokens": 2},
    }
    server.replies.append(sse(chunk({"content": "Hi"}), chunk({}, "stop"), usage_chunk))

    events = collect(server, provider="openai-compatible")

    assert server.requests[0].json()["stream_options"] == {"include_usage": True}
    final = events[-1]
    assert isinstance(final, ResponseComplete)
    assert (final.response.usage.input_tokens, final.response.usage.output_tokens) == (7, 2)


def test_a_server_refusing_stream_options_is_asked_again_without_them(server: WireServer) -> None:
    """A 400 naming ``stream_options`` sends the stream again, and later ones, without it."""
    server.replies.append(error_reply(400, "Unrecognized request argument: stream_options"))
    server.replies.append(sse(chunk({"content": "Hi"}), chunk({}, "stop")))
    server.replies.append(sse(chunk({"content": "Again"}), chunk({}, "stop")))

    async def scenario(client: OpenAIChatClient) -> list[list[StreamEvent]]:
        return [[event async for event in client.stream(HELLO)] for _ in range(2)]

    first, second = run(server, scenario, provider="openai-compatible")

    assert first[0] == TextDelta("Hi")
    assert second[0] == TextDelta("Again")
    bodies = [request.json() for request in server.requests]
    assert "stream_options" in bodies[0]
    assert "stream_options" not in bodies[1]
    assert "stream_options" not in bodies[2]


# -- an exchange's bounds, from the model entry ----------------------------------------------


def exchange(server: WireServer, **settings: Any) -> Any:
    """One `LLMCall` seated on an openai-compatible entry of ``server`` with ``settings``."""
    from nucleo_core.models.catalog import ModelEntry
    from nucleo_core.thinking.llm_call import LLMCall

    entry = ModelEntry.parse(f"openai-compatible:{server.url}/v1#smollm2", **settings)
    catalog = ModelCatalog([entry], grades={"standard": entry.id})

    async def main() -> Any:
        try:
            return await LLMCall(
                declaration=ThinkerDeclaration("standard", 64),
                messages=[Message.user("Hi")],
                catalog=catalog,
            ).run()
        finally:
            await catalog.aclose()

    return asyncio.run(main())


def test_the_entry_s_timeout_and_retries_reach_the_adapter(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """An entry's ``timeout`` bounds each attempt and its ``retries`` counts them, each logged."""
    late = Reply(body=b"{}", headers={"content-type": "application/json"}, delay=0.3)
    server.replies.extend([late, late])

    with (
        caplog.at_level(logging.WARNING, logger="nucleo.models"),
        pytest.raises(ModelConnectionError, match="timed out"),
    ):
        exchange(server, timeout=0.1, retries=1)

    assert len(server.requests) == 2
    assert [r.name for r in caplog.records] == ["nucleo.models.openai-compatible"]


def test_the_entry_s_deadline_ends_a_stalled_exchange(server: WireServer) -> None:
    """A server stalling past the entry's ``deadline`` ends the exchange, whatever its timeout."""
    server.replies.append(
        Reply(body=b"{}", headers={"content-type": "application/json"}, delay=30.0)
    )

    with pytest.raises(ModelConnectionError, match=r"deadline of 2 s") as raised:
        exchange(server, timeout=600, retries=3, deadline=2)

    assert raised.value.provider == "openai-compatible"
    assert isinstance(raised.value.__cause__, TimeoutError)


def test_a_context_overflow_names_the_server_s_window_and_the_setting(
    server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A 400 saying the prompt passes the window tells the window and how to configure it."""
    server.replies.append(error_reply(400, "Requested tokens (5012) exceed context window of 2048"))

    with (
        caplog.at_level(logging.WARNING, logger="nucleo.models"),
        pytest.raises(ModelRequestRejected) as raised,
    ):
        exchange(server, context_window=128_000)

    message = str(raised.value)
    assert "exceed context window of 2048" in message
    assert "the server's window is 2048 tokens" in message
    assert "context_window = 128000" in message
    assert raised.value.status == 400
    assert any("context_window" in r.getMessage() for r in caplog.records)


def test_an_overflow_of_a_window_set_right_says_to_set_it_lower(server: WireServer) -> None:
    """An entry already at the server's window is told to go under it: prompts add tokens too."""
    server.replies.append(error_reply(400, "Requested tokens (2100) exceed context window of 2048"))

    with pytest.raises(ModelRequestRejected) as raised:
        exchange(server, context_window=2048)

    assert "Set context_window below the server's" in str(raised.value)
