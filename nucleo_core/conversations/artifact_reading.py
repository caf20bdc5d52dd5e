"""What the two artifact tools do with an artifact: read a part of it, search it.

- `read_field`: for a JSON artifact, the value at a field path (see `artifact_paths`); for any
  artifact, ``lines:START-END`` (1-based, inclusive) reads a range of lines. A value too large
  to show whole is shown as an outline (keys and their shapes, or the length of a list) that
  says how to read further, so reading never floods the conversation.
- `search_content`: a case-insensitive substring search (no regular expressions). A JSON
  artifact is searched by value: each key or scalar that matches is listed with its field
  path; any other artifact by line, with line numbers.

Every result stays under `MAX_RESULT_CHARS`, below the custody threshold, so a read is never
kept as an artifact itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from nucleo_core.conversations.artifact import Artifact
from nucleo_core.conversations.artifact_paths import (
    PathSegment,
    describe_value,
    format_path,
    parse_path,
    resolve_path,
)
from nucleo_core.conversations.errors import ArtifactPathError, ArtifactSearchError

__all__ = ["MAX_RESULT_CHARS", "MAX_SEARCH_RESULTS", "parse_json", "read_field", "search_content"]

#: The longest text a read or a search returns.
MAX_RESULT_CHARS = 3500
#: The most matches a search lists.
MAX_SEARCH_RESULTS = 100
#: How much of one matching line (or value) a search shows.
_EXCERPT_CHARS = 200
_OUTLINE_ITEMS = 40
_LINES = re.compile(r"lines\s*:\s*(\d+)\s*(?:-\s*(\d*)\s*)?")
_NOT_JSON = object()


def parse_json(artifact: Artifact) -> Any:
    """The parsed content of a JSON artifact; a sentinel object when it is not JSON."""
    if not artifact.is_json:
        return _NOT_JSON
    try:
        return json.loads(artifact.content)
    except ValueError:
        return _NOT_JSON


def read_field(artifact: Artifact, path: str = "", *, parsed: Any = None) -> str:
    """Read the part of ``artifact`` that ``path`` names.

    Args:
        artifact: The artifact.
        path: A field path (JSON artifacts), ``lines:START-END``, or empty for the whole
            artifact (its outline, or its first lines, when too large).
        parsed: The artifact's parsed JSON, when the caller cached it (see `parse_json`).

    Raises:
        ArtifactPathError: The path is not valid, or does not resolve.
    """
    text = path.strip()
    if text.lower().startswith("lines"):
        return _read_lines(artifact, text)
    data = parse_json(artifact) if parsed is None else parsed
    if data is _NOT_JSON:
        if not text:
            return _read_lines(artifact, "lines:1-")
        raise ArtifactPathError(
            f"artifact {artifact.id} is {artifact.media_type}, not JSON: read it by line range "
            f'with path "lines:START-END" (1-based; it has {_line_count(artifact)} lines)'
        )
    segments = parse_path(text)
    return _show(resolve_path(data, segments), segments)


def search_content(
    artifact: Artifact, query: str, max_results: int = 10, *, parsed: Any = None
) -> str:
    """The places in ``artifact`` that contain ``query`` (case-insensitive), listed.

    Raises:
        ArtifactSearchError: The query is empty.
    """
    needle = query.strip().casefold()
    if not needle:
        raise ArtifactSearchError("the query is empty: give a word or phrase to look for")
    limit = min(max(max_results, 1), MAX_SEARCH_RESULTS)
    data = parse_json(artifact) if parsed is None else parsed
    if data is _NOT_JSON:
        hits = (
            f"line {number}: {_excerpt(line, needle)}"
            for number, line in enumerate(artifact.content.splitlines(), start=1)
            if needle in line.casefold()
        )
        unit, how = "lines", 'read around a match with path "lines:START-END"'
    else:
        hits = (f"{format_path(where)}: {shown}" for where, shown in _json_hits(data, needle))
        unit, how = "fields", "read one with get_artifact_field and its path"
    shown: list[str] = []
    total = 0
    size = 0
    for hit in hits:
        total += 1
        if len(shown) < limit and size + len(hit) < MAX_RESULT_CHARS:
            shown.append(hit)
            size += len(hit) + 1
    if not total:
        return f"Nothing in artifact {artifact.id} contains the query."
    head = f"{total} matching {unit} in artifact {artifact.id}"
    head += f"; the first {len(shown)}:" if len(shown) < total else ":"
    return "\n".join([head, *shown, f"({how})"])


# -- reading --------------------------------------------------------------------------------


def _read_lines(artifact: Artifact, spec: str) -> str:
    match = _LINES.fullmatch(spec)
    if match is None:
        raise ArtifactPathError(
            'a line range is written "lines:START-END", 1-based and inclusive, e.g. lines:1-50 '
            '(or "lines:START-" to read on to the end)'
        )
    lines = artifact.content.splitlines()
    count = len(lines)
    start = int(match.group(1))
    end_text = match.group(2)  # None: one line; "": on to the end
    end = start if end_text is None else count if not end_text else int(end_text)
    if count == 0:
        return f"Artifact {artifact.id} is empty."
    if start < 1 or start > count or end < start:
        raise ArtifactPathError(
            f"artifact {artifact.id} has {count} lines: ask for a range within 1-{count}, "
            "START not after END"
        )
    end = min(end, count)
    out: list[str] = []
    size = 0
    last = start - 1
    for number in range(start, end + 1):
        line = lines[number - 1]
        if len(line) > _EXCERPT_CHARS * 5:
            line = f"{line[: _EXCERPT_CHARS * 5]}… [{len(line)} chars in this line]"
        entry = f"{number}: {line}"
        if out and size + len(entry) > MAX_RESULT_CHARS:
            break
        out.append(entry)
        size += len(entry) + 1
        last = number
    header = f"Artifact {artifact.id}, lines {start}-{last} of {count}:"
    footer = [] if last >= end else [f'(to read on, ask for "lines:{last + 1}-{end}")']
    return "\n".join([header, *out, *footer])


def _line_count(artifact: Artifact) -> int:
    return len(artifact.content.splitlines())


def _show(value: Any, segments: tuple[PathSegment, ...]) -> str:
    where = format_path(segments)
    if isinstance(value, str):
        if len(value) <= MAX_RESULT_CHARS:
            return value
        return (
            f"{value[:MAX_RESULT_CHARS]}\n[... the string at {where} has {len(value)} chars; "
            "search_artifact_content finds text in it]"
        )
    rendered = json.dumps(value, ensure_ascii=False, indent=2)
    if len(rendered) <= MAX_RESULT_CHARS:
        return rendered
    return _outline(value, segments, len(rendered))


def _outline(value: Any, segments: tuple[PathSegment, ...], size: int) -> str:
    where = format_path(segments)
    lines = [f"The value at {where} is too large to show whole ({size} chars as JSON)."]
    if isinstance(value, dict):
        lines.append(f"It is an object of {len(value)} keys; read one with a longer path:")
        for key in list(value)[:_OUTLINE_ITEMS]:
            lines.append(f"  {format_path([*segments, key])}: {describe_value(value[key])}")
        if len(value) > _OUTLINE_ITEMS:
            lines.append(f"  ... and {len(value) - _OUTLINE_ITEMS} more keys")
    else:
        assert isinstance(value, list)  # strings and scalars are shown whole
        lines.append(f"It is a list of {len(value)} items; read one by index:")
        for index, item in enumerate(value[:_OUTLINE_ITEMS]):
            lines.append(f"  {format_path([*segments, index])}: {describe_value(item)}")
        if len(value) > _OUTLINE_ITEMS:
            lines.append(f"  ... and {len(value) - _OUTLINE_ITEMS} more items")
    return "\n".join(lines)


# -- searching ------------------------------------------------------------------------------


def _json_hits(value: Any, needle: str) -> Iterator[tuple[list[PathSegment], str]]:
    """Each (path, shown value) whose key or scalar value contains ``needle``, in order."""
    stack: list[tuple[list[PathSegment], Any]] = [([], value)]
    while stack:
        where, current = stack.pop()
        if isinstance(current, dict):
            children: list[tuple[list[PathSegment], Any]] = []
            for key, item in current.items():
                path: list[PathSegment] = [*where, key]
                if needle in key.casefold() and not isinstance(item, dict | list):
                    yield path, _excerpt(_scalar(item), needle)
                    continue
                if needle in key.casefold():
                    yield path, describe_value(item)
                children.append((path, item))
            stack.extend(reversed(children))
        elif isinstance(current, list):
            stack.extend(reversed([([*where, i], item) for i, item in enumerate(current)]))
        else:
            shown = _scalar(current)
            if needle in shown.casefold():
                yield where, _excerpt(shown, needle)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _excerpt(text: str, needle: str) -> str:
    if len(text) <= _EXCERPT_CHARS:
        return text
    at = text.casefold().find(needle)
    start = max(0, at - _EXCERPT_CHARS // 2) if at >= 0 else 0
    end = start + _EXCERPT_CHARS
    return f"{'…' if start else ''}{text[start:end]}{'…' if end < len(text) else ''}"
