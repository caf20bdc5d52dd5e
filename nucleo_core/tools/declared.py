"""The part class and function providers share: a declaration, built lazily, parsed strictly."""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nucleo_core.errors import MisuseError, ToolDeclarationError
from nucleo_core.tools import _input_errors
from nucleo_core.tools._raw_input import check_input, decoded_input
from nucleo_core.tools._simple_schema import SimpleInput
from nucleo_core.tools.provider import RawInput, ToolProvider
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.schema import output_schema_for, refine_schema
from nucleo_core.tools.state import state_conversation_id

if TYPE_CHECKING:
    from jsonschema.protocols import Validator
    from pydantic import ValidationError

    from nucleo_core.tools.declaration import ToolDeclaration
    from nucleo_core.tools.spec import ToolSpec
    from nucleo_core.tools.state import CarriedState

__all__ = ["DeclaredToolProvider"]

_TEXT = (str, bytes, bytearray)


@dataclass(frozen=True, slots=True)
class _Schemas:
    """What a render needs, built once on first need."""

    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    # Set only when a refiner narrowed the schema; otherwise the model's own validation is the
    # check the published schema asks for.
    validator: Validator | None


@dataclass(frozen=True, slots=True)
class _Parser:
    """What a call needs, built once on first call: the schemas plus the input model."""

    # A pydantic model class, or for a function of simple parameters its `SimpleInputModel`.
    model: Any
    # The model's own validating entry points, looked up once.
    validate_json: Callable[[str | bytes | bytearray], Any]
    validate_python: Callable[[Any], Any]
    input_schema: Mapping[str, Any]
    validator: Validator | None
    # pydantic's ValidationError, kept here so that pydantic is imported on first use only.
    validation_error: type[ValidationError]


