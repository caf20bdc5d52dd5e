"""Compose `InvalidToolInput` from the contract, never from the payload.

Every message here is built from the published schema (field names, declared types, allowed
values, constraints) and from the *kind* of each failure. pydantic's and jsonschema's own
messages can quote the value the model sent, so they are never copied; the exception that
carried them is chained as ``__cause__`` by the caller.

A path segment is shown only when the schema declares it (a property name) or it is an array
index; a key the model invented is shown as ``<key>``, since the key itself is model text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nucleo_core.errors import InvalidToolInput

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaValidationError
    from pydantic import ValidationError

__all__ = ["from_jsonschema", "from_pydantic", "not_json", "pydantic_problems"]

# pydantic error types whose message template is filled only from the constraint (`ctx`), so
# it says what the schema requires and nothing of the input.
_CONSTRAINT_MESSAGES = frozenset(
    {
        "string_too_short",
        "string_too_long",
        "too_short",
        "too_long",
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
        "multiple_of",
        "string_pattern_mismatch",
        "finite_number",
        "decimal_max_digits",
        "decimal_max_places",
        "decimal_whole_digits",
    }
)
_NOT_AN_OBJECT = frozenset({"model_type", "model_attributes_type", "dict_type"})
_ROOT = "input"


def not_json(tool: str) -> InvalidToolInput:
    """The input is not JSON at all."""
    return InvalidToolInput(tool, [f"{_ROOT}: is not valid JSON; send a JSON object"])


def from_pydantic(tool: str, error: ValidationError, schema: Mapping[str, Any]) -> InvalidToolInput:
    """Describe a pydantic validation failure by field path and declared type."""
    return InvalidToolInput(tool, pydantic_problems(error, schema))


def pydantic_problems(
    error: ValidationError, schema: Mapping[str, Any], *, root: str | None = None
) -> list[str]:
    """One line per failure of ``error``, from ``schema`` and the failure kinds only.

    Args:
        error: pydantic's error; only its failure kinds and locations are read.
        schema: The published schema the paths and declared types are read from.
        root: When given, every path is rooted at it (``answer``, ``answer.city``); else
            fields are named bare (``city``) and the whole value is ``input``.
    """
    problems: list[str] = []
    for item in error.errors(include_url=False, include_context=True, include_input=False):
        kind = item["type"]
        path, at = _walk(schema, item["loc"])
        if root is None:
            path = path or _ROOT
        else:
            path = root if not path else (f"{root}{path}" if path[0] == "[" else f"{root}.{path}")
        declared = _describe(at, schema)
        if kind == "json_invalid":
            problems.append(f"{_ROOT}: is not valid JSON; send a JSON object")
        elif kind in _NOT_AN_OBJECT and not item["loc"]:
            problems.append(f"{path}: must be a JSON object ({_fields_hint(schema)})")
        elif kind == "missing":
            problems.append(f"{path}: is required (declared type: {declared})")
        elif kind == "extra_forbidden":
            problems.append(f"{path}: has an undeclared field; {_fields_hint(at, schema)}")
        elif kind in ("literal_error", "enum"):
            problems.append(f"{path}: must be {declared}")
        elif kind in _CONSTRAINT_MESSAGES:
            problems.append(f"{path}: {item['msg']} (declared type: {declared})")
        else:
            problems.append(f"{path}: expected {declared}")
    return _unique(problems)


def from_jsonschema(
    tool: str, errors: Iterable[SchemaValidationError], schema: Mapping[str, Any]
) -> InvalidToolInput:
    """Describe Draft 2020-12 validation failures by field path and declared constraint."""
    problems: list[str] = []
    for error in errors:
        bare, at = _walk(schema, tuple(error.absolute_path))
        path = bare or _ROOT
        rule, expected = error.validator, error.validator_value
        if rule == "required":
            present = error.instance if isinstance(error.instance, Mapping) else {}
            required = expected if isinstance(expected, list) else []
            missing = [name for name in required if name not in present]
            for name in missing:
                field_path = f"{bare}.{name}" if bare else name
                declared = _describe(_properties(at, schema).get(name, {}), schema)
                problems.append(f"{field_path}: is required (declared type: {declared})")
        elif rule in ("additionalProperties", "unevaluatedProperties"):
            problems.append(f"{path}: has an undeclared field; {_fields_hint(at, schema)}")
        elif rule == "type":
            problems.append(f"{path}: expected {_describe(at, schema)}")
        elif rule in ("enum", "const"):
            problems.append(f"{path}: must be {_describe(at, schema)}")
        elif rule in ("anyOf", "oneOf"):
            problems.append(f"{path}: expected {_describe(at, schema)}")
        elif rule in ("pattern", "format"):
            problems.append(f"{path}: must match {rule} {expected!r}")
        elif isinstance(expected, bool | int | float):
            problems.append(
                f"{path}: violates {rule}={expected} (declared type: {_describe(at, schema)})"
            )
        else:
            problems.append(
                f"{path}: violates the schema's '{rule}' rule (declared type: "
                f"{_describe(at, schema)})"
            )
    return InvalidToolInput(tool, _unique(problems))


def _walk(schema: Mapping[str, Any], location: Sequence[Any]) -> tuple[str, Mapping[str, Any]]:
    """Follow ``location`` through ``schema``: the shown path and the subschema reached.

    Stops at the first segment the schema does not declare, so no model-invented segment is
    followed; such a key is shown as ``<key>`` where the schema allows arbitrary keys.
    """
    path = ""
    at: Mapping[str, Any] = _resolve(schema, schema)
    for segment in location:
        if isinstance(segment, int) and not isinstance(segment, bool):
            items = at.get("items") or at.get("prefixItems")
            if isinstance(items, list):
                items = items[segment] if segment < len(items) else {}
            if not isinstance(items, Mapping):
                break
            path, at = f"{path}[{segment}]", _resolve(items, schema)
            continue
        properties = _properties(at, schema)
        if isinstance(segment, str) and segment in properties:
            path = f"{path}.{segment}" if path else segment
            at = _resolve(properties[segment], schema)
            continue
        extra = at.get("additionalProperties")
        if isinstance(segment, str) and isinstance(extra, Mapping):
            path = f"{path}[<key>]" if path else "<key>"
            at = _resolve(extra, schema)
            continue
        break  # a union member's tag or an undeclared key: report at the declared level
    return path, at


def _resolve(node: object, root: Mapping[str, Any]) -> Mapping[str, Any]:
    if not isinstance(node, Mapping):  # a boolean schema (true: anything), or no schema
        return {}
    seen = 0
    while isinstance(node.get("$ref"), str) and seen < 32:
        reference: str = node["$ref"]
        if not reference.startswith("#/"):
            return node
        target: Any = root
        for part in reference[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        node, seen = target if isinstance(target, Mapping) else {}, seen + 1
    return node


def _properties(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = _resolve(node, root).get("properties")
    return properties if isinstance(properties, Mapping) else {}


def _describe(node: object, root: Mapping[str, Any], depth: int = 0) -> str:
    node = _resolve(node, root)
    if depth > 4:
        return "a value matching the schema"
    if "const" in node:
        return f"the constant {_literal(node['const'])}"
    if isinstance(node.get("enum"), list):
        return "one of " + ", ".join(_literal(value) for value in node["enum"])
    for combinator in ("anyOf", "oneOf"):
        members = node.get(combinator)
        if isinstance(members, list) and members:
            return " or ".join(_describe(member, root, depth + 1) for member in members)
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(str(item) for item in kind)
    if kind == "array":
        items = node.get("items")
        if isinstance(items, Mapping) and items:
            return f"array of {_describe(items, root, depth + 1)}"
        return "array"
    if kind == "object" and isinstance(node.get("title"), str):
        return f"object ({node['title']})"
    if isinstance(kind, str):
        return kind + (f" ({node['format']})" if isinstance(node.get("format"), str) else "")
    return "a value matching the schema"


def _fields_hint(node: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> str:
    names = list(_properties(node, root if root is not None else node))
    return "declared fields: " + (", ".join(names) if names else "(none)")


def _literal(value: object) -> str:
    return f"'{value}'" if isinstance(value, str) else repr(value)


def _unique(problems: list[str]) -> list[str]:
    return list(dict.fromkeys(problems))
