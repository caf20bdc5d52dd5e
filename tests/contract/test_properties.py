"""Properties of the registry and of input refusals, checked over generated cases."""

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

import hypothesis.strategies as st
import pytest
from _sample_tools import StaticProvider
from hypothesis import assume, given
from pydantic import BaseModel, ConfigDict, Field

from nucleo_core import (
    ClassToolProvider,
    FunctionToolProvider,
    InvalidToolInput,
    Phase,
    Tool,
    ToolCollisionError,
    ToolProvider,
    ToolRegistry,
    tool,
)

# ================================================================================================
# register / unregister are state-idempotent in any order
# ================================================================================================


class PoolInput(BaseModel):
    text: str


@tool
def alpha(text: str) -> str:
    """Alpha."""
    return text


@tool
def beta(text: str) -> str:
    """Beta."""
    return text


@tool(name="dup")
def dup_first(text: str) -> str:
    """The first function claiming 'dup'."""
    return text


@tool(name="dup")
def dup_second(text: str) -> str:
    """The second function claiming 'dup'."""
    return text


@tool(name="gamma")
class GammaFirst(Tool[PoolInput, str]):
    """The first class claiming 'gamma'."""

    def run(self, input: PoolInput) -> str:
        return input.text


@tool(name="gamma")
class GammaSecond(Tool[PoolInput, str]):
    """The second class claiming 'gamma'."""

    def run(self, input: PoolInput) -> str:
        return input.text


DELTA_FIRST = StaticProvider("delta")
DELTA_SECOND = StaticProvider("delta")
# A hand-written provider under a function tool's name: the two collide whichever comes first.
ALPHA_IMPOSTOR = StaticProvider("alpha")

POOL: list[Any] = [
    alpha,
    beta,
    dup_first,
    dup_second,
    GammaFirst,
    GammaSecond,
    DELTA_FIRST,
    DELTA_SECOND,
    ALPHA_IMPOSTOR,
]


def _identity(provider: ToolProvider) -> object:
    """What makes a registry entry this one: the class, the function, or the provider itself."""
    if isinstance(provider, ClassToolProvider):
        return provider.tool_class
    if isinstance(provider, FunctionToolProvider):
        return provider.function
    return provider


def _kind(item: Any) -> type:
    if isinstance(item, ToolProvider):
        return type(item)
    return ClassToolProvider if isinstance(item, type) else FunctionToolProvider


def _name(item: Any) -> str:
    return item.name if isinstance(item, ToolProvider) else item.__nucleo_tool__.name


def _observed(registry: ToolRegistry) -> list[tuple[str, object]]:
    return [(provider.name, _identity(provider)) for provider in registry.providers()]


