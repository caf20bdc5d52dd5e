"""The ToolProvider contract (seed 000; seed 004's sources and declared risk) for both kinds."""

import dataclasses
import json
import typing
from types import MappingProxyType
from typing import Annotated, Any

import pytest
from _sample_tools import (
    Search,
    SearchInput,
    SearchResult,
    StaticProvider,
    WriteNote,
    fetch_page,
    read_file,
)
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from nucleo_core import (
    ClassToolProvider,
    CorrectableError,
    FunctionToolProvider,
    InvalidToolInput,
    Risk,
    SchemaRefinementError,
    Tool,
    ToolDeclarationError,
    ToolRegistry,
    tool,
)

# -- equality ------------------------------------------------------------------------------------


def test_class_tool_providers_are_equal_by_wrapped_class() -> None:
    """Two providers of one class are equal and hash alike; different classes are not equal."""
    assert ClassToolProvider(Search) == ClassToolProvider(Search)
    assert hash(ClassToolProvider(Search)) == hash(ClassToolProvider(Search))
    assert ClassToolProvider(Search) != ClassToolProvider(WriteNote)
    assert len({ClassToolProvider(Search), ClassToolProvider(Search)}) == 1


def test_function_tool_providers_are_equal_by_function() -> None:
    """Two providers of one function are equal; a class provider is never equal to one."""
    assert FunctionToolProvider(read_file) == FunctionToolProvider(read_file)
    assert hash(FunctionToolProvider(read_file)) == hash(FunctionToolProvider(read_file))
    assert FunctionToolProvider(read_file) != FunctionToolProvider(fetch_page)
    assert FunctionToolProvider(read_file) != ClassToolProvider(Search)


def test_a_provider_of_an_undeclared_class_cannot_be_built() -> None:
    """ClassToolProvider refuses a class that @tool did not declare."""

    class Undeclared(Tool[SearchInput, str]):
        """Not declared."""

        def run(self, input: SearchInput) -> str:
            return ""

    with pytest.raises(ToolDeclarationError):
        ClassToolProvider(Undeclared)


# -- schemas -------------------------------------------------------------------------------------


def test_the_input_schema_is_generated_once() -> None:
    """Two reads of the input schema return the very same object."""
    provider = ClassToolProvider(Search)
    assert provider.input_schema is provider.input_schema
    assert provider.output_schema is provider.output_schema
    function_provider = FunctionToolProvider(read_file)
    assert function_provider.input_schema is function_provider.input_schema


def test_the_input_schema_describes_the_input_model() -> None:
    """The published schema is the input model's JSON schema."""
    schema = ClassToolProvider(Search).input_schema
    assert schema == SearchInput.model_json_schema()
    assert schema["type"] == "object"


class CountInput(BaseModel):
    count: int
    pair: list[int] = Field(default_factory=list)


