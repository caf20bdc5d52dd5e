"""Lossless JSON records of messages, usage and carried state, versioned.

Each record is a JSON object with a ``"v"`` key (`CODEC_VERSION`). A message is::

    {"v": 1, "role": "user" | "assistant", "content": [block, ...]}

and a block one of::

    {"type": "text", "text": ...}
    {"type": "tool_use", "id": ..., "name": ..., "input": {...} | "raw text"}
    {"type": "tool_result", "tool_use_id": ..., "content": ..., "is_error": false}
    {"type": "reasoning", "text": ..., "signature": ..., "redacted": false, "data": ...}
    {"type": "provider", "provider": "anthropic", "data": {...}}

Encoding is ASCII-only JSON (``ensure_ascii``), so that any Python string, a lone surrogate
included, survives a store that keeps UTF-8. A tool input is lossless for anything JSON can
hold; a value JSON cannot hold (a set, a NaN) is refused when encoding, not mangled.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NoReturn

from nucleo_core.conversations.errors import ConversationStoreError
from nucleo_core.models._block_data import tool_result_data
from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    ProviderBlock,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.tools.state import CarriedState

__all__ = [
    "CODEC_VERSION",
    "decode_carried",
    "decode_message",
    "decode_usage",
    "encode_carried",
    "encode_message",
    "encode_usage",
    "message_from_data",
    "message_to_data",
]

#: The version written into every record; a record of a later version is refused.
CODEC_VERSION = 1


def encode_message(message: Message) -> str:
    """The JSON record of ``message``.

    Raises:
        ConversationStoreError: A tool input holds a value JSON cannot hold.
    """
    return _dumps(message_to_data(message), "message")


def decode_message(record: str | bytes) -> Message:
    """The message a record written by `encode_message` holds.

    Raises:
        ConversationStoreError: The record is not JSON, is of a later version, or does not have
            the shape of a message; the message says what is wrong and where.
    """
    return message_from_data(_loads(record, "message"))


def message_to_data(message: Message) -> dict[str, Any]:
    """The JSON-ready dict of ``message`` (what `encode_message` serialises)."""
    return {
        "v": CODEC_VERSION,
        "role": message.role,
        "content": [_block_to_data(block) for block in message.content],
    }


def message_from_data(data: object) -> Message:
    """The message a dict made by `message_to_data` holds.

    Raises:
        ConversationStoreError: ``data`` does not have the shape of a message record.
    """
    record = _record(data, "message")
    role = record.get("role")
    if role not in ("user", "assistant"):
        _corrupt("message", '\'role\' must be "user" or "assistant"')
    content = record.get("content")
    if not isinstance(content, list):
        _corrupt("message", "'content' must be a list of blocks")
    blocks = tuple(_block_from_data(item, index) for index, item in enumerate(content))
    return Message(role=role, content=blocks)


def encode_usage(usage: Usage) -> str:
    """The JSON record of ``usage``.

    Raises:
        ConversationStoreError: ``usage.extra`` holds a value JSON cannot hold.
    """
    data = {
        "v": CODEC_VERSION,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "extra": dict(usage.extra),
    }
    return _dumps(data, "usage")


def decode_usage(record: str | bytes) -> Usage:
    """The usage a record written by `encode_usage` holds.

    Raises:
        ConversationStoreError: The record is not a usage record of a known version.
    """
    data = _record(_loads(record, "usage"), "usage")
    counts: dict[str, int] = {}
    for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        value = data.get(key)
        if type(value) is not int:
            _corrupt("usage", f"'{key}' must be an integer")
        counts[key] = value
    extra = data.get("extra")
    if not isinstance(extra, dict):
        _corrupt("usage", "'extra' must be an object")
    return Usage(extra=extra, **counts)


def encode_carried(states: tuple[CarriedState, ...] | list[CarriedState]) -> str:
    """The JSON record of carried states, in the order given.

    Raises:
        ConversationStoreError: A state's ``data`` holds a value JSON cannot hold.
    """
    items = [
        {"tool": state.tool, "text": state.text, "data": _plain(state.data)} for state in states
    ]
    return _dumps({"v": CODEC_VERSION, "states": items}, "carried state")


def decode_carried(record: str | bytes) -> tuple[CarriedState, ...]:
    """The carried states a record written by `encode_carried` holds, in order.

    Raises:
        ConversationStoreError: The record is not a carried-state record of a known version.
    """
    data = _record(_loads(record, "carried state"), "carried state")
    items = data.get("states")
    if not isinstance(items, list):
        _corrupt("carried state", "'states' must be a list")
    states: list[CarriedState] = []
    for index, item in enumerate(items):
        where = f"state {index}"
        if not isinstance(item, dict):
            _corrupt("carried state", f"{where} must be an object")
        tool, text, payload = item.get("tool"), item.get("text"), item.get("data")
        if not isinstance(tool, str) or not isinstance(text, str):
            _corrupt("carried state", f"{where} needs string 'tool' and 'text'")
        if payload is not None and not isinstance(payload, dict):
            _corrupt("carried state", f"{where}: 'data' must be an object or null")
        states.append(CarriedState(tool=tool, text=text, data=payload))
    return tuple(states)


# -- blocks ----------------------------------------------------------------------------------


def _block_to_data(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUseBlock):
        given = block.input
        return {
            "type": "tool_use",
            "id": block.id,
            "name": block.name,
            "input": given if isinstance(given, str) else _plain(given),
        }
    if isinstance(block, ToolResultBlock):
        return tool_result_data(block)
    if isinstance(block, ReasoningBlock):
        return {
            "type": "reasoning",
            "text": block.text,
            "signature": block.signature,
            "redacted": block.redacted,
            "data": block.data,
        }
    if isinstance(block, ProviderBlock):
        return {"type": "provider", "provider": block.provider, "data": _plain(block.data)}
    raise ConversationStoreError(f"cannot encode a content block of type {type(block).__name__}")


def _block_from_data(item: object, index: int) -> ContentBlock:
    where = f"block {index}"
    if not isinstance(item, dict):
        _corrupt("message", f"{where} must be an object")
    kind = item.get("type")
    if kind == "text":
        return TextBlock(text=_string(item, "text", where))
    if kind == "tool_use":
        given = item.get("input")
        if not isinstance(given, dict | str):
            _corrupt("message", f"{where}: 'input' must be an object or a string")
        return ToolUseBlock(
            id=_string(item, "id", where), name=_string(item, "name", where), input=given
        )
    if kind == "tool_result":
        return ToolResultBlock(
            tool_use_id=_string(item, "tool_use_id", where),
            content=_string(item, "content", where),
            is_error=_boolean(item, "is_error", where),
        )
    if kind == "reasoning":
        return ReasoningBlock(
            text=_string(item, "text", where),
            signature=_optional_string(item, "signature", where),
            redacted=_boolean(item, "redacted", where),
            data=_optional_string(item, "data", where),
        )
    if kind == "provider":
        data = item.get("data")
        if not isinstance(data, dict):
            _corrupt("message", f"{where}: 'data' must be an object")
        return ProviderBlock(provider=_string(item, "provider", where), data=data)
    _corrupt(
        "message",
        f"{where} has an unknown type "
        "(expected text, tool_use, tool_result, reasoning or provider)",
    )


# -- helpers ---------------------------------------------------------------------------------


def _plain(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    # A MappingProxyType (or any Mapping) is not a dict to json; copy it at the top level, and
    # let `default` copy nested ones.
    return None if value is None else dict(value)


def _default(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _dumps(data: object, what: str) -> str:
    try:
        return json.dumps(data, ensure_ascii=True, allow_nan=False, default=_default)
    except (TypeError, ValueError) as exc:
        raise ConversationStoreError(
            f"cannot store this {what}: it holds a value JSON cannot hold ({exc})"
        ) from exc


def _loads(record: str | bytes, what: str) -> object:
    try:
        return json.loads(record)
    except (TypeError, ValueError) as exc:
        raise ConversationStoreError(f"corrupt {what} record: it is not JSON") from exc


def _record(data: object, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        _corrupt(what, "the record is not a JSON object")
    version = data.get("v")
    if type(version) is not int:
        _corrupt(what, "the record has no integer version 'v'")
    if version > CODEC_VERSION:
        raise ConversationStoreError(
            f"this {what} record is of version {version}, newer than this nucleo reads "
            f"(up to {CODEC_VERSION}); upgrade nucleo-core to read it"
        )
    if version < 1:
        _corrupt(what, f"version {version} does not exist")
    return data


def _string(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        _corrupt("message", f"{where}: '{key}' must be a string")
    return value


def _boolean(item: dict[str, Any], key: str, where: str) -> bool:
    value = item.get(key)
    if not isinstance(value, bool):
        _corrupt("message", f"{where}: '{key}' must be a boolean")
    return value


def _optional_string(item: dict[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        _corrupt("message", f"{where}: '{key}' must be a string or null")
    return value


def _corrupt(what: str, problem: str) -> NoReturn:
    raise ConversationStoreError(f"corrupt {what} record: {problem}")
