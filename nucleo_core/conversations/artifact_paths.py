"""Field paths into JSON artifacts: ``items[2].name``, ``["a.b"][0]``, ``$.items``.

A path is keys separated by dots and list indexes in brackets. A key holding dots, brackets or
quotes goes in brackets as a JSON string (``["a.b"]``); a leading ``$`` or ``$.`` is accepted
and ignored, for models used to JSONPath; a key of digits selects a list item (``items.2``).

Errors are for the model: they never repeat the path it sent. They name the part that did
resolve, rebuilt from the artifact's own keys and indexes, and what is there (the keys of an
object, the length of a list, the type of a value), so the next path can be right.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, TypeAlias

from nucleo_core.conversations.errors import ArtifactPathError

__all__ = ["PathSegment", "describe_value", "format_path", "parse_path", "resolve_path"]

#: A key of an object, or an index into a list.
PathSegment: TypeAlias = str | int

#: How many keys an error lists at most.
LISTED_KEYS = 40
_KEY_CHARS = 60

_BARE_KEY = re.compile(r"[^.\[\]\"']+")
_INDEX = re.compile(r"\[\s*(-?\d+)\s*\]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_SYNTAX = (
    "the path is not valid: write keys separated by dots and list indexes in brackets, "
    "e.g. items[2].name; a key holding dots or brackets goes in brackets as a JSON string, "
    'e.g. ["a.b"]'
)


def parse_path(path: str) -> tuple[PathSegment, ...]:
    """The segments of ``path``; the empty path is the whole value.

    Raises:
        ArtifactPathError: ``path`` is not a valid path (the message shows the syntax).
    """
    text = path.strip()
    if text.startswith("$"):
        text = text[1:]
        if text.startswith("."):
            text = text[1:]
    segments: list[PathSegment] = []
    position = 0
    expect_key = True  # at the start and after a dot, a bare key may follow
    while position < len(text):
        char = text[position]
        if char == "[":
            index = _INDEX.match(text, position)
            if index is not None:
                segments.append(int(index.group(1)))
                position = index.end()
            else:
                position = _quoted_key(text, position, segments)
            expect_key = False
        elif char == "." and not expect_key and position + 1 < len(text):
            position += 1
            expect_key = True
            continue
        elif expect_key:
            key = _BARE_KEY.match(text, position)
            if key is None:
                raise ArtifactPathError(_SYNTAX)
            segments.append(key.group(0).strip())
            position = key.end()
            expect_key = False
        else:
            raise ArtifactPathError(_SYNTAX)
        if position < len(text) and text[position] not in ".[":
            raise ArtifactPathError(_SYNTAX)
    if text and expect_key and not segments:
        raise ArtifactPathError(_SYNTAX)
    return tuple(segments)


def format_path(segments: Sequence[PathSegment]) -> str:
    """The canonical spelling of ``segments`` (``$`` for the whole value)."""
    out: list[str] = []
    for segment in segments:
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif _PLAIN_KEY.fullmatch(segment):
            out.append(f".{segment}" if out else segment)
        else:
            out.append(f"[{json.dumps(segment, ensure_ascii=False)}]")
    return "".join(out) or "$"


def resolve_path(value: Any, segments: Sequence[PathSegment]) -> Any:
    """The value at ``segments`` in ``value``.

    Raises:
        ArtifactPathError: A segment does not resolve; the message names the resolved prefix
            and what is there.
    """
    current = value
    walked: list[PathSegment] = []  # the resolved part, with list indexes as integers
    for segment in segments:
        here = format_path(walked)
        if isinstance(current, dict):
            if isinstance(segment, str) and segment in current:
                current = current[segment]
                walked.append(segment)
                continue
            if isinstance(segment, int):
                raise ArtifactPathError(
                    f"{_at(here)} is an object, not a list: select one of its keys. "
                    f"{_keys(current)}"
                )
            raise ArtifactPathError(f"{_at(here)} is an object without that key. {_keys(current)}")
        if isinstance(current, list):
            index = _as_index(segment)
            if index is None:
                raise ArtifactPathError(
                    f"{_at(here)} is a list of {len(current)} items, not an object: select an "
                    f"item by index, e.g. {format_path([*walked, 0])}"
                )
            if not -len(current) <= index < len(current):
                span = "it is empty" if not current else f"indexes run 0 to {len(current) - 1}"
                raise ArtifactPathError(f"{_at(here)} is a list of {len(current)} items: {span}")
            current = current[index]
            walked.append(index)
            continue
        raise ArtifactPathError(
            f"{_at(here)} is {describe_value(current)}, which has no fields or items"
        )
    return current


def describe_value(value: Any) -> str:
    """A short description of ``value``'s shape (never its content)."""
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if isinstance(value, str):
        return f"a string of {len(value)} chars"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"


def _quoted_key(text: str, position: int, segments: list[PathSegment]) -> int:
    # ["key"] or ['key']: the key is read as a JSON string (single quotes swapped for double).
    quote = text[position + 1 : position + 2]
    if quote not in ('"', "'"):
        raise ArtifactPathError(_SYNTAX)
    end = position + 2
    while end < len(text):
        if text[end] == "\\":
            end += 2
            continue
        if text[end] == quote:
            break
        end += 1
    if end >= len(text) or text[end + 1 : end + 2] != "]":
        raise ArtifactPathError(_SYNTAX)
    body = text[position + 2 : end]
    if quote == "'":
        body = body.replace('\\"', '"').replace("\\'", "'").replace('"', '\\"')
    try:
        key = json.loads(f'"{body}"')
    except ValueError as exc:
        raise ArtifactPathError(_SYNTAX) from exc
    segments.append(key)
    return end + 2


def _as_index(segment: PathSegment) -> int | None:
    if isinstance(segment, int):
        return segment
    if segment.isdigit():
        return int(segment)
    return None


def _at(here: str) -> str:
    return "the whole value" if here == "$" else f"the value at {here}"


def _keys(value: dict[str, Any]) -> str:
    if not value:
        return "It has no keys."
    names = [_short(key) for key in list(value)[:LISTED_KEYS]]
    more = f" (and {len(value) - LISTED_KEYS} more)" if len(value) > LISTED_KEYS else ""
    return f"Its keys: {', '.join(names)}{more}."


def _short(key: str) -> str:
    shown = key if _PLAIN_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)
    return shown if len(shown) <= _KEY_CHARS else shown[: _KEY_CHARS - 1] + "…"
