"""Canonical JSON, and the digest of a tool call's arguments.

The audit record and the approvals bind to *what was asked* through a digest, so the same
arguments must give the same bytes in every process, whatever order their keys came in.
`canonical_json` writes:

- JSON as Python's `json` module writes it, with **keys sorted** (by code point), **no
  whitespace** (``","`` and ``":"`` separators) and **non-ASCII characters kept**
  (``ensure_ascii=False``), encoded as UTF-8 where bytes are needed;
- ``str``, ``int``, ``bool`` and ``None`` as themselves; a finite ``float`` in its shortest
  round-tripping form (``1.0`` stays ``1.0``); ``NaN``, ``Infinity`` and ``-Infinity`` (which
  JSON cannot hold) as the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``;
- a mapping as an object. A key that is not a string is written as `json` writes it
  (``1`` → ``"1"``, ``True`` → ``"true"``, ``None`` → ``"null"``); two keys that become the
  same string are refused;
- a list or tuple as an array, in order; a set or frozenset as an array sorted by each
  member's canonical JSON;
- ``bytes``/``bytearray`` as ``{"$bytes": "<standard base64>"}``;
- a ``datetime``, ``date`` or ``time`` as its ISO 8601 string (``isoformat()``); a
  ``Decimal``, ``UUID`` or path as its ``str()``; an ``Enum`` member as its value;
- a pydantic model as its ``model_dump(mode="json")``; a dataclass instance as the object of
  its fields;
- anything else is refused with `AuditValueError`, which names the type, never the value.

`arguments_digest` is the SHA-256 of that text, in lowercase hex (`sha256_hex`, which the
audit record's chain digests use too).
"""

from __future__ import annotations

import json
import json.encoder
import math
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from nucleo_core.guard.audit.errors import AuditValueError

__all__ = ["arguments_digest", "canonical_json", "sha256_hex"]

# One encoder, built once: `json.dumps` with options builds a new one per call.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
_encode = _ENCODER.encode


def _refuse(value: object) -> object:
    raise TypeError(type(value).__qualname__)


# The C encoder `_ENCODER.encode` builds anew on every call, built once (same options), for
# the fast path that runs on every tool call. Without the circular-reference markers: a value
# holding itself is not JSON, and fails as it did (by recursion) on the slow path.
_c_encoder = getattr(json.encoder, "c_make_encoder", None)
_encode_fast = (
    None
    if _c_encoder is None
    else _c_encoder(None, _refuse, encode_basestring, None, ":", ",", True, False, False)
)


def canonical_json(value: object) -> str:
    """``value`` as canonical JSON text (see the module's documentation for the rules).

    Raises:
        AuditValueError: ``value`` holds something with no canonical form (the message names
            its type), or a mapping whose keys collide once written as strings.
    """
    try:
        # The fast path: plain JSON values, which is what tool arguments almost always are.
        if _encode_fast is not None and isinstance(value, dict):
            return "".join(_encode_fast(value, 0))
        return _encode(value)
    except (TypeError, ValueError):
        pass
    return _encode(_plain(value, "arguments"))


def arguments_digest(arguments: object) -> str:
    """The SHA-256, in lowercase hex, of ``arguments``' canonical JSON in UTF-8.

    Raises:
        AuditValueError: as `canonical_json` does.
    """
    return sha256_hex(canonical_json(arguments))


if TYPE_CHECKING:
    from hashlib import _Hash

# hashlib is imported on the first digest, not with the package (``import nucleo_core`` stays
# free of it); the function is then kept here, so each digest costs no import statement.
_sha256: Callable[[bytes], _Hash] | None = None


def sha256_hex(text: str) -> str:
    """The SHA-256 of ``text`` in UTF-8, in lowercase hex."""
    global _sha256
    if _sha256 is None:
        import hashlib

        _sha256 = hashlib.sha256
    return _sha256(text.encode()).hexdigest()


def _plain(value: object, where: str) -> Any:
    """``value`` rebuilt from JSON's own types, by the rules of the module's documentation."""
    # Imported here: only a value that is not plain JSON comes this way.
    import base64
    import dataclasses
    from datetime import date, datetime, time
    from decimal import Decimal
    from enum import Enum
    from pathlib import PurePath
    from uuid import UUID

    if value is None or isinstance(value, (str, bool, int)):
        # An int or str subclass (an IntEnum, a StrEnum) is written as the int or str it is.
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        plain: dict[str, Any] = {}
        for key, member in value.items():
            name = _key(key, where)
            if name in plain:
                raise AuditValueError(
                    f"{where}: two keys are both written as the same JSON string; "
                    "use distinct string keys"
                )
            plain[name] = _plain(member, f"{where}.{name}")
        return plain
    if isinstance(value, (list, tuple)):
        return [_plain(member, f"{where}[{index}]") for index, member in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        members = [_plain(member, f"{where}[]") for member in value]
        return sorted(members, key=_encode)
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (Decimal, UUID, PurePath)):
        return str(value)
    if isinstance(value, Enum):
        return _plain(value.value, where)
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return _plain(dump(mode="json"), where)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
        return _plain(fields, where)
    raise AuditValueError(
        f"{where}: a value of type {type(value).__qualname__} has no canonical JSON form; "
        "pass JSON values (str, int, float, bool, None, lists and mappings of them)"
    )


def _key(key: object, where: str) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        # json's own conversion of a non-string key, so both paths agree.
        try:
            written = _encode({key: 0})
        except ValueError:  # NaN or an infinity: no JSON form at all
            written = json.dumps({_plain(key, where): 0})
        return str(json.loads(written).popitem()[0])
    raise AuditValueError(
        f"{where}: a mapping key of type {type(key).__qualname__} cannot be a JSON key; "
        "use string keys"
    )
