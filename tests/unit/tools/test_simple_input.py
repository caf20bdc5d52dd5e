"""A function of simple parameters is validated without a model class, exactly as pydantic would.

`simple_input_model` builds the core validator pydantic builds for the tool's input model; these
tests hold its answers (values, failure kinds and locations) to the pydantic model's own for
generated signatures and inputs, and check what ``parse_input`` returns reads like the model.
"""

from __future__ import annotations

import json
import keyword
import math
from typing import Any, Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from nucleo_core import InvalidToolInput, provider_for, tool
from nucleo_core.tools._simple_schema import SimpleInput, simple_input_model, simple_input_schema
from nucleo_core.tools.schema import FunctionParameter, FunctionSignature, function_input_model

_string_literals = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=3, unique=True)
_int_literals = st.lists(st.integers(-20, 20), min_size=1, max_size=3, unique=True)
_simple = st.one_of(
    st.sampled_from([str, int, float, bool]),
    _string_literals.map(lambda values: Literal[tuple(values)]),
    _int_literals.map(lambda values: Literal[tuple(values)]),
)
_annotations = st.one_of(
    _simple,
    _simple.map(lambda inner: list[inner]),  # type: ignore[valid-type]
    _simple.map(lambda inner: Optional[inner]),  # noqa: UP045  # both spellings must agree
    _simple.map(lambda inner: inner | None),
)
_defaults = st.one_of(
    st.just(...), st.none(), st.integers(-100, 100), st.text(max_size=6), st.booleans()
)
_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda name: (
        not keyword.iskeyword(name)
        and not name.startswith("model_")
        and name not in {"copy", "dict", "json", "schema", "construct", "validate", "fields"}
    )
)
#: JSON-like values of every kind the simple types could be sent (and some they refuse).
_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-30, 30)
    | st.floats(allow_nan=False, width=32)
    | st.text(max_size=6)
    | st.sampled_from(["1", "true", "2.5", "fast", "0"]),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _signatures(draw: st.DrawFn) -> FunctionSignature:
    names = draw(st.lists(_names, max_size=4, unique=True))
    parameters = tuple(
        FunctionParameter(
            name=name,
            field_name=name,
            annotation=draw(_annotations),
            default=draw(_defaults),
            description=draw(st.none() | st.text(min_size=1, max_size=10)),
        )
        for name in names
    )
    return FunctionSignature(parameters=parameters, output_type=None)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[FunctionSignature, object]:
    signature = draw(_signatures())
    names = [parameter.name for parameter in signature.parameters]
    keys = st.sampled_from(names) | _names if names else _names
    data = draw(st.dictionaries(keys, _values, max_size=5))
    raw: object = draw(st.sampled_from([data, data, data, [data], "text", None]))
    return signature, raw


def _sample() -> None:
    """A stand-in function the generated models are attributed to."""


def _outcome(validate: Any, raw: object) -> object:
    try:
        return ("valid", validate(raw).__dict__)
    except ValidationError as exc:
        failures = exc.errors(include_url=False, include_context=False, include_input=False)
        return ("invalid", [(item["type"], item["loc"]) for item in failures])


@settings(max_examples=400, deadline=None)
@given(_cases())
def test_the_simple_validator_answers_as_the_pydantic_model_does(
    case: tuple[FunctionSignature, object],
) -> None:
    """Same values for a valid input; the same failure kinds at the same places otherwise."""
    signature, raw = case
    fast = simple_input_model(signature, "SampleInput")
    assert fast is not None
    model = function_input_model(_sample, signature, "SampleInput")
    assert _outcome(fast.model_validate, raw) == _outcome(model.model_validate, raw)
    text = json.dumps(raw)
    assert _outcome(fast.model_validate_json, text) == _outcome(model.model_validate_json, text)
    assert json.dumps(fast.model_json_schema()) == json.dumps(model.model_json_schema())


def test_a_parameter_type_outside_the_simple_set_gets_a_pydantic_model() -> None:
    """``dict[str, int]`` is not simple: there is no light class, the pydantic model is built."""
    signature = FunctionSignature(
        parameters=(FunctionParameter("when", "when", dict[str, int], ..., None),),
        output_type=None,
    )
    assert simple_input_model(signature, "SampleInput") is None

    @tool(risk="low")
    def count(when: dict[str, int]) -> int:
        """Count."""
        return len(when)

    provider = provider_for(count)
    assert issubclass(provider.input_type, BaseModel)
    assert isinstance(provider.parse_input({"when": {"a": 1}}), provider.input_type)


@tool(risk="low")
def search(query: str, mode: Literal["fast", "slow"], limit: int = 10) -> str:
    """Search the documents.

    Args:
        query: The words to look for.
        mode: How thorough.
        limit: The most results.
    """
    return f"{query}|{mode}|{limit}"


