"""Misdeclared tools fail at decoration with one error listing every problem; strict is eager."""

import dataclasses
from typing import Any

import pytest
from pydantic import BaseModel

from nucleo_core import (
    FunctionToolProvider,
    MisuseError,
    SchemaRefinementError,
    Tool,
    ToolDeclarationError,
    tool,
)
from nucleo_core.tools import STRICT_ENVIRONMENT_VARIABLE


class QueryInput(BaseModel):
    query: str


@dataclasses.dataclass
class NotAModel:
    query: str


class Opaque:
    """A plain class pydantic cannot describe as JSON."""


def _problem_matching(problems: tuple[str, ...], *words: str) -> str:
    """The single problem line containing every one of ``words``."""
    matching = [line for line in problems if all(word in line for word in words)]
    assert len(matching) == 1, (words, problems)
    return matching[0]


def test_a_misdeclared_function_fails_with_one_error_listing_every_problem() -> None:
    """Missing description, an unannotated parameter and a bad name are all reported at once."""
    with pytest.raises(ToolDeclarationError) as raised:

        @tool(name="bad name!")
        def lookup(key, limit: int = 3):  # type: ignore[no-untyped-def]
            return key

    error = raised.value
    assert isinstance(error, MisuseError)
    assert isinstance(error, TypeError)
    assert len(error.problems) == 3
    _problem_matching(error.problems, "missing description")
    assert "key" in _problem_matching(error.problems, "unannotated")
    assert "limit" not in _problem_matching(error.problems, "unannotated")
    _problem_matching(error.problems, "name must be")
    assert "lookup" in error.target
    for problem in error.problems:
        assert problem in str(error)


def test_a_misdeclared_class_fails_with_one_error_listing_every_problem() -> None:
    """Missing description, a bad name and a non-pydantic input type are all reported at once."""
    with pytest.raises(ToolDeclarationError) as raised:

        @tool(name="x" * 65)
        class Lookup(Tool[NotAModel, str]):  # type: ignore[type-var]
            def run(self, input: NotAModel) -> str:
                return input.query

    error = raised.value
    assert len(error.problems) == 3
    _problem_matching(error.problems, "missing description")
    _problem_matching(error.problems, "name must be")
    assert "NotAModel" in _problem_matching(error.problems, "not a pydantic model")
    assert "Lookup" in error.target


def test_a_class_that_is_not_a_tool_subclass_is_refused() -> None:
    """@tool on a class outside the Tool hierarchy says to subclass Tool."""
    with pytest.raises(ToolDeclarationError, match="subclass"):

        @tool
        class Helper:
            """Not a tool."""


def test_a_class_tool_without_input_type_or_run_is_refused() -> None:
    """An unparameterised Tool subclass lacking run reports both problems."""
    with pytest.raises(ToolDeclarationError) as raised:

        @tool
        class Incomplete(Tool):  # type: ignore[type-arg]
            """Does nothing yet."""

    assert len(raised.value.problems) == 2
    _problem_matching(raised.value.problems, "no input type")
    _problem_matching(raised.value.problems, "run")


def test_varargs_and_positional_only_parameters_are_refused() -> None:
    """Parameters a model cannot name are reported together."""
    with pytest.raises(ToolDeclarationError) as raised:

        @tool
        def spread(first: int, /, *rest: int, **options: str) -> int:
            """Add things."""
            return first

    _problem_matching(raised.value.problems, "*args")
    _problem_matching(raised.value.problems, "positional-only")


def test_invalid_keyword_arguments_are_all_reported() -> None:
    """A bad risk, weight and read_only are listed together with the other problems."""
    with pytest.raises(ToolDeclarationError) as raised:

        @tool(risk="catastrophic", weight=-1, read_only="yes")  # type: ignore[arg-type]
        def act(target: str) -> str:
            """Act on a target."""
            return target

    assert len(raised.value.problems) == 3
    _problem_matching(raised.value.problems, "risk must be")
    _problem_matching(raised.value.problems, "weight")
    _problem_matching(raised.value.problems, "read_only")


def test_tool_refuses_what_is_neither_class_nor_function() -> None:
    """@tool on a builtin function is refused at once."""
    with pytest.raises(ToolDeclarationError):
        tool(len)


