"""A call's raw input, read the one way every provider that validates against JSON Schema does.

A provider gets a call's input as JSON text or as an already decoded value. `decoded_input`
decodes it (refusing text that is not JSON); `check_input` refuses a value its validator finds
errors in, with an `InvalidToolInput` worded from the schema, never from the value
(`nucleo_core.tools._input_errors`). `SchemaInput` is both, with a quick check in front.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.tools import _input_errors

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from nucleo_core.tools.provider import RawInput

__all__ = ["check_input", "decoded_input"]

_TEXT = (str, bytes, bytearray)


def decoded_input(tool: str, raw: RawInput | object) -> Any:
    """``raw`` as a value: JSON text decoded, a mapping copied to a dict, anything else as is.

    Anything else goes on as is so that the validator reports "must be a JSON object" in its
    own terms.

    Raises:
        InvalidToolInput: ``raw`` is text that is not JSON (``tool`` names the tool).
    """
    if isinstance(raw, _TEXT):
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise _input_errors.not_json(tool) from exc
    return dict(raw) if isinstance(raw, Mapping) else raw


def check_input(tool: str, validator: Validator, data: Any, schema: Mapping[str, Any]) -> None:
    """Refuse ``data`` if ``validator`` finds an error in it; return if it finds none.

    Raises:
        InvalidToolInput: Names each failing field path (in path order) and its declared type
            or constraint, from ``schema``; the first validator error is its ``__cause__``.
    """
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.path)))
    if errors:
        raise _input_errors.from_jsonschema(tool, errors, schema) from errors[0]
