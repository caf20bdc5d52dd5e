"""A tool's pinned definition: its canonical JSON, its digest, and the diff of two of them.

What `nucleo_core.mcp.pins` pins and compares; kept apart from the store so that the digest and
the diff can be read (and tested) without SQLite.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import unicodedata
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "PINNED_FIELDS",
    "SHORT_DIGEST",
    "canonical_json",
    "changed_fields",
    "definition_diff",
    "definition_digest",
    "printable",
    "short_digest",
    "tool_definition",
]

#: The fields of a tool's descriptor that are pinned, in the order a diff shows them.
PINNED_FIELDS: Final = (
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
)
#: How many hex digits of a digest are shown, and are enough to name it in `PinStore.accept`.
SHORT_DIGEST: Final = 12


def tool_definition(descriptor: Mapping[str, Any]) -> dict[str, Any]:
    """The pinned part of a tool's ``tools/list`` descriptor (wire form).

    Only `PINNED_FIELDS` count; a field that is absent or ``null`` is left out, so an SDK that
    starts sending ``"title": null`` does not quarantine every tool.
    """
    return {key: descriptor[key] for key in PINNED_FIELDS if descriptor.get(key) is not None}


def canonical_json(definition: Mapping[str, Any]) -> str:
    """``definition`` as canonical JSON: sorted keys, no whitespace, UTF-8 kept as it is."""
    return json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def definition_digest(definition: Mapping[str, Any]) -> str:
    """The SHA-256 digest of ``definition``'s canonical JSON, as ``sha256:<hex>``."""
    encoded = canonical_json(definition).encode("utf-8")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def short_digest(digest: str) -> str:
    """A digest as shown in tables: ``sha256:`` and its first hex digits."""
    return digest[: len("sha256:") + SHORT_DIGEST]


def changed_fields(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> tuple[str, ...]:
    """The pinned fields whose values differ between ``old`` and ``new``, in diff order.

    Compared as canonical JSON, as the digest is: Python's ``True == 1 == 1.0`` must not hide a
    change the digest sees.
    """
    before = old or {}
    return tuple(
        key for key in PINNED_FIELDS if _canonical(before.get(key)) != _canonical(new.get(key))
    )


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def definition_diff(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> str:
    """A readable diff of two definitions: one unified diff per changed field.

    Each field is shown as pretty JSON (two-space indent, sorted keys); a string field is shown
    one JSON-quoted line per line of text, so that a long description diffs line by line.
    Control and format characters (escape sequences, bidirectional overrides, zero-width
    characters) are shown escaped: a server's text cannot rewrite the terminal it is read on.

    Args:
        old: The pinned definition, or ``None`` for a tool never pinned (all of it is new).
        new: The definition the server publishes now.

    Returns:
        The diffs, each headed ``--- FIELD (pinned)`` / ``+++ FIELD (now)``; ``""`` when the
        definitions are equal.
    """
    lines: list[str] = []
    before = old or {}
    for key in changed_fields(old, new):
        lines += difflib.unified_diff(
            _pretty_lines(before.get(key)),
            _pretty_lines(new.get(key)),
            fromfile=f"{key} (pinned)" if key in before else f"{key} (absent when pinned)",
            tofile=f"{key} (now)" if key in new else f"{key} (absent now)",
            lineterm="",
        )
    return "\n".join(lines)


def _pretty_lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [_escaped(json.dumps(line, ensure_ascii=False)) for line in value.split("\n")]
    pretty = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return _escaped(pretty).splitlines()


def printable(text: str) -> str:
    """``text`` safe to print: control and format characters (newlines too) as escapes.

    For a name a server chose (a tool's), shown in a message or a table.
    """
    return _escaped(text).replace("\n", "\\n")


def _escaped(text: str) -> str:
    """``text`` with every control, format or separator character as a ``u`` escape."""
    return "".join(_escape(char) if _unsafe(char) else char for char in text)


def _unsafe(char: str) -> bool:
    return char != "\n" and (unicodedata.category(char)[0] == "C" or char in "\u2028\u2029")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
