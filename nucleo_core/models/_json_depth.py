"""Bounds on the nesting of JSON a model sends, checked before anything recurses into it.

Python's ``json`` decoder and encoder, ``repr``, pydantic and jsonschema all recurse once per
level of nesting, so a reply whose tool arguments nest 10,000 deep raises ``RecursionError``
wherever it is first touched. Every boundary where model-sent JSON enters nucleo therefore
measures its depth first, without recursion, and refuses what nests deeper than
`MAX_JSON_DEPTH`:

- `loads` decodes text, refusing too-deep text with `JSONTooDeep` (a ``ValueError``);
- `exceeds` tells whether a decoded value is too deep;
- `tool_input` turns whatever a model sent as a tool's input into what a `ToolUseBlock` may
  hold: an object within the limit, or text. Too-deep input becomes its *cut form*: the
  beginning of its JSON text, up to the bracket past the limit, then ``…``. That form is
  bounded, is safe to store, render and send back, and still reads as too deep to
  `overflows`, so the response handler tells the model why its call was refused;
- `loads_cut` decodes a whole reply body that nests too deep for ``json`` itself, putting a
  `TooDeep` marker where each too-deep container was, so that one bad tool call does not
  make the rest of the reply unreadable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final, final

__all__ = [
    "MAX_JSON_DEPTH",
    "JSONTooDeep",
    "TooDeep",
    "exceeds",
    "loads",
    "loads_cut",
    "overflows",
    "render",
    "tool_input",
]

#: The deepest nesting of objects and arrays accepted in what a model sends: ``{"a": [1]}`` is
#: two levels deep. Real tool arguments nest a handful of levels; 100 leaves room for any
#: schema while staying far below the depth at which Python's own recursion gives out.
MAX_JSON_DEPTH: Final = 100

#: How many characters of a too-deep value's text are kept in its cut form.
_CUT_CHARS: Final = 1024
_CUT_MARK: Final = "…"

# A JSON string (possibly unterminated) or one bracket: strings are skipped whole, so a bracket
# inside one is not counted.
_TOKENS: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class JSONTooDeep(ValueError):
    """JSON nests objects and arrays deeper than the limit; it was not decoded.

    Attributes:
        limit: The deepest nesting allowed.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"the JSON nests objects and arrays more than {limit} levels deep")


@final
class TooDeep:
    """The marker `loads_cut` leaves where a container nested too deep was.

    Attributes:
        opener: The container's opening bracket, ``[`` or ``{``.
    """

    __slots__ = ("opener",)

    def __init__(self, opener: str) -> None:
        self.opener = opener

    def __repr__(self) -> str:
        return f"TooDeep({self.opener!r})"


def overflows(text: str, limit: int = MAX_JSON_DEPTH) -> int | None:
    """Where ``text`` first nests deeper than ``limit``: the index past that bracket, or ``None``.

    A linear scan with no recursion, so safe on text of any depth; brackets inside strings do
    not count. The text need not be valid JSON.
    """
    depth = 0
    for match in _TOKENS.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > limit:
                return match.end()
        elif char in "]}":
            depth = max(depth - 1, 0)
    return None


