"""A quick yes for a call's input against a published schema of the common, simple kind.

MCP tools publish JSON Schemas, checked with ``jsonschema``, which walks the schema keyword by
keyword on every call: about 6 µs for a one-field object, several times that within a busy
process. Most published schemas use a small set of keywords (``type``, ``properties``,
``required``, ``enum`` of strings, bounds), so `quick_check` turns such a schema once into nested
closures that answer whether an input is certainly valid, in well under a microsecond. It is a
plain interpreter of the schema: nothing from the schema (which comes from a server, trusted or
not) is ever compiled or evaluated.

``jsonschema`` stays the authority. A quick yes is given only where ``jsonschema`` says yes
(``tests/unit/mcp/test_input_check.py`` holds that as a property); a no means "ask
``jsonschema``", which decides and words the error. A schema with any keyword outside the set,
or a keyword of an unexpected shape, gets no quick check at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sized
from typing import Any, TypeAlias

__all__ = ["Check", "quick_check"]

#: True when the value is certainly valid; False when ``jsonschema`` must decide.
Check: TypeAlias = Callable[[Any], bool]

#: Keywords that only annotate: they never make an input invalid (``format`` included, which
#: ``jsonschema`` does not assert unless asked to, and nucleo does not ask).
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
    }
)
#: The dialects whose meaning of the keywords below is the one checked here.
_DIALECTS = frozenset(
    {
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
    }
)
_KEYWORDS = frozenset(
    {
        "$schema",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    }
)


def _is_integer(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "string": lambda value: isinstance(value, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
}


class _Unsupported(Exception):
    """The schema uses something the quick check does not cover."""


def quick_check(schema: object) -> Check | None:
    """The quick check of ``schema``, or ``None`` when it has keywords outside the set."""
    try:
        return _compile(schema, top=True)
    except _Unsupported:
        return None


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Unsupported
    return value


def _bound(value: object) -> float:
    # Kept as it is (an int is not made a float): jsonschema compares the value itself.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Unsupported
    return value


def _compile(schema: object, *, top: bool = False) -> Check:
    if schema is True:
        return lambda value: True
    if schema is False or not isinstance(schema, Mapping):
        raise _Unsupported  # a False schema rejects everything: jsonschema says so
    keys = set(schema) - _ANNOTATIONS
    if keys - _KEYWORDS:
        raise _Unsupported
    if "$schema" in schema and (not top or schema["$schema"] not in _DIALECTS):
        raise _Unsupported
    checks: list[Check] = []
    if "type" in schema:
        checks.append(_type(schema["type"]))
    if "enum" in schema or "const" in schema:
        checks.append(_choices(schema))
    checks += _string_checks(schema) + _number_checks(schema)
    checks += _object_checks(schema) + _array_checks(schema)
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)
    return lambda value: all(check(value) for check in every)


def _type(declared: object) -> Check:
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list) or not names:
        raise _Unsupported
    try:
        checks = tuple(_TYPES[name] for name in names)
    except (KeyError, TypeError):
        raise _Unsupported from None
    if len(checks) == 1:
        return checks[0]
    return lambda value: any(check(value) for check in checks)


def _choices(schema: Mapping[str, Any]) -> Check:
    # Only strings and null: their equality is Python's (1 == True, 1 == 1.0 are not JSON's).
    allowed: list[object] = []
    if "enum" in schema:
        if not isinstance(schema["enum"], list):
            raise _Unsupported
        allowed += schema["enum"]
    if "const" in schema:
        allowed.append(schema["const"])
    if not all(item is None or isinstance(item, str) for item in allowed):
        raise _Unsupported
    strings = frozenset(item for item in allowed if isinstance(item, str))
    null = None in allowed
    if "enum" in schema and "const" in schema:
        enum = schema["enum"]
        const = schema["const"]
        return lambda value: (
            (value is None or isinstance(value, str)) and value == const and value in enum
        )
    return lambda value: (isinstance(value, str) and value in strings) or (value is None and null)


def _string_checks(schema: Mapping[str, Any]) -> list[Check]:
    return _size_checks(schema, str, "minLength", "maxLength")


def _size_checks(
    schema: Mapping[str, Any], kind: type[Sized], least: str, most: str
) -> list[Check]:
    """``least`` and ``most`` as bounds of ``len`` of values of ``kind`` (others pass)."""
    checks: list[Check] = []
    if least in schema:
        low = _count(schema[least])
        checks.append(lambda value: not isinstance(value, kind) or len(value) >= low)
    if most in schema:
        high = _count(schema[most])
        checks.append(lambda value: not isinstance(value, kind) or len(value) <= high)
    return checks


def _number_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "minimum" in schema:
        low = _bound(schema["minimum"])
        checks.append(lambda value: not _is_number(value) or not value < low)
    if "maximum" in schema:
        high = _bound(schema["maximum"])
        checks.append(lambda value: not _is_number(value) or not value > high)
    if "exclusiveMinimum" in schema:
        above = _bound(schema["exclusiveMinimum"])
        checks.append(lambda value: not _is_number(value) or not value <= above)
    if "exclusiveMaximum" in schema:
        below = _bound(schema["exclusiveMaximum"])
        checks.append(lambda value: not _is_number(value) or not value >= below)
    return checks


def _object_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping) or not all(isinstance(k, str) for k in properties):
        raise _Unsupported
    fields = {name: _compile(sub) for name, sub in properties.items()}
    if fields:
        pairs = tuple(fields.items())

        def each_property(value: object) -> bool:
            if not isinstance(value, dict):
                return True
            return all(check(value[name]) for name, check in pairs if name in value)

        checks.append(each_property)
    if "required" in schema:
        required = schema["required"]
        if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
            raise _Unsupported
        needed = tuple(required)
        checks.append(
            lambda value: not isinstance(value, dict) or all(name in value for name in needed)
        )
    if "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        known = frozenset(fields)
        if extra is True:
            pass
        elif extra is False:
            checks.append(lambda value: not isinstance(value, dict) or set(value) <= known)
        else:
            other = _compile(extra)
            checks.append(
                lambda value: (
                    not isinstance(value, dict)
                    or all(other(item) for name, item in value.items() if name not in known)
                )
            )
    return checks


def _array_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda value: not isinstance(value, list) or all(map(item, value)))
    return checks + _size_checks(schema, list, "minItems", "maxItems")