class DeclaredToolProvider(ToolProvider):
    """A provider of a tool declared with ``@tool``; schemas are built on first need."""

    __slots__ = ("_declaration", "_description", "_lock", "_parser", "_schemas", "_spec")

    def __init__(self, declaration: ToolDeclaration) -> None:
        self._declaration = declaration
        self._schemas: _Schemas | None = None
        self._parser: _Parser | None = None
        self._description: str | None = declaration.description
        self._lock = threading.Lock()
        self._spec: ToolSpec | None = None

    @property
    def declaration(self) -> ToolDeclaration:
        """What ``@tool`` declared."""
        return self._declaration

    @property
    def name(self) -> str:
        """The declared name."""
        return self._declaration.name

    @property
    def description(self) -> str:
        """The declared description, or the docstring's (without its Args/Returns sections)."""
        if self._description is None:
            self._description = self._docstring_description()
        return self._description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """The published input schema: generated once, narrowed by the declared refiner."""
        return (self._schemas or self._build_schemas()).input_schema

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The output schema for a composite output type, else ``None`` (output as text)."""
        return (self._schemas or self._build_schemas()).output_schema

    @property
    def input_type(self) -> type[Any]:
        """The input model class ``parse_input`` returns an instance of, built on first need.

        A pydantic model class; for a function tool whose parameters all have simple types
        (``str``, ``int``, ``float``, ``bool``, a ``Literal``, ``list`` of those, ``X | None``),
        `SimpleInput`: such an input is validated by the core validator pydantic would build
        for the tool's model, without the cost of a model class.
        """
        model = (self._parser or self._build_parser()).model
        return model if isinstance(model, type) else SimpleInput

    @property
    def weight(self) -> float:
        """The declared weight."""
        return self._declaration.weight

    @property
    def display_name(self) -> str:
        """The declared display name, or one derived from the name."""
        return self._declaration.effective_display_name

    @property
    def action_verb(self) -> str:
        """The declared action verb, or ``"Using"``."""
        return self._declaration.action_verb or "Using"

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The declared metadata, read-only; the framework never reads it."""
        return self._declaration.metadata

    @property
    def admission_guardrails(self) -> tuple[Callable[[Any], Any], ...]:
        """The admission guardrail factories the tool declared."""
        return self._declaration.guardrails

    @property
    def read_only(self) -> bool:
        """Whether the tool was declared read-only."""
        return self._declaration.read_only

    @property
    def risk(self) -> Risk:
        """The declared risk, or ``HIGH`` when undeclared."""
        return self._declaration.effective_risk

    @property
    def risk_declared(self) -> bool:
        """Whether a risk was declared."""
        return self._declaration.risk is not None

    def carried_state(self, conversation_id: str | None = None) -> CarriedState | None:
        """What the declared state of ``conversation_id`` asks to carry, if it has any."""
        states = self._declaration.states
        return None if states is None else states.carried(conversation_id)

    def forget_conversation_state(self, conversation_id: str | None = None) -> None:
        """Drop the declared state of ``conversation_id`` (``None``: of every conversation)."""
        states = self._declaration.states
        if states is not None:
            states.forget(conversation_id)

    def _state_for(self, parent: object | None) -> Any:
        """The declared state a call made for ``parent`` works on.

        The state of the conversation ``parent`` says the call belongs to; outside any
        conversation (no thinker, or none running), a fresh state nothing keeps.
        """
        states = self._declaration.states
        assert states is not None  # only called for a tool declared with state=
        conversation_id = state_conversation_id(parent, self)
        return states.fresh() if conversation_id is None else states.get(conversation_id)

    def parse_input(self, raw: RawInput) -> Any:
        """Validate a call's input against the published schema and the input model.

        Args:
            raw: The JSON text the model sent, or the decoded object.

        Returns:
            The validated input model (an instance of `input_type`).

        Raises:
            InvalidToolInput: Names each failing field path and its declared type; the
                validator's own message, which may quote the input, is only the ``__cause__``.
        """
        built = self._parser or self._build_parser()
        if built.validator is None:
            try:
                if isinstance(raw, _TEXT):
                    return built.validate_json(raw)
                return built.validate_python(raw if isinstance(raw, dict) else _as_dict(raw))
            except built.validation_error as exc:
                raise _input_errors.from_pydantic(self.name, exc, built.input_schema) from exc
        data = decoded_input(self.name, raw)
        check_input(self.name, built.validator, data, built.input_schema)
        try:
            return built.validate_python(data)
        except built.validation_error as exc:
            raise _input_errors.from_pydantic(self.name, exc, built.input_schema) from exc

    def spec(self) -> ToolSpec:
        """The neutral spec, built once: a declared tool's description and schemas never change."""
        if self._spec is None:
            self._spec = super().spec()
        return self._spec

    def check(self) -> None:
        """Build the schemas and the input model now, so a misdeclaration fails here."""
        self._build_parser()
        if not self.description:
            from nucleo_core.errors import ToolDeclarationError

            raise ToolDeclarationError(f"tool '{self.name}'", ["the description is empty"])

    @abstractmethod
    def _input_model(self) -> Any:
        """Build (or find) the model of the tool's input; called once.

        A pydantic model class, or a `SimpleInputModel`: either has ``model_validate``,
        ``model_validate_json`` and ``model_json_schema``.
        """

    def _generated_schema(self) -> dict[str, Any]:
        """The input schema before refinement; by default the input model's own."""
        schema: dict[str, Any] = self._input_model().model_json_schema()
        return schema

    @abstractmethod
    def _output_type(self) -> object:
        """The declared output type, or ``None``."""

    @abstractmethod
    def _docstring_description(self) -> str:
        """The description taken from the docstring."""

    def _build_schemas(self) -> _Schemas:
        with self._lock:
            if self._schemas is not None:
                return self._schemas
            try:
                generated = self._generated_schema()
            except MisuseError:
                raise
            except Exception as exc:  # PydanticInvalidForJsonSchema, an unsupported type
                raise ToolDeclarationError(
                    f"tool '{self.name}'",
                    [
                        "its input cannot be described as a JSON schema "
                        f"({type(exc).__name__}: {exc}); use JSON-describable types"
                    ],
                ) from exc
            refiner = self._declaration.refiner
            validator: Validator | None = None
            if refiner is None:
                published: Mapping[str, Any] = generated
            else:
                from jsonschema import Draft202012Validator

                published = refine_schema(generated, refiner, self.name)
                validator = Draft202012Validator(published)
            self._schemas = _Schemas(
                input_schema=published,
                output_schema=output_schema_for(self._output_type()),
                validator=validator,
            )
            return self._schemas

    def _build_parser(self) -> _Parser:
        schemas = self._schemas or self._build_schemas()
        with self._lock:
            if self._parser is not None:
                return self._parser
            from pydantic import ValidationError as PydanticValidationError

            model = self._input_model()
            self._parser = _Parser(
                model=model,
                validate_json=model.model_validate_json,
                validate_python=model.model_validate,
                input_schema=schemas.input_schema,
                validator=schemas.validator,
                validation_error=PydanticValidationError,
            )
            return self._parser


def _as_dict(raw: object) -> object:
    # A non-dict Mapping is copied to a dict; anything else goes on as-is so that the validator
    # reports "must be a JSON object" in its own terms.
    return dict(raw) if isinstance(raw, Mapping) else raw
