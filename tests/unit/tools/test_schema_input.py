"""`SchemaInput`, the public way a provider checks a call's input against a published schema."""

from __future__ import annotations

import pytest

from nucleo_core import InvalidToolInput
from nucleo_core.tools import SchemaInput

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "units": {"enum": ["metric", "imperial"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}
#: A value only the model sent: no error may repeat it.
SECRET = "sk-live-4f9a-never-echo"


def test_a_valid_input_is_returned_as_a_new_dict_from_text_or_a_mapping() -> None:
    """JSON text and a decoded mapping both parse to a fresh dict of the arguments."""
    parser = SchemaInput("forecast", SCHEMA)
    given = {"city": "Oslo", "days": 3}
    parsed = parser.parse(given)
    assert parsed == given
    assert parsed is not given
    assert parser.parse('{"city": "Oslo", "units": "metric"}') == {
        "city": "Oslo",
        "units": "metric",
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"days": 3}, "city: is required (declared type: string)"),
        ({"city": 42}, "city: expected string"),
        ({"city": "Oslo", "days": 70}, "days: violates maximum=7"),
        ({"city": "Oslo", "units": SECRET}, "units: must be one of 'metric', 'imperial'"),
        ({"city": "Oslo", SECRET: 1}, "input: has an undeclared field; declared fields: city"),
    ],
)
def test_an_invalid_input_names_the_field_and_the_contract_never_the_value(
    raw: dict[str, object], expected: str
) -> None:
    """Each refusal names the field path and what the schema declares, and not what was sent."""
    with pytest.raises(InvalidToolInput) as refused:
        SchemaInput("forecast", SCHEMA).parse(raw)
    message = str(refused.value)
    assert refused.value.tool == "forecast"
    assert expected in message
    assert SECRET not in message


def test_text_that_is_not_json_is_refused_without_repeating_it() -> None:
    """Input text that does not decode is one problem: not valid JSON, the text not quoted."""
    with pytest.raises(InvalidToolInput, match="input: is not valid JSON") as refused:
        SchemaInput("forecast", SCHEMA).parse(f"{{city: {SECRET}")
    assert SECRET not in str(refused.value)


def test_a_schema_outside_the_quick_checks_kind_is_decided_by_jsonschema() -> None:
    """A ``pattern`` (no quick check) still refuses what does not match and accepts what does."""
    parser = SchemaInput("tag", {"type": "object", "properties": {"t": {"pattern": "^[a-z]+$"}}})
    assert parser.parse({"t": "abc"}) == {"t": "abc"}
    with pytest.raises(InvalidToolInput, match="t: must match pattern"):
        parser.parse({"t": "ABC"})
