"""`ProviderBlock`: a provider's own content (Anthropic's tool search blocks) kept and stored.

The contract test ``tests/contract/test_search_tools_provider.py`` pins that Anthropic's blocks
go back on the wire; these pin the conversation's side: the store keeps them, the transcript
shows them, and another provider's adapter leaves them out.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from wire_server import Reply, wire_server

from nucleo_core.conversations import ConversationStoreError
from nucleo_core.conversations.message_codec import decode_message, encode_message
from nucleo_core.models import Message, ModelRequest, ProviderBlock, TextBlock, ToolUseBlock
from nucleo_core.models.openai import OpenAIChatClient
from nucleo_core.thinking.transcript import render_transcript

SEARCH_CALL = {
    "type": "server_tool_use",
    "id": "srvtoolu_1",
    "name": "tool_search_tool_bm25",
    "input": {"query": "weather"},
}
SEARCH_RESULT = {
    "type": "tool_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": {
        "type": "tool_search_tool_search_result",
        "tool_references": [{"type": "tool_reference", "tool_name": "read_weather_forecast"}],
    },
}
TURN = Message(
    role="assistant",
    content=(
        TextBlock(text="Looking."),
        ProviderBlock(provider="anthropic", data=SEARCH_CALL),
        ProviderBlock(provider="anthropic", data=SEARCH_RESULT),
        ToolUseBlock(id="toolu_1", name="read_weather_forecast", input={"city": "Lisbon"}),
    ),
)


def test_provider_blocks_survive_the_store_in_order() -> None:
    """A stored turn decodes with its provider blocks equal and in their place."""
    decoded = decode_message(encode_message(TURN))
    assert decoded == TURN
    assert [type(block).__name__ for block in decoded.content] == [
        "TextBlock",
        "ProviderBlock",
        "ProviderBlock",
        "ToolUseBlock",
    ]


def test_a_provider_block_without_an_object_is_a_corrupt_record() -> None:
    """A provider block whose data is not an object is refused, saying where."""
    record = json.dumps(
        {"v": 1, "role": "assistant", "content": [{"type": "provider", "provider": "x"}]}
    )
    with pytest.raises(ConversationStoreError, match="block 0: 'data' must be an object"):
        decode_message(record)


def test_the_transcript_shows_a_provider_block_by_its_kind() -> None:
    """The transcript names the provider and the block's kind, then its JSON."""
    text = render_transcript([TURN])
    assert "anthropic server_tool_use: " in text
    assert "anthropic tool_search_tool_result: " in text
    assert '"tool_name": "read_weather_forecast"' in text


def test_another_provider_leaves_anthropic_blocks_out() -> None:
    """Through the real OpenAI SDK the turn's text and tool call are sent, not the search."""
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Sunny."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
    conversation = (
        Message.user("Weather?"),
        TURN,
        Message(role="user", content=(TextBlock(text="And tomorrow?"),)),
    )

    async def main(url: str) -> None:
        async with OpenAIChatClient(base_url=url + "/v1", api_key="k", max_retries=0) as client:
            await client.complete(ModelRequest(model="gpt-test", messages=conversation))

    with wire_server() as server:
        server.replies.append(Reply.json(answer))
        asyncio.run(main(server.url))
        sent = server.requests[0].json()["messages"]
    assert "srvtoolu_1" not in json.dumps(sent)
    assistant = next(message for message in sent if message["role"] == "assistant")
    assert assistant["content"] == "Looking."
    assert [call["id"] for call in assistant["tool_calls"]] == ["toolu_1"]