def loads(text: str | bytes | bytearray, limit: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads``, refusing text that nests deeper than ``limit`` before decoding it.

    Raises:
        JSONTooDeep: The text nests deeper than ``limit``.
        ValueError: The text is not JSON (``json.JSONDecodeError``, ``UnicodeDecodeError``).
    """
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8")
    if overflows(text, limit) is not None:
        raise JSONTooDeep(limit)
    try:
        return json.loads(text)
    except RecursionError as exc:  # a limit set beyond what the stack holds
        raise JSONTooDeep(limit) from exc


def exceeds(value: object, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``value`` nests mappings and lists deeper than ``limit`` (or holds a `TooDeep`).

    Iterative, so safe on a value of any depth (a cyclic value counts as too deep).
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, TooDeep):
            return True
        children: Any
        if isinstance(item, Mapping):
            children = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def render(value: object, limit: int = MAX_JSON_DEPTH, *, ascii_only: bool = False) -> str:
    """``value`` as JSON text (``json.dumps``'s layout); its cut form when it is too deep.

    Never raises: a value JSON cannot hold is written as the JSON string of its ``str``.
    ``ascii_only`` escapes non-ASCII characters, as ``json.dumps`` does by default.
    """
    if not exceeds(value, limit):
        try:
            return json.dumps(value, ensure_ascii=ascii_only, default=str)
        except (TypeError, ValueError, RecursionError):
            pass  # a key JSON cannot hold, a cycle through an unusual container
    return _render_iteratively(value, limit, ascii_only)


def tool_input(value: object, limit: int = MAX_JSON_DEPTH) -> Mapping[str, Any] | str:
    """What a `ToolUseBlock` holds for the tool input ``value`` a model sent.

    A mapping within the limit is kept (copied); text is kept unless it nests too deep; a
    too-deep mapping or text becomes its cut form; anything else (``null``, a list, a number)
    becomes its JSON text, which the response handler refuses as not an object.
    """
    if isinstance(value, str):
        end = overflows(value, limit)
        return value if end is None else _cut(value[:end])
    if isinstance(value, Mapping) and not exceeds(value, limit):
        return dict(value)
    return render(value, limit)


def loads_cut(text: str, limit: int) -> Any:
    """Decode ``text``, each container opening deeper than ``limit`` replaced by a `TooDeep`.

    For a whole reply body: what nests within the limit is decoded as ``json.loads`` would,
    so the rest of the reply stays readable.

    Raises:
        ValueError: The text is not JSON once the too-deep containers are taken out.
    """
    import secrets  # only for a reply too deep to decode: hashlib and hmac stay out of start-up

    token = f"\x00nucleo-too-deep-{secrets.token_hex(8)}"
    pieces: list[str] = []
    depth = 0
    kept_from = 0
    cut_from: int | None = None
    for match in _TOKENS.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth == limit + 1 and cut_from is None:
                pieces.append(text[kept_from : match.start()])
                cut_from = match.start()
        elif char in "]}":
            depth = max(depth - 1, 0)
            if depth == limit and cut_from is not None:
                pieces.append(json.dumps(token + text[cut_from]))
                kept_from, cut_from = match.end(), None
    if cut_from is not None:
        raise json.JSONDecodeError("unterminated container", text, cut_from)
    pieces.append(text[kept_from:])
    decoded = json.loads("".join(pieces))
    return _replace_token(decoded, token)


# -- internals --------------------------------------------------------------------------------


def _cut(text: str) -> str:
    return text[:_CUT_CHARS] + _CUT_MARK


def _replace_token(value: Any, token: str) -> Any:
    """``value`` with every string ``token`` + opener replaced by a `TooDeep`, in place."""
    markers = {token + opener: TooDeep(opener) for opener in "[{"}
    if isinstance(value, str):
        return markers.get(value, value)
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        entries = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in list(entries):
            if isinstance(child, str) and child in markers:
                item[key] = markers[child]
            elif isinstance(child, dict | list):
                stack.append(child)
    return value


_NO_KEY: Final = object()


def _render_iteratively(value: object, limit: int, ascii_only: bool) -> str:
    """JSON text of ``value`` written without recursion, cut past ``limit`` or `_CUT_CHARS`."""
    parts: list[str] = []
    size = 0
    stack: list[tuple[Iterator[tuple[object, object]], str, list[bool]]] = []

    def emit(text: str) -> None:
        nonlocal size
        parts.append(text)
        size += len(text)

    def begin(item: object) -> bool:
        """Write ``item``, or open it; ``False`` when it opens past the limit."""
        if isinstance(item, Mapping):
            opener, closer = "{", "}"
            children: Iterator[tuple[object, object]] = iter(item.items())
        elif isinstance(item, list | tuple):
            opener, closer = "[", "]"
            children = ((_NO_KEY, child) for child in item)
        elif isinstance(item, TooDeep):
            emit(item.opener)  # it was deeper than the limit: the cut form shows where
            return False
        else:
            emit(_scalar(item, ascii_only))
            return True
        emit(opener)
        if len(stack) + 1 > limit:
            return False
        stack.append((children, closer, [True]))
        return True

    complete = begin(value)
    while complete and stack and size <= _CUT_CHARS:
        children, closer, first = stack[-1]
        entry = next(children, None)
        if entry is None:
            emit(closer)
            stack.pop()
            continue
        key, child = entry
        if not first[0]:
            emit(", ")
        first[0] = False
        if key is not _NO_KEY:
            emit(_key(key, ascii_only) + ": ")
        complete = begin(child)
    text = "".join(parts)
    if complete and not stack and size <= _CUT_CHARS:
        return text
    return _cut(text)


def _key(key: object, ascii_only: bool) -> str:
    return json.dumps(key if isinstance(key, str) else str(key), ensure_ascii=ascii_only)


def _scalar(item: object, ascii_only: bool) -> str:
    if item is None or isinstance(item, bool | int | float | str):
        return json.dumps(item, ensure_ascii=ascii_only)
    return json.dumps(str(item), ensure_ascii=ascii_only)