def test_parse_input_returns_the_input_class_named_as_the_model() -> None:
    """The value reads like the model's: repr, fields, dump, equality, the set fields."""
    provider = provider_for(search)
    parsed = provider.parse_input('{"query": "q", "mode": "fast"}')
    assert type(parsed) is provider.input_type is SimpleInput
    assert repr(parsed) == "SearchInput(query='q', mode='fast', limit=10)"
    assert (parsed.query, parsed.mode, parsed.limit) == ("q", "fast", 10)
    assert parsed.__dict__ == {"query": "q", "mode": "fast", "limit": 10}
    assert parsed.model_dump() == {"query": "q", "mode": "fast", "limit": 10}
    assert json.loads(parsed.model_dump_json()) == parsed.model_dump(mode="json")
    assert parsed.model_fields_set == {"query", "mode"}
    assert dict(parsed) == parsed.__dict__
    assert parsed == provider.parse_input({"query": "q", "mode": "fast", "limit": 10})
    assert parsed != provider.parse_input({"query": "q", "mode": "slow"})
    assert parsed.model_json_schema() == dict(provider.input_schema)
    assert provider.create().run(parsed) == "q|fast|10"


def test_a_dump_in_json_mode_writes_a_non_finite_float_as_null() -> None:
    """As pydantic's JSON mode does."""

    @tool(risk="low")
    def scale(factors: list[float]) -> str:
        """Scale."""
        return ""

    parsed = provider_for(scale).parse_input({"factors": [1.5, math.inf]})
    assert parsed.model_dump(mode="json") == {"factors": [1.5, None]}
    assert parsed.model_dump() == {"factors": [1.5, math.inf]}


def test_a_refusal_names_fields_and_types_and_never_the_value() -> None:
    """The simple validator's failures go through the same wording as a model's."""
    provider = provider_for(search)
    secret = "IGNORE-PREVIOUS-4711"
    with pytest.raises(InvalidToolInput) as caught:
        provider.parse_input({"query": 3, "mode": secret, "limit": secret, secret: 1})
    message = str(caught.value)
    assert secret not in message
    assert list(caught.value.problems) == [
        "query: expected string",
        "mode: must be one of 'fast', 'slow'",
        "limit: expected integer",
        "input: has an undeclared field; declared fields: query, mode, limit",
    ]
    with pytest.raises(InvalidToolInput, match="is required"):
        provider.parse_input("{}")
    with pytest.raises(InvalidToolInput, match="not valid JSON"):
        provider.parse_input('{"query": ' + secret)
    with pytest.raises(InvalidToolInput, match="must be a JSON object"):
        provider.parse_input([secret])


@pytest.mark.parametrize(
    ("annotation", "default", "field_name"),
    [
        (list[int | None], ..., "x"),
        (Optional[int | None], ..., "x"),  # noqa: UP045
        (dict[str, int], ..., "x"),
        (Literal[True], ..., "x"),
        (Literal["a", 1], ..., "x"),
        (list[int], [1], "x"),
        (float, math.inf, "x"),
        (str, ..., "param_x"),
        (int, None, "x"),
    ],
)
def test_the_validator_and_the_schema_take_the_fast_path_for_the_same_signatures(
    annotation: Any, default: Any, field_name: str
) -> None:
    """Either both have a fast path, or neither: a model is never half-described."""
    signature = FunctionSignature(
        parameters=(FunctionParameter("x", field_name, annotation, default, None),),
        output_type=None,
    )
    fast = simple_input_model(signature, "SampleInput")
    assert (fast is None) == (simple_input_schema(signature, "SampleInput") is None)


def test_tools_of_one_shape_share_a_validator_and_keep_their_names() -> None:
    """Same parameters: one validator; each value still names its own tool's model."""

    @tool(risk="low")
    def find_books(query: str, mode: Literal["fast", "slow"], limit: int = 10) -> str:
        """Find books."""
        return query

    first, second = provider_for(search), provider_for(find_books)
    one = first.parse_input({"query": "q", "mode": "fast"})
    other = second.parse_input({"query": "q", "mode": "fast"})
    assert first._input_model()._shape is second._input_model()._shape
    assert repr(one) == "SearchInput(query='q', mode='fast', limit=10)"
    assert repr(other) == "FindBooksInput(query='q', mode='fast', limit=10)"
    assert one != other  # values of two tools, as two models' instances are
    assert one.model_json_schema()["title"] == "SearchInput"
    assert other.model_json_schema()["title"] == "FindBooksInput"


def test_a_different_default_is_a_different_shape() -> None:
    """``0`` and ``False``, ``0.0`` and ``-0.0`` compare equal, yet are different defaults."""

    def signature(default: Any) -> FunctionSignature:
        return FunctionSignature(
            parameters=(FunctionParameter("x", "x", Optional[float], default, None),),  # noqa: UP045
            output_type=None,
        )

    models = [simple_input_model(signature(d), "SampleInput") for d in (0, False, 0.0, -0.0)]
    assert all(model is not None for model in models)
    defaults = [repr(model.model_validate({}).x) for model in models if model is not None]
    assert defaults == ["0", "False", "0.0", "-0.0"]
