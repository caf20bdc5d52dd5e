"""The fast schema path publishes exactly what pydantic would, for every simple signature."""

from __future__ import annotations

import json
import keyword
from typing import Any, Literal, Optional

from hypothesis import given, settings
from hypothesis import strategies as st

from nucleo_core.tools._simple_schema import simple_input_schema
from nucleo_core.tools.schema import FunctionParameter, FunctionSignature, function_input_model

_SCALARS: list[Any] = [str, int, float, bool]


def _literal(values: list[Any]) -> Any:
    return Literal[tuple(values)]


_string_literals = st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4, unique=True)
_int_literals = st.lists(st.integers(-50, 50), min_size=1, max_size=4, unique=True)
_simple = st.one_of(
    st.sampled_from(_SCALARS),
    _string_literals.map(_literal),
    _int_literals.map(_literal),
)
_annotations = st.one_of(
    _simple,
    _simple.map(lambda inner: list[inner]),  # type: ignore[valid-type]
    _simple.map(lambda inner: Optional[inner]),  # noqa: UP045  # both spellings must agree
    _simple.map(lambda inner: inner | None),
)
_defaults = st.one_of(
    st.just(...),
    st.none(),
    st.integers(-1000, 1000),
    st.text(max_size=10),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
_names = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda name: (
        not keyword.iskeyword(name)
        and not name.startswith("model_")
        and name not in {"copy", "dict", "json", "schema", "construct", "validate", "fields"}
    )
)


@st.composite
def signatures(draw: st.DrawFn) -> FunctionSignature:
    names = draw(st.lists(_names, min_size=0, max_size=5, unique=True))
    parameters = tuple(
        FunctionParameter(
            name=name,
            field_name=name,
            annotation=draw(_annotations),
            default=draw(_defaults),
            description=draw(st.none() | st.text(min_size=1, max_size=20)),
        )
        for name in names
    )
    return FunctionSignature(parameters=parameters, output_type=None)


def _sample() -> None:
    """A stand-in function the generated models are attributed to."""


@settings(max_examples=300, deadline=None)
@given(signatures())
def test_simple_schema_is_byte_identical_to_pydantic(signature: FunctionSignature) -> None:
    """Where the fast path answers, its schema serialises to the same bytes as pydantic's."""
    fast = simple_input_schema(signature, "SampleInput")
    model = function_input_model(_sample, signature, "SampleInput")
    if fast is not None:
        assert json.dumps(fast) == json.dumps(model.model_json_schema())


def test_simple_schema_declines_what_it_cannot_describe() -> None:
    """A parameter type outside the simple set falls back to pydantic (answers None)."""
    signature = FunctionSignature(
        parameters=(
            FunctionParameter(
                name="when",
                field_name="when",
                annotation=dict[str, int],
                default=...,
                description=None,
            ),
        ),
        output_type=None,
    )
    assert simple_input_schema(signature, "SampleInput") is None


def test_simple_schema_answers_for_the_common_shape() -> None:
    """The everyday shape (str, a Literal of strings, int with a default) takes the fast path."""
    signature = FunctionSignature(
        parameters=(
            FunctionParameter(
                name="query", field_name="query", annotation=str, default=..., description="q"
            ),
            FunctionParameter(
                name="mode",
                field_name="mode",
                annotation=Literal["fast", "balanced", "thorough"],
                default=...,
                description=None,
            ),
            FunctionParameter(
                name="limit", field_name="limit", annotation=int, default=10, description=None
            ),
        ),
        output_type=None,
    )
    fast = simple_input_schema(signature, "SearchInput")
    assert fast is not None
    model = function_input_model(_sample, signature, "SearchInput")
    assert json.dumps(fast) == json.dumps(model.model_json_schema())