def cap_count(schema: dict[str, Any]) -> dict[str, Any]:
    """Narrow count to 1..10 and pair to two prefix items (a Draft 2020-12 keyword)."""
    schema["properties"]["count"].update(minimum=1, maximum=10)
    schema["properties"]["pair"].update(
        prefixItems=[{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": 0}],
        items=False,
    )
    return schema


@tool(name="capped", refiner=cap_count)
class Capped(Tool[CountInput, int]):
    """Count to a capped number."""

    def run(self, input: CountInput) -> int:
        return input.count


def test_a_refiner_narrows_the_published_schema() -> None:
    """The published schema is the refiner's, and the input model's own schema is untouched."""
    schema = ClassToolProvider(Capped).input_schema
    assert schema["properties"]["count"]["maximum"] == 10
    assert "maximum" not in CountInput.model_json_schema()["properties"]["count"]


def test_parse_input_enforces_the_refined_schema() -> None:
    """Input the model allows but the refined schema forbids is refused."""
    provider = ClassToolProvider(Capped)
    assert provider.parse_input({"count": 10}) == CountInput(count=10)
    with pytest.raises(InvalidToolInput) as raised:
        provider.parse_input({"count": 11})
    assert raised.value.problems == ("count: violates maximum=10 (declared type: integer)",)


def test_parse_input_validates_the_refined_schema_as_draft_2020_12() -> None:
    """The refined schema is Draft 2020-12: prefixItems with items=false allows two items."""
    provider = ClassToolProvider(Capped)
    assert provider.parse_input('{"count": 1, "pair": [3, 0]}').pair == [3, 0]
    with pytest.raises(InvalidToolInput):
        provider.parse_input('{"count": 1, "pair": [3, 0, 5]}')
    with pytest.raises(InvalidToolInput):
        provider.parse_input('{"count": 1, "pair": [3, 2]}')


def test_a_refiner_may_narrow_in_place_and_return_none() -> None:
    """A refiner that edits its argument and returns None publishes the edited schema."""

    def in_place(schema: dict[str, Any]) -> None:
        schema["properties"]["count"]["maximum"] = 3

    @tool(name="in_place", refiner=in_place)
    class InPlace(Tool[CountInput, int]):
        """Count, capped in place."""

        def run(self, input: CountInput) -> int:
            return input.count

    provider = ClassToolProvider(InPlace)
    assert provider.input_schema["properties"]["count"]["maximum"] == 3
    with pytest.raises(InvalidToolInput):
        provider.parse_input({"count": 4})


def _raising_refiner(schema: dict[str, Any]) -> dict[str, Any]:
    raise KeyError("no such property")


def _garbage_refiners() -> list[Any]:
    return [
        lambda schema: ["not", "a", "schema"],
        lambda schema: "object",
        lambda schema: {"type": "object", "properties": 5},
        lambda schema: {"type": "string"},
        _raising_refiner,
    ]


@pytest.mark.parametrize("refiner", _garbage_refiners())
def test_a_failing_refiner_raises_and_never_publishes_the_unrefined_schema(refiner: Any) -> None:
    """A refiner that raises or returns garbage makes every schema read fail, every time."""

    @tool(name="broken", refiner=refiner)
    class Broken(Tool[CountInput, int]):
        """Count with a broken refiner."""

        def run(self, input: CountInput) -> int:
            return input.count

    provider = ClassToolProvider(Broken)
    for _ in range(2):
        with pytest.raises(SchemaRefinementError):
            _ = provider.input_schema
    with pytest.raises(SchemaRefinementError):
        provider.spec()
    with pytest.raises(SchemaRefinementError):
        provider.parse_input({"count": 1})
    with pytest.raises(SchemaRefinementError):
        ToolRegistry([Broken]).specs()


@dataclasses.dataclass
class DataclassOutput:
    total: int
    label: str


class TypedDictOutput(TypedDict):
    total: int
    label: str


def _class_tool_with_output(output: Any) -> ClassToolProvider:
    @tool(name="outputs")
    class Outputs(Tool[CountInput, output]):  # type: ignore[valid-type]
        """Return something."""

        def run(self, input: CountInput) -> Any:
            return None

    return ClassToolProvider(Outputs)


@pytest.mark.parametrize("output", [SearchResult, DataclassOutput, TypedDictOutput])
def test_an_output_schema_is_published_for_a_composite_output(output: Any) -> None:
    """A pydantic model, dataclass or TypedDict output is described as an object schema."""
    schema = _class_tool_with_output(output).output_schema
    assert schema is not None
    assert schema["type"] == "object"
    assert "properties" in schema


@pytest.mark.parametrize(
    "output", [str, int, float, bytes, list[int], dict[str, int], Any, int | None, type(None)]
)
def test_no_output_schema_for_anything_else(output: Any) -> None:
    """Any other output answers None, so the output ships as text content."""
    assert _class_tool_with_output(output).output_schema is None


class Handle:
    """A plain class pydantic cannot describe."""


@dataclasses.dataclass
class UndescribableOutput:
    handle: Handle


class OpaqueModelOutput(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    handle: Handle


class StdlibTypedDictOutput(typing.TypedDict):
    total: int


@pytest.mark.parametrize(
    "output",
    [UndescribableOutput, OpaqueModelOutput, StdlibTypedDictOutput],
    ids=["opaque-dataclass", "opaque-model", "typing-TypedDict"],
)
def test_an_output_type_that_cannot_be_described_never_breaks_the_tool(output: Any) -> None:
    """An output pydantic cannot describe answers None and never breaks the input schema."""
    provider = _class_tool_with_output(output)
    assert provider.input_schema == CountInput.model_json_schema()
    schema = provider.output_schema
    assert schema is None or schema["type"] == "object"
    if output is not StdlibTypedDictOutput:
        assert schema is None


def test_function_tool_output_schema_follows_the_return_annotation() -> None:
    """A function returning a model publishes its schema; one returning a dict does not."""

    @tool
    def summarise(text: str) -> SearchResult:
        """Summarise text."""
        return SearchResult(hits=[])

    assert FunctionToolProvider(summarise).output_schema is not None
    assert FunctionToolProvider(fetch_page).output_schema is None
    assert FunctionToolProvider(read_file).output_schema is None


# -- create(parent) ------------------------------------------------------------------------------


def test_create_passes_the_parent_through_a_constructor_that_takes_it() -> None:
    """The default Tool constructor receives the parent."""
    parent = object()
    built = ClassToolProvider(Search).create(parent)
    assert isinstance(built, Search)
    assert built.parent is parent


def test_create_passes_the_parent_to_a_custom_constructor() -> None:
    """A constructor declaring its own parent parameter receives the parent."""

    @tool(name="parented")
    class Parented(Tool[CountInput, int]):
        """Remember the parent."""

        def __init__(self, parent: object) -> None:
            super().__init__(parent)
            self.seen = parent

        def run(self, input: CountInput) -> int:
            return input.count

    parent = object()
    built = ClassToolProvider(Parented).create(parent)
    assert isinstance(built, Parented)
    assert built.seen is parent


def test_create_works_with_a_constructor_that_takes_no_parent() -> None:
    """A constructor taking nothing is called with nothing."""

    @tool(name="orphan")
    class Orphan(Tool[CountInput, int]):
        """Take no parent."""

        def __init__(self) -> None:
            super().__init__(None)

        def run(self, input: CountInput) -> int:
            return input.count

    provider = ClassToolProvider(Orphan)
    provider.check()
    assert isinstance(provider.create(object()), Orphan)
    assert isinstance(provider.create(), Orphan)


def test_check_refuses_a_constructor_that_needs_more_than_the_parent() -> None:
    """A tool that cannot be built for a parent fails at check(), naming the fix."""

    @tool(name="needy")
    class Needy(Tool[CountInput, int]):
        """Need a secret the factory cannot give."""

        def __init__(self, parent: object, secret: str) -> None:
            super().__init__(parent)

        def run(self, input: CountInput) -> int:
            return input.count

    with pytest.raises(ToolDeclarationError, match="constructor"):
        ClassToolProvider(Needy).check()


def test_a_function_provider_builds_a_tool_that_calls_the_function() -> None:
    """The function tool a provider creates calls the function with the validated fields."""
    provider = FunctionToolProvider(read_file)
    parent = object()
    built = provider.create(parent)
    assert built.parent is parent
    assert built.run(provider.parse_input({"path": "a.txt"})) == "a.txt:utf-8"


# -- function tools ------------------------------------------------------------------------------


def test_a_function_tool_schema_comes_from_annotations_docstring_and_annotated() -> None:
    """Types from annotations, defaults from the signature, descriptions from Args/Annotated."""
    schema = FunctionToolProvider(read_file).input_schema
    properties = schema["properties"]
    assert schema["type"] == "object"
    assert schema["required"] == ["path"]
    assert properties["path"]["type"] == "string"
    # Annotated metadata wins over the docstring's Args entry for the same parameter.
    assert properties["path"]["description"] == "The file to read, relative to the workspace."
    assert properties["encoding"]["description"] == "The text encoding."
    assert properties["encoding"]["default"] == "utf-8"
    assert schema["additionalProperties"] is False


def test_a_function_tool_reads_the_args_section_and_strips_it_from_the_description() -> None:
    """The description is the docstring without Args/Returns; Args become parameter docs."""
    provider = FunctionToolProvider(fetch_page)
    assert provider.description == "Fetch a web page."
    properties = provider.input_schema["properties"]
    assert properties["url"] == {
        "description": "The address to fetch.",
        "title": "Url",
        "type": "string",
    }
    assert properties["timeout"]["type"] == "number"
    assert properties["timeout"]["description"] == "Seconds before giving up."


def test_a_field_description_in_annotated_wins_over_the_docstring() -> None:
    """An explicit Field(description=...) is kept over the Args entry."""

    @tool
    def greet(
        name: Annotated[str, Field(description="Who to greet.")],
        times: Annotated[int, Field(ge=1, description="How often.")] = 1,
    ) -> str:
        """Greet someone.

        Args:
            name: Loses to the Field description.
            times: Loses to the Field description too.
        """
        return name * times

    properties = FunctionToolProvider(greet).input_schema["properties"]
    assert properties["name"]["description"] == "Who to greet."
    assert properties["times"]["description"] == "How often."
    assert properties["times"]["minimum"] == 1


def test_a_function_tool_refuses_fields_it_does_not_declare() -> None:
    """A function tool's input forbids undeclared fields, naming the declared ones."""
    with pytest.raises(InvalidToolInput) as raised:
        FunctionToolProvider(read_file).parse_input({"path": "a", "mode": "w"})
    assert raised.value.problems == (
        "input: has an undeclared field; declared fields: path, encoding",
    )


# -- parse_input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        '{"query": "needle", "limit": 3}',
        b'{"query": "needle", "limit": 3}',
        bytearray(b'{"query": "needle", "limit": 3}'),
        {"query": "needle", "limit": 3},
        MappingProxyType({"query": "needle", "limit": 3}),
    ],
)
def test_parse_input_accepts_json_text_or_a_mapping(raw: Any) -> None:
    """JSON text (str or bytes) and any mapping decode to the same validated input."""
    parsed = ClassToolProvider(Search).parse_input(raw)
    assert parsed == SearchInput(query="needle", limit=3)


@pytest.mark.parametrize("raw", ['{"count": 4, "pair": [1, 0]}', {"count": 4, "pair": [1, 0]}])
def test_parse_input_through_a_refined_schema_accepts_json_text_or_a_mapping(raw: Any) -> None:
    """The refined path accepts the same two spellings."""
    assert ClassToolProvider(Capped).parse_input(raw) == CountInput(count=4, pair=[1, 0])


class Line(BaseModel):
    sku: str
    quantity: int


class OrderInput(BaseModel):
    lines: list[Line]
    rush: bool = False


def _order_provider(refined: bool) -> ClassToolProvider:
    def keep(schema: dict[str, Any]) -> dict[str, Any]:
        return schema

    @tool(name="place_order", refiner=keep if refined else None)
    class PlaceOrder(Tool[OrderInput, str]):
        """Place an order."""

        def run(self, input: OrderInput) -> str:
            return "ok"

    return ClassToolProvider(PlaceOrder)


SECRET = "Xq7-hunter2-Zz"


@pytest.mark.parametrize("refined", [False, True], ids=["model", "refined"])
@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (
            {"lines": [{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": SECRET}]},
            "lines[1].quantity: expected integer",
        ),
        (
            {"lines": [{"sku": "a"}]},
            "lines[0].quantity: is required (declared type: integer)",
        ),
        ({"lines": SECRET}, "lines: expected array of object (Line)"),
        ({"lines": [], "rush": SECRET}, "rush: expected boolean"),
        ({}, "lines: is required (declared type: array of object (Line))"),
    ],
)
def test_invalid_tool_input_names_the_field_path_and_declared_type(
    refined: bool, raw: dict[str, Any], problem: str
) -> None:
    """The refusal names where and what was expected, and never the value sent."""
    provider = _order_provider(refined)
    for spelling in (raw, json.dumps(raw)):
        with pytest.raises(InvalidToolInput) as raised:
            provider.parse_input(spelling)
        error = raised.value
        assert isinstance(error, CorrectableError)
        assert error.tool == "place_order"
        assert error.problems == (problem,)
        assert SECRET not in str(error)


@pytest.mark.parametrize("refined", [False, True], ids=["model", "refined"])
def test_the_decoder_message_survives_only_as_the_cause(refined: bool) -> None:
    """The validator's own message, which quotes the value, is on __cause__ and nowhere else."""
    provider = _order_provider(refined)
    raw = {"lines": [{"sku": "a", "quantity": SECRET}]}
    with pytest.raises(InvalidToolInput) as raised:
        provider.parse_input(raw)
    assert SECRET not in str(raised.value)
    assert SECRET not in " ".join(map(str, raised.value.args))
    assert raised.value.__cause__ is not None
    assert SECRET in str(raised.value.__cause__)


@pytest.mark.parametrize("refined", [False, True], ids=["model", "refined"])
def test_text_that_is_not_json_is_refused_without_quoting_it(refined: bool) -> None:
    """Malformed JSON is refused as 'not valid JSON', with the decoder's complaint as the cause."""
    provider = _order_provider(refined)
    with pytest.raises(InvalidToolInput) as raised:
        provider.parse_input('{"lines": [' + SECRET)
    assert raised.value.problems == ("input: is not valid JSON; send a JSON object",)
    assert SECRET not in str(raised.value)
    assert raised.value.__cause__ is not None


@pytest.mark.parametrize("refined", [False, True], ids=["model", "refined"])
@pytest.mark.parametrize("raw", ["[1, 2]", '"text"', "3", [1, 2]])
def test_input_that_is_not_an_object_is_refused(refined: bool, raw: Any) -> None:
    """JSON that is not an object is refused as such, naming the expected object."""
    with pytest.raises(InvalidToolInput) as raised:
        _order_provider(refined).parse_input(raw)
    assert all(problem.startswith("input: ") for problem in raised.value.problems)


# -- source and lookup ---------------------------------------------------------------------------


def test_a_native_tool_source_is_native_colon_name() -> None:
    """Tools implemented in-process report native:<name> as their source and in their spec."""
    assert ClassToolProvider(Search).source == "native:search"
    assert FunctionToolProvider(read_file).source == "native:read_file"
    assert StaticProvider("echo").source == "native:echo"
    assert ClassToolProvider(Search).spec().source == "native:search"


def test_lookups_accept_the_bare_name_or_the_prefixed_id() -> None:
    """The model need not know the namespacing: both spellings resolve to one provider."""
    registry = ToolRegistry([Search, StaticProvider("remote", source="mcp:srv:remote")])
    assert registry.get_provider_by_name("search") is registry.get_provider_by_name("native:search")
    assert registry.available("native:search") is not None
    assert isinstance(registry.create_tool("native:search"), Search)
    assert registry.get_provider_by_name("remote") is registry.get_provider_by_name(
        "mcp:srv:remote"
    )
    assert registry.get_provider_by_name("native:remote") is None
    assert "native:search" in registry


# -- declared risk and metadata ------------------------------------------------------------------


def test_undeclared_risk_counts_as_high() -> None:
    """A tool that declares no risk is HIGH, and says it was not declared."""
    provider = ClassToolProvider(WriteNote)
    assert provider.risk is Risk.HIGH
    assert provider.risk_declared is False
    assert provider.spec().risk is Risk.HIGH
    assert StaticProvider("echo").risk is Risk.HIGH
    assert StaticProvider("echo").risk_declared is False


def test_declared_risk_is_reported_as_declared() -> None:
    """A declared risk is the effective risk."""
    provider = ClassToolProvider(Search)
    assert provider.risk is Risk.LOW
    assert provider.risk_declared is True
    assert FunctionToolProvider(fetch_page).risk is Risk.MEDIUM


def test_risk_is_never_inferred_from_a_harmless_name() -> None:
    """dispatch_agent and read_only_lookup declare nothing and so are HIGH and mutating."""

    @tool
    def dispatch_agent(task: str) -> str:
        """Delegate a run to a child agent."""
        return task

    @tool
    def read_only_lookup(key: str) -> str:
        """Look something up."""
        return key

    for function in (dispatch_agent, read_only_lookup):
        provider = FunctionToolProvider(function)
        assert provider.risk is Risk.HIGH
        assert provider.read_only is False


def test_risk_is_never_inferred_from_a_scary_name() -> None:
    """delete_everything declared low is low: the declaration, not the name, decides."""

    @tool(risk="low", read_only=True)
    def delete_everything(dry_run: bool = True) -> str:
        """Preview what a cleanup would delete."""
        return "nothing"

    provider = FunctionToolProvider(delete_everything)
    assert provider.risk is Risk.LOW
    assert provider.read_only is True


def test_metadata_is_passed_through_untouched() -> None:
    """The declared metadata reaches the provider with the same keys and the same values."""
    icon = object()
    nested = {"tier": ["gold"]}

    @tool(metadata={"icon": icon, "cost": nested})
    def annotate(text: str) -> str:
        """Annotate text."""
        return text

    metadata = FunctionToolProvider(annotate).metadata
    assert dict(metadata) == {"icon": icon, "cost": nested}
    assert metadata["icon"] is icon
    assert metadata["cost"] is nested
    assert nested == {"tier": ["gold"]}
    assert ClassToolProvider(Search).metadata == {"category": "lookup", "icon": "magnifier"}


def test_metadata_defaults_to_an_empty_mapping() -> None:
    """A tool without metadata, and the base provider, have an empty mapping."""
    assert dict(ClassToolProvider(WriteNote).metadata) == {}
    assert dict(StaticProvider("echo").metadata) == {}


def test_the_spec_carries_what_the_provider_declares() -> None:
    """spec() carries the name, description, schemas, display name, read-only, risk and source."""
    provider = ClassToolProvider(Search)
    spec = provider.spec()
    assert spec.name == "search"
    assert spec.description == "Search the workspace for text."
    assert spec.input_schema is provider.input_schema
    assert spec.output_schema == SearchResult.model_json_schema(mode="serialization")
    assert spec.display_name == "Search the workspace"
    assert spec.read_only is True
    assert spec.risk is Risk.LOW
    assert spec.source == "native:search"
