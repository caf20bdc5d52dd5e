"""The message codec: lossless, versioned JSON records with clear errors on corrupt ones."""

from __future__ import annotations

import json

import pytest
from _conversation_strategies import messages, usages
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core.conversations import ConversationStoreError
from nucleo_core.conversations.message_codec import (
    CODEC_VERSION,
    decode_carried,
    decode_message,
    decode_usage,
    encode_carried,
    encode_message,
    encode_usage,
)
from nucleo_core.errors import MisuseError
from nucleo_core.models.messages import Message, TextBlock, ToolUseBlock, Usage
from nucleo_core.tools.state import CarriedState


@given(messages)
def test_every_message_survives_a_round_trip(message: Message) -> None:
    """Decoding an encoded message gives back an equal message, whatever its blocks."""
    assert decode_message(encode_message(message)) == message


@given(usages)
def test_every_usage_survives_a_round_trip(usage: Usage) -> None:
    """Decoding encoded usage gives back equal usage, provider extras included."""
    assert decode_usage(encode_usage(usage)) == usage


@given(st.lists(st.builds(CarriedState, tool=st.text(), text=st.text(), data=st.none())))
def test_carried_states_survive_a_round_trip_in_order(states: list[CarriedState]) -> None:
    """Carried states decode equal and in the order they were encoded."""
    assert decode_carried(encode_carried(states)) == tuple(states)


def test_records_are_ascii_json_with_a_version() -> None:
    """A record is ASCII JSON carrying the codec version, so a lone surrogate survives too."""
    message = Message.user("caf\u00e9 \ud800")
    record = encode_message(message)
    assert record.isascii()
    assert json.loads(record)["v"] == CODEC_VERSION
    assert decode_message(record) == message


def test_a_tool_input_given_as_raw_text_stays_text() -> None:
    """A tool input the provider sent as a string decodes as that string, not as an object."""
    message = Message(role="assistant", content=(ToolUseBlock(id="1", name="t", input="{"),))
    assert decode_message(encode_message(message)) == message


def test_a_value_json_cannot_hold_is_refused_when_encoding() -> None:
    """A set in a tool input is a ConversationStoreError at encoding, not a mangled record."""
    message = Message(role="assistant", content=(ToolUseBlock(id="1", name="t", input={"s": {1}}),))
    with pytest.raises(ConversationStoreError, match="JSON cannot hold"):
        encode_message(message)


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ("not json", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"role": "user", "content": []}', "no integer version"),
        ('{"v": 1, "role": "system", "content": []}', "'role'"),
        ('{"v": 1, "role": "user", "content": {}}', "'content' must be a list"),
        ('{"v": 1, "role": "user", "content": [{"type": "image"}]}', "block 0 has an unknown type"),
        ('{"v": 1, "role": "user", "content": [{"type": "text"}]}', "block 0: 'text'"),
        (
            '{"v": 1, "role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", '
            '"content": "x", "is_error": "no"}]}',
            "'is_error' must be a boolean",
        ),
    ],
)
def test_a_corrupt_record_says_what_is_wrong(record: str, problem: str) -> None:
    """Each kind of corruption raises a ConversationStoreError naming the problem."""
    with pytest.raises(ConversationStoreError, match="corrupt message record") as caught:
        decode_message(record)
    assert problem in str(caught.value)
    assert isinstance(caught.value, MisuseError)


def test_a_record_of_a_later_version_asks_for_an_upgrade() -> None:
    """A record written by a later codec is refused with advice to upgrade, not misread."""
    record = json.dumps({"v": CODEC_VERSION + 1, "role": "user", "content": []})
    with pytest.raises(ConversationStoreError, match="upgrade nucleo-core"):
        decode_message(record)


def test_corrupt_usage_and_carried_records_are_refused() -> None:
    """Usage and carried-state records are checked the way message records are."""
    with pytest.raises(ConversationStoreError, match="'input_tokens'"):
        decode_usage('{"v": 1, "input_tokens": "3"}')
    with pytest.raises(ConversationStoreError, match="state 0"):
        decode_carried('{"v": 1, "states": [{"tool": 1}]}')


def test_text_blocks_decode_as_the_neutral_types() -> None:
    """A decoded block is the neutral dataclass itself, usable by every adapter."""
    decoded = decode_message(encode_message(Message.assistant("hi")))
    assert decoded.content == (TextBlock(text="hi"),)
