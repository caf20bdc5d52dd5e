"""`SchemaInput`: a call's input checked against a JSON Schema the tool publishes as it is.

nucleo's own tools are declared in Python and parsed with pydantic. A provider that brings
tools from elsewhere — an MCP server, an ``llm`` plugin, a tool pack's own provider — has
only a JSON Schema, and must still refuse bad input the way the call door expects: an
`InvalidToolInput` naming each field path and its declared type or constraint, never the
value the model sent. `SchemaInput` does that, and is what such a provider's ``parse_input``
calls. The three ``*_input`` functions build the same errors for a provider that validates
on its own.

Example:
    >>> from nucleo_core.tools.schema_input import SchemaInput
    >>> schema = {"type": "object", "properties": {"city": {"type": "string"}},
    ...           "required": ["city"]}
    >>> SchemaInput("weather", schema).parse('{"city": "Oslo"}')
    {'city': 'Oslo'}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, final

from nucleo_core.tools import _input_errors
from nucleo_core.tools._quick_check import Check, quick_check
from nucleo_core.tools._raw_input import check_input, decoded_input

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaValidationError
    from jsonschema.protocols import Validator
    from pydantic import ValidationError

    from nucleo_core.errors import InvalidToolInput
    from nucleo_core.tools.provider import RawInput

__all__ = [
    "SchemaInput",
    "invalid_jsonschema_input",
    "invalid_pydantic_input",
    "not_json_input",
]


@final
class SchemaInput:
    """Parses a tool call's input against a published JSON Schema, with model-safe errors.

    The schema is read in its own dialect (``$schema``), Draft 2020-12 when it names none, as
    MCP does. Common simple schemas (``type``, ``properties``, ``required``, string ``enum``,
    bounds) get a quick check that answers a certainly valid input in well under a
    microsecond; anything else, and every invalid input, is decided by ``jsonschema``. Both
    are built at the first call, so making one costs nothing. Safe to share between threads.

    Args:
        tool: The tool's name, as the errors name it.
        schema: The input schema as published (not copied: do not mutate it).
    """

    __slots__ = ("_quick", "_schema", "_tool", "_validator")

    def __init__(self, tool: str, schema: Mapping[str, Any]) -> None:
        self._tool = tool
        self._schema = schema
        self._quick: Check | bool | None = False  # False: not made yet; None: none applies
        self._validator: Validator | None = None

    @property
    def tool(self) -> str:
        """The tool's name, as the errors name it."""
        return self._tool

    @property
    def schema(self) -> Mapping[str, Any]:
        """The input schema the input is checked against."""
        return self._schema

    def parse(self, raw: RawInput) -> dict[str, Any]:
        """The call's arguments, checked against the schema.

        Args:
            raw: The model's input: JSON text, or an already decoded value.

        Returns:
            The arguments, as a new dict.

        Raises:
            InvalidToolInput: ``raw`` is not JSON, or does not fit the schema; it names each
                failing field path and its declared type or constraint. The validator's own
                message, which may quote the input, is only its ``__cause__``.
        """
        data = decoded_input(self._tool, raw)
        quick = self._quick
        if quick is False:
            quick = self._quick = quick_check(self._schema)
        if callable(quick) and quick(data):  # certainly valid: jsonschema would say so too
            return dict(data)
        validator = self._validator
        if validator is None:
            validator = self._validator = _validator_for(self._schema)
        check_input(self._tool, validator, data, self._schema)
        return dict(data)


def not_json_input(tool: str) -> InvalidToolInput:
    """The error for an input that is not JSON at all (raise it ``from`` the decode error)."""
    return _input_errors.not_json(tool)


def invalid_jsonschema_input(
    tool: str, errors: Iterable[SchemaValidationError], schema: Mapping[str, Any]
) -> InvalidToolInput:
    """The error for ``jsonschema``'s ``errors`` against ``schema``, worded from the schema.

    Args:
        tool: The tool's name.
        errors: ``jsonschema``'s validation errors; only their rules and paths are read.
        schema: The published schema the field paths and declared types are read from.
    """
    return _input_errors.from_jsonschema(tool, errors, schema)


def invalid_pydantic_input(
    tool: str, error: ValidationError, schema: Mapping[str, Any]
) -> InvalidToolInput:
    """The error for pydantic's ``error`` against ``schema``, worded from the schema.

    Args:
        tool: The tool's name.
        error: pydantic's validation error; only its failure kinds and locations are read.
        schema: The published (JSON) schema of the model that failed.
    """
    return _input_errors.from_pydantic(tool, error, schema)


def _validator_for(schema: Mapping[str, Any]) -> Validator:
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    validator: Validator = validator_for(schema, default=Draft202012Validator)(schema)
    return validator