class RegistryModel:
    """The simplest thing that could be a registry: an ordered list of (name, kind, identity)."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, type, object]] = []

    def state(self) -> list[tuple[str, object]]:
        return [(name, identity) for name, _, identity in self.entries]

    def _index(self, name: str) -> int | None:
        return next((i for i, entry in enumerate(self.entries) if entry[0] == name), None)

    def register(self, item: Any) -> bool:
        """Apply a registration; False when it must be refused as a collision."""
        name, kind = _name(item), _kind(item)
        index = self._index(name)
        if index is None:
            self.entries.append((name, kind, item))
        elif self.entries[index][1] is not kind:
            return False
        else:
            self.entries[index] = (name, kind, item)
        return True

    def unregister(self, item: Any) -> None:
        index = self._index(_name(item))
        if index is not None and self.entries[index][2] is item:
            del self.entries[index]

    def unregister_name(self, name: str) -> None:
        index = self._index(name)
        if index is not None:
            del self.entries[index]


Operation = tuple[str, int, bool]

an_operation = st.tuples(
    st.sampled_from(["register", "unregister", "unregister_name"]),
    st.integers(min_value=0, max_value=len(POOL) - 1),  # which pool item (repeats included)
    st.booleans(),  # for unregister_name: use the prefixed id native:<name>
)
operations = st.lists(an_operation, max_size=40)


def _apply(registry: ToolRegistry, model: RegistryModel, operation: Operation) -> None:
    """Apply one operation to the registry and the model alike, checking the outcome agrees."""
    action, index, prefixed = operation
    item = POOL[index]
    if action == "register":
        if model.register(item):
            registry.register(item)
        else:
            with pytest.raises(ToolCollisionError):
                registry.register(item)
    elif action == "unregister":
        model.unregister(item)
        registry.unregister(item)
    else:
        name = _name(item)
        model.unregister_name(name)
        registry.unregister(f"native:{name}" if prefixed else name)


@given(operations)
def test_register_and_unregister_match_a_simple_model_in_any_order(
    sequence: list[Operation],
) -> None:
    """After any sequence of registrations and removals, the registry holds what the model says."""
    registry, model = ToolRegistry(), RegistryModel()
    for operation in sequence:
        _apply(registry, model, operation)
        assert _observed(registry) == model.state()


@given(operations, an_operation)
def test_applying_an_operation_twice_equals_applying_it_once(
    prefix: list[Operation], operation: Operation
) -> None:
    """From any reachable state, repeating a register or unregister changes nothing further."""
    registry, model = ToolRegistry(), RegistryModel()
    for step in prefix:
        _apply(registry, model, step)
    _apply(registry, model, operation)
    once = _observed(registry)
    _apply(registry, model, operation)
    assert _observed(registry) == once == model.state()


# ================================================================================================
# the restricted surface is never larger than the unrestricted one
# ================================================================================================

SURFACE_POOL = [
    StaticProvider("t0"),
    StaticProvider("t1", read_only=True),
    StaticProvider("t2", restricting=True),
    StaticProvider("t3", read_only=True, restricting=True),
    StaticProvider("t4", source="mcp:srv:t4"),
    StaticProvider("t5", read_only=True, source="mcp:srv:t5"),
]
SURFACE_NAMES = [provider.name for provider in SURFACE_POOL]
# Restrictions and phases may name tools that are not registered, and spell them oddly.
NAMEABLE = [*SURFACE_NAMES, "ghost", "native:t0", "mcp:srv:t4"]

phases = st.one_of(
    st.none(),
    st.builds(
        Phase,
        st.sampled_from(["planning", "executing"]),
        st.one_of(st.none(), st.frozensets(st.sampled_from(NAMEABLE))),
        st.booleans(),
    ),
)
restriction_sets = st.dictionaries(
    st.sampled_from(["skill_a", "skill_b", "procedure"]),
    st.frozensets(st.sampled_from(NAMEABLE)),
    max_size=3,
)


def _is_subsequence(part: list[Any], whole: list[Any]) -> bool:
    remaining = iter(whole)
    return all(any(item == candidate for candidate in remaining) for item in part)


@given(
    st.permutations(SURFACE_POOL),
    restriction_sets,
    st.lists(st.sampled_from(["skill_a", "skill_b", "procedure"]), max_size=2),
    phases,
)
def test_the_restricted_surface_is_never_larger_than_the_unrestricted_one(
    order: list[StaticProvider],
    restrictions: dict[str, frozenset[str]],
    lifted: list[str],
    phase: Phase | None,
) -> None:
    """Under any restrictions and phase the surface shrinks: a subset, specs in the same order."""
    unrestricted = ToolRegistry(order)
    registry = ToolRegistry(order)
    for key, names in restrictions.items():
        registry.restrict(key, names)
    for key in lifted:
        registry.lift_restriction(key)
    registry.enter_phase(phase)

    reachable = registry.available_names()
    assert set(reachable) <= set(unrestricted.available_names())
    specs = registry.specs()
    assert _is_subsequence(specs, unrestricted.specs())
    assert _is_subsequence(registry.specs_for(None), unrestricted.specs())
    assert [spec.name for spec in specs] == reachable
    for name in SURFACE_NAMES:
        assert (registry.available(name) is not None) == (name in reachable)

    # The model: permitted by the phase, and inside the union of what is still active
    # (restricting tools always inside). Whether a restriction or phase may name a tool by its
    # prefixed id is left open, so the exact model is checked only for bare names.
    named = frozenset().union(*restrictions.values(), (phase.tools or ()) if phase else ())
    if any(":" in name for name in named):
        return
    active = [names for key, names in restrictions.items() if key not in lifted]
    union = frozenset().union(*active) if active else None
    expected = [
        provider.name
        for provider in order
        if (phase is None or phase.permits(provider))
        and (union is None or provider.name in union or provider.restricting)
    ]
    assert reachable == expected


# ================================================================================================
# a value the model sent never appears in a refusal
# ================================================================================================


class Inner(BaseModel):
    depth: int


class Form(BaseModel):
    model_config = ConfigDict(extra="forbid")

    count: int
    label: str = Field(max_length=5, pattern=r"^[a-z]+$")
    origin: Inner
    mode: Literal["fast", "slow"] = "fast"
    inner: Inner | None = None
    numbers: list[int] = Field(default_factory=list)
    tags: dict[str, int] = Field(default_factory=dict)


def narrow(schema: dict[str, Any]) -> dict[str, Any]:
    """Cap count and forbid undeclared fields: a refined schema is validated by jsonschema."""
    schema["properties"]["count"]["maximum"] = 10
    schema["additionalProperties"] = False
    return schema


@tool(name="form")
class FormTool(Tool[Form, str]):
    """Fill in the form."""

    def run(self, input: Form) -> str:
        return "ok"


@tool(name="refined_form", refiner=narrow)
class RefinedFormTool(Tool[Form, str]):
    """Fill in the form, under a refined schema."""

    def run(self, input: Form) -> str:
        return "ok"


@tool
def form_function(
    count: int,
    label: Annotated[str, Field(max_length=5, pattern=r"^[a-z]+$")],
    origin: Inner,
    mode: Literal["fast", "slow"] = "fast",
    inner: Inner | None = None,
    numbers: list[int] | None = None,
    tags: dict[str, int] | None = None,
) -> str:
    """Fill in the form, as a function."""
    return "ok"


@tool
def simple_form(
    count: int,
    label: str,
    mode: Literal["fast", "slow"] = "fast",
    numbers: list[int] | None = None,
) -> str:
    """Fill in the short form (simple types only: its schema is written without a model)."""
    return "ok"


LEAK_PROVIDERS = [
    ClassToolProvider(FormTool),
    ClassToolProvider(RefinedFormTool),
    FunctionToolProvider(form_function),
    FunctionToolProvider(simple_form),
]


VALID: dict[str, Any] = {
    "count": 1,
    "label": "ab",
    "origin": {"depth": 1},
    "mode": "fast",
    "inner": {"depth": 2},
    "numbers": [1, 2],
    "tags": {"k": 1},
}

# Where the secret goes: every declared type of the form, plus keys and the input as a whole.
SLOTS: dict[str, Callable[[str], object]] = {
    "int field": lambda secret: {**VALID, "count": secret},
    "constrained str field": lambda secret: {**VALID, "label": secret},
    "Literal field": lambda secret: {**VALID, "mode": secret},
    "nested model field": lambda secret: {**VALID, "origin": {"depth": secret}},
    "nested model itself": lambda secret: {**VALID, "origin": secret},
    "optional nested model": lambda secret: {**VALID, "inner": {"depth": secret}},
    "list[int] item": lambda secret: {**VALID, "numbers": [1, secret]},
    "dict value": lambda secret: {**VALID, "tags": {"k": secret}},
    "dict key": lambda secret: {**VALID, "tags": {secret: "not a number"}},
    "undeclared field": lambda secret: {**VALID, secret: 1},
    "undeclared nested field": lambda secret: {**VALID, "origin": {"depth": 1, secret: 1}},
    "whole input": lambda secret: secret,
    "list as input": lambda secret: [secret],
}


def _encode(payload: object, encoding: str) -> Any:
    if encoding == "mapping":
        # A str payload goes in as raw text: what a model sends when it sends no JSON at all.
        return payload
    text = json.dumps(payload, ensure_ascii=encoding == "json-ascii")
    if encoding == "bytes":
        return text.encode()
    if encoding == "truncated-json":
        return text[:-1]
    return text


ENCODINGS = ["mapping", "json-ascii", "json-unicode", "bytes", "truncated-json"]


def _refusal(provider: ToolProvider, raw: Any) -> InvalidToolInput | None:
    try:
        provider.parse_input(raw)
    except InvalidToolInput as error:
        return error
    return None


def _refusal_text(error: InvalidToolInput) -> str:
    """Everything a refusal shows without a stack trace."""
    return "\n".join([str(error), repr(error), *map(str, error.args), *error.problems])


def _spellings(secret: str) -> set[str]:
    """The secret as it is, and as JSON or repr would escape it."""
    return {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
    }


def _schema_derived_text() -> str:
    """Text a refusal may legitimately contain: the schemas, and the refusals of fixed probes."""
    parts = [json.dumps(provider.input_schema) for provider in LEAK_PROVIDERS]
    probes = ["@@@@@@@@", "99999999", "-1.5", "fast", "true", "null", "{}", "[]", '{"depth": 1}']
    for provider in LEAK_PROVIDERS:
        for place in SLOTS.values():
            for probe in probes:
                for encoding in ENCODINGS:
                    error = _refusal(provider, _encode(place(probe), encoding))
                    if error is not None:
                        parts.append(_refusal_text(error))
    return "\n".join(parts)


SCHEMA_DERIVED_TEXT = _schema_derived_text()

# Filter: a secret whose text (or escaped spelling) occurs in SCHEMA_DERIVED_TEXT - a field name
# such as "origin", a type word such as "integer", a phrase of a message template such as
# "declared type", the pattern "^[a-z]+$" - may appear in a refusal because the schema put it
# there, which is not a leak; such secrets are discarded. Every other secret must never appear.
secrets = st.text(min_size=6, max_size=40).filter(
    lambda secret: not any(form in SCHEMA_DERIVED_TEXT for form in _spellings(secret))
)


@given(
    secret=secrets,
    provider=st.sampled_from(LEAK_PROVIDERS),
    slot=st.sampled_from(sorted(SLOTS)),
    encoding=st.sampled_from(ENCODINGS),
)
def test_a_secret_sent_as_input_never_appears_in_the_refusal(
    secret: str, provider: ToolProvider, slot: str, encoding: str
) -> None:
    """Whatever field, type, refinement or encoding carries it, the sent value is never echoed."""
    error = _refusal(provider, _encode(SLOTS[slot](secret), encoding))
    # A secret can be a valid value by chance (e.g. "000001" for an int, or an undeclared key
    # of a nested model that ignores extras); there is then no refusal to inspect.
    assume(error is not None)
    assert error is not None
    shown = _refusal_text(error)
    for spelling in _spellings(secret):
        assert spelling not in shown
    assert error.problems
    assert all(problem.split(":", 1)[0] for problem in error.problems)


def test_the_probes_themselves_are_refused_without_echo() -> None:
    """The fixed probes behind the secret filter are refused and not echoed either."""
    for provider in LEAK_PROVIDERS:
        for place in SLOTS.values():
            error = _refusal(provider, _encode(place("@@@@@@@@"), "json-ascii"))
            if error is not None:
                assert "@@@@@@@@" not in _refusal_text(error)