@pytest.mark.parametrize(
    "name",
    ["", "has space", "x" * 65, "dotted.name", "slash/name", "ünïcode", "colon:name", "new\nline"],
)
def test_a_name_outside_the_provider_pattern_is_refused(name: str) -> None:
    """Names must match ^[a-zA-Z0-9_-]{1,64}$, the pattern every model provider accepts."""
    with pytest.raises(ToolDeclarationError, match="name must be"):

        @tool(name=name)
        def anything(value: int) -> int:
            """Return the value."""
            return value


@pytest.mark.parametrize("name", ["a", "x" * 64, "with-dash_and_123", "CamelCase", "0lead"])
def test_a_name_inside_the_provider_pattern_is_accepted(name: str) -> None:
    """Every name the pattern allows is accepted as declared."""

    @tool(name=name)
    def anything(value: int) -> int:
        """Return the value."""
        return value

    assert FunctionToolProvider(anything).name == name


def test_a_description_argument_satisfies_the_description_requirement() -> None:
    """description='...' stands in for a docstring."""

    @tool(description="Return the value.")
    def undocumented(value: int) -> int:
        return value

    assert FunctionToolProvider(undocumented).description == "Return the value."


# -- lazy by default, eager in strict mode -------------------------------------------------------


@pytest.fixture
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make sure the strict environment switch is off."""
    monkeypatch.delenv(STRICT_ENVIRONMENT_VARIABLE, raising=False)


@pytest.fixture
def strict_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the strict environment switch on."""
    monkeypatch.setenv(STRICT_ENVIRONMENT_VARIABLE, "1")


def _raising_refiner(schema: dict[str, Any]) -> dict[str, Any]:
    raise ValueError("refiner bug")


@pytest.mark.usefixtures("lenient")
def test_schemas_are_built_lazily_by_default() -> None:
    """Without strict, an undescribable parameter fails at the first schema read, not at @tool."""

    @tool
    def hold(handle: Opaque) -> str:
        """Hold a handle."""
        return "held"

    with pytest.raises(ToolDeclarationError):
        _ = FunctionToolProvider(hold).input_schema


@pytest.mark.usefixtures("lenient")
def test_strict_true_builds_the_schema_at_decoration() -> None:
    """strict=True makes an undescribable parameter fail at @tool."""
    with pytest.raises(ToolDeclarationError):

        @tool(strict=True)
        def hold(handle: Opaque) -> str:
            """Hold a handle."""
            return "held"


@pytest.mark.usefixtures("lenient")
def test_strict_true_runs_the_refiner_at_decoration() -> None:
    """strict=True surfaces a failing refiner at @tool."""
    with pytest.raises(SchemaRefinementError):

        @tool(strict=True, refiner=_raising_refiner)
        class Refined(Tool[QueryInput, str]):
            """Refine and fail."""

            def run(self, input: QueryInput) -> str:
                return input.query


@pytest.mark.usefixtures("lenient")
def test_strict_true_checks_the_constructor_at_decoration() -> None:
    """strict=True refuses a tool class its provider could not build."""
    with pytest.raises(ToolDeclarationError, match="constructor"):

        @tool(strict=True)
        class Needy(Tool[QueryInput, str]):
            """Need more than a parent."""

            def __init__(self, parent: object, token: str) -> None:
                super().__init__(parent)

            def run(self, input: QueryInput) -> str:
                return input.query


@pytest.mark.usefixtures("lenient")
def test_strict_true_accepts_a_well_declared_tool() -> None:
    """strict=True on a correct tool declares it as usual."""

    @tool(strict=True, read_only=True, risk="low")
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    assert FunctionToolProvider(echo).input_schema["required"] == ["text"]


@pytest.mark.usefixtures("strict_environment")
def test_the_strict_environment_variable_builds_schemas_at_decoration() -> None:
    """NUCLEO_STRICT_TOOLS=1 makes every @tool behave as strict=True."""
    with pytest.raises(ToolDeclarationError):

        @tool
        def hold(handle: Opaque) -> str:
            """Hold a handle."""
            return "held"

    with pytest.raises(SchemaRefinementError):

        @tool(refiner=_raising_refiner)
        class Refined(Tool[QueryInput, str]):
            """Refine and fail."""

            def run(self, input: QueryInput) -> str:
                return input.query


def test_only_the_value_1_turns_the_strict_environment_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any other value of NUCLEO_STRICT_TOOLS leaves schemas lazy."""
    monkeypatch.setenv(STRICT_ENVIRONMENT_VARIABLE, "0")

    @tool
    def hold(handle: Opaque) -> str:
        """Hold a handle."""
        return "held"

    assert FunctionToolProvider(hold).name == "hold"
