"""The input schema of a function tool with simple parameters, without building a model.

Building a pydantic model costs about half a millisecond per tool, and a render needs only the
schema. For parameters of the common simple types (``str``, ``int``, ``float``, ``bool``, a
``Literal`` of strings or of integers, ``list`` of those, and ``X | None``) with JSON-literal
defaults, this module writes the schema pydantic would generate, byte for byte; the model is
then built at the first call, where validation needs it. Anything else answers ``None`` and the
model's own schema is used. A property test (``tests/contract/test_simple_schema.py``) checks
the two agree for generated signatures.
"""

from __future__ import annotations

import math
import types
from typing import Any, Literal, Union, get_args, get_origin

from nucleo_core.tools.schema import FunctionSignature

__all__ = ["simple_input_schema"]

_SCALARS: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NONE_TYPE = type(None)


def simple_input_schema(signature: FunctionSignature, title: str) -> dict[str, Any] | None:
    """The schema pydantic would publish for ``signature``'s model, or ``None`` if not simple."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in signature.parameters:
        if parameter.field_name != parameter.name:
            return None
        described = _describe(parameter.annotation)
        if described is None:
            return None
        if parameter.default is ...:
            required.append(parameter.name)
        elif _json_literal(parameter.default):
            described["default"] = parameter.default
        else:
            return None
        if parameter.description is not None:
            described["description"] = parameter.description
        described["title"] = parameter.name.title().replace("_", " ").strip()
        properties[parameter.name] = dict(sorted(described.items()))
    schema: dict[str, Any] = {"additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = required
    schema["title"] = title
    schema["type"] = "object"
    return schema


def _describe(annotation: object) -> dict[str, Any] | None:
    scalar = _SCALARS.get(annotation)
    if scalar is not None:
        return {"type": scalar}
    origin = get_origin(annotation)
    if origin is Literal:
        return _literal(get_args(annotation))
    if origin is list:
        args = get_args(annotation)
        if len(args) != 1:
            return None
        items = _describe(args[0])
        if items is None or "anyOf" in items:
            return None
        return {"items": dict(sorted(items.items())), "type": "array"}
    if origin is Union or origin is types.UnionType:
        members = get_args(annotation)
        if len(members) != 2 or _NONE_TYPE not in members:
            return None
        (inner,) = (member for member in members if member is not _NONE_TYPE)
        described = _describe(inner)
        if described is None or "anyOf" in described:
            return None
        return {"anyOf": [dict(sorted(described.items())), {"type": "null"}]}
    return None


def _literal(values: tuple[object, ...]) -> dict[str, Any] | None:
    if not values:
        return None
    if all(type(value) is str for value in values):
        kind = "string"
    elif all(type(value) is int for value in values):
        kind = "integer"
    else:
        return None
    if len(set(values)) != len(values):
        return None
    if len(values) == 1:
        return {"const": values[0], "type": kind}
    return {"enum": list(values), "type": kind}


def _json_literal(value: object) -> bool:
    if value is None or type(value) in (str, int, bool):
        return True
    return type(value) is float and math.isfinite(value)
