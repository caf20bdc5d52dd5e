"""`answer_problems`: whether an answer fits the form an MCP server's elicitation asked for.

Here, in the guard, because both sides of an elicitation check an answer with it: the MCP
client before it sends an answerer's form (`nucleo_core.mcp.elicitation`), and an approval of
kind ``elicitation`` before it keeps the content it is approved with
(`nucleo_core.guard.approval_store`). ``jsonschema`` is imported on the first check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["answer_problems"]

#: The value types a form answer may hold (the MCP specification's).
_VALUE_TYPES = (str, int, float, bool, type(None))


def answer_problems(schema: Mapping[str, Any], content: object) -> list[str]:
    """What makes ``content`` unfit as an answer to ``schema``: one line per problem.

    Each line names the field and the reason, never the value given. No problems means the
    answer may be sent.
    """
    if not isinstance(content, Mapping):
        return ["the answer must be an object of field values"]
    problems = []
    for key, value in content.items():
        if not isinstance(key, str):
            problems.append("every field name must be a string")
        elif not (
            isinstance(value, _VALUE_TYPES)
            or (isinstance(value, list) and all(isinstance(item, str) for item in value))
        ):
            problems.append(
                f"{key}: must be a string, a number, a boolean, null or a list of strings"
            )
    if problems:
        return problems
    try:
        from jsonschema import validators
        from jsonschema.exceptions import SchemaError
    except ImportError:  # pragma: no cover - jsonschema is a dependency of nucleo-core
        return ["the answer cannot be checked (jsonschema is not installed)"]
    try:
        validator_class = validators.validator_for(dict(schema))
        validator_class.check_schema(dict(schema))
    except SchemaError:
        return ["the server's requested schema is not a valid JSON Schema"]
    validator = validator_class(dict(schema))
    for error in sorted(validator.iter_errors(dict(content)), key=lambda e: list(e.path)):
        problems.append(_problem(error))
    return problems


def _problem(error: Any) -> str:
    """A validation error as ``field: reason``, from the schema's side only (never the value)."""
    where = ".".join(str(part) for part in error.path) or "the answer"
    keyword = error.validator
    expected = error.validator_value
    if keyword == "required":
        missing = [name for name in expected if name not in (error.instance or {})]
        return f"{', '.join(missing) or 'a field'}: required"
    if keyword == "additionalProperties":
        return f"{where}: holds a field the form does not ask for"
    if keyword == "type":
        return f"{where}: must be of type {expected}"
    if keyword in ("enum", "const", "oneOf", "anyOf"):
        return f"{where}: must be one of the values the form offers"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        relation = {
            "minimum": ">=",
            "maximum": "<=",
            "exclusiveMinimum": ">",
            "exclusiveMaximum": "<",
        }[keyword]
        return f"{where}: must be {relation} {expected}"
    if keyword in ("minLength", "maxLength", "minItems", "maxItems"):
        bound = "at least" if keyword.startswith("min") else "at most"
        unit = "characters" if keyword.endswith("Length") else "items"
        return f"{where}: must hold {bound} {expected} {unit}"
    if keyword == "format":
        return f"{where}: must be a valid {expected}"
    if keyword == "pattern":
        return f"{where}: must match the pattern {expected}"
    return f"{where}: does not satisfy {keyword}"
