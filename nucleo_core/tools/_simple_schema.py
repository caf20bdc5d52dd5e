"""The input schema and validator of a function tool with simple parameters, without a model.

Building a pydantic model class costs half a millisecond to a millisecond per tool and about
23 KB, and most of it is the model class itself (the metaclass, field collection, a
serializer), not validation. For parameters of the common simple types (``str``, ``int``,
``float``, ``bool``, a ``Literal`` of strings or of integers, ``list`` of those, and
``X | None``) with JSON-literal defaults, this module

* writes the schema pydantic would generate, byte for byte (`simple_input_schema`), and
* builds the validator pydantic would build, from the core schema pydantic would generate for
  that model, without the model class (`simple_input_model`): a `pydantic_core.SchemaValidator`
  that validates straight into a `SimpleInput`, in about 10 µs and 4 KB, shared by the tools
  whose parameters have the same names, types and defaults. Its failures are pydantic's own
  (the same kinds and locations), so a refusal reads the same.

Anything else answers ``None`` and the pydantic model is built. Property tests
(``tests/contract/test_simple_schema.py``, ``tests/unit/tools/test_simple_input.py``) check
that both agree with pydantic's for generated signatures and inputs.
"""

from __future__ import annotations

import json
import math
import types
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, Union, final, get_args, get_origin

from nucleo_core.tools.function_signature import FunctionSignature

if TYPE_CHECKING:
    from pydantic_core import CoreSchema, SchemaValidator
    from pydantic_core.core_schema import CoreConfig, ModelField, ModelSchema

__all__ = ["SimpleInput", "SimpleInputModel", "simple_input_model", "simple_input_schema"]

_SCALARS: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NONE_TYPE = type(None)


def simple_input_schema(signature: FunctionSignature, title: str) -> dict[str, Any] | None:
    """The schema pydantic would publish for ``signature``'s model, or ``None`` if not simple."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in signature.parameters:
        if parameter.field_name != parameter.name:
            return None
        described = _describe(parameter.annotation)
        if described is None:
            return None
        if parameter.default is ...:
            required.append(parameter.name)
        elif _json_literal(parameter.default):
            described["default"] = parameter.default
        else:
            return None
        if parameter.description is not None:
            described["description"] = parameter.description
        described["title"] = parameter.name.title().replace("_", " ").strip()
        properties[parameter.name] = dict(sorted(described.items()))
    schema: dict[str, Any] = {"additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = required
    schema["title"] = title
    schema["type"] = "object"
    return schema


def _describe(annotation: object) -> dict[str, Any] | None:
    scalar = _SCALARS.get(annotation)
    if scalar is not None:
        return {"type": scalar}
    origin = get_origin(annotation)
    if origin is Literal:
        return _literal(get_args(annotation))
    wrapped = _wrapped(annotation, origin)
    if wrapped is None:
        return None
    kind, inner = wrapped
    described = _describe(inner)
    if described is None or "anyOf" in described:
        return None
    if kind == "list":
        return {"items": dict(sorted(described.items())), "type": "array"}
    return {"anyOf": [dict(sorted(described.items())), {"type": "null"}]}


def _wrapped(annotation: object, origin: object) -> tuple[str, object] | None:
    """``("list", T)`` for ``list[T]``, ``("optional", T)`` for ``T | None``, else ``None``."""
    if origin is list:
        args = get_args(annotation)
        return ("list", args[0]) if len(args) == 1 else None
    if origin is Union or origin is types.UnionType:
        members = get_args(annotation)
        if len(members) != 2 or _NONE_TYPE not in members:
            return None
        (inner,) = (member for member in members if member is not _NONE_TYPE)
        return ("optional", inner)
    return None


def _literal(values: tuple[object, ...]) -> dict[str, Any] | None:
    if not values:
        return None
    if all(type(value) is str for value in values):
        kind = "string"
    elif all(type(value) is int for value in values):
        kind = "integer"
    else:
        return None
    if len(set(values)) != len(values):
        return None
    if len(values) == 1:
        return {"const": values[0], "type": kind}
    return {"enum": list(values), "type": kind}


def _json_literal(value: object) -> bool:
    if value is None or type(value) in (str, int, bool):
        return True
    return type(value) is float and math.isfinite(value)


class SimpleInput:
    """The validated input of a function tool of simple parameters: its fields as attributes.

    What ``parse_input`` returns for such a tool, in place of an instance of a pydantic model
    class (the tool's `input_type` is this class). An instance holds exactly the tool's fields in
    ``__dict__`` (the keyword arguments of the call) and reads like the model's instance:
    ``repr`` names the model (``SearchInput(query='q', limit=10)``), and ``model_dump``,
    ``model_dump_json``, ``model_fields_set``, ``model_json_schema``, equality (same tool, same
    fields) and iteration over ``(field, value)`` pairs answer as pydantic's would.
    """

    # pydantic-core sets the first four on every instance it validates; slots keep them out of
    # ``__dict__``, which holds the fields alone. ``_model`` is the tool's `SimpleInputModel`.
    __slots__ = (
        "__dict__",
        "__pydantic_extra__",
        "__pydantic_fields_set__",
        "__pydantic_private__",
        "_model",
    )

    _model: SimpleInputModel

    __hash__ = None  # type: ignore[assignment]  # mutable, like a pydantic model

    @property
    def model_fields_set(self) -> set[str]:
        """The fields the input set explicitly (the others took their defaults)."""
        fields_set: set[str] = getattr(self, "__pydantic_fields_set__")  # noqa: B009
        return fields_set

    def model_json_schema(self) -> dict[str, Any]:
        """The tool's input schema, as its pydantic model would publish it."""
        return self._model.model_json_schema()

    def model_dump(self, *, mode: Literal["python", "json"] = "python") -> dict[str, Any]:
        """The fields as a new dict; in ``"json"`` mode a non-finite float is ``None``."""
        if mode == "json":
            return {name: _json_value(value) for name, value in self.__dict__.items()}
        return {
            name: list(value) if type(value) is list else value
            for name, value in self.__dict__.items()
        }

    def model_dump_json(self) -> str:
        """The fields as compact JSON text."""
        return json.dumps(self.model_dump(mode="json"), separators=(",", ":"))

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(self.__dict__.items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SimpleInput):
            return NotImplemented
        return self._model is other._model and self.__dict__ == other.__dict__

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{self._model.__name__}({fields})"


class _Shape:
    """One validator, shared by the tools of one parameter shape; held weakly by the cache.

    The shape is the parameters' names, types and defaults, which a tool pack's tools often
    have in common.
    """

    __slots__ = ("__weakref__", "validator")

    def __init__(self, validator: SchemaValidator) -> None:
        self.validator = validator


#: Validators by parameter shape; an entry lives as long as a tool uses it.
_SHAPES: weakref.WeakValueDictionary[tuple[object, ...], _Shape] = weakref.WeakValueDictionary()


@final
class SimpleInputModel:
    """A function tool's input model without a model class: its name, signature and validator.

    Stands where the pydantic model class would (``model_validate``, ``model_validate_json``,
    ``model_json_schema``); what it validates is a `SimpleInput`. The validator is
    pydantic-core's, built from the core schema pydantic generates for that model, and shared
    by the tools of the same parameter shape.
    """

    __slots__ = ("__name__", "_shape", "signature")

    def __init__(self, name: str, signature: FunctionSignature, shape: _Shape) -> None:
        self.__name__ = name
        self.signature = signature
        self._shape = shape

    def model_validate(self, obj: Any) -> SimpleInput:
        """Validate ``obj`` (a mapping of the fields).

        Raises:
            pydantic.ValidationError: ``obj`` does not fit, as the pydantic model would say.
        """
        validated: SimpleInput = self._shape.validator.validate_python(obj)
        validated._model = self
        return validated

    def model_validate_json(self, json_data: str | bytes | bytearray) -> SimpleInput:
        """Validate JSON text.

        Raises:
            pydantic.ValidationError: The text is not JSON or does not fit.
        """
        validated: SimpleInput = self._shape.validator.validate_json(json_data)
        validated._model = self
        return validated

    def model_json_schema(self) -> dict[str, Any]:
        """The JSON schema, as the pydantic model would publish it (a new dict each time)."""
        schema = simple_input_schema(self.signature, self.__name__)
        assert schema is not None  # only made for a simple signature
        return schema

    def __repr__(self) -> str:
        return f"<SimpleInputModel {self.__name__}>"


def simple_input_model(signature: FunctionSignature, title: str) -> SimpleInputModel | None:
    """The `SimpleInputModel` of ``signature``'s input, or ``None`` if it is not simple.

    Answers for exactly the signatures `simple_input_schema` answers for. The core schema is
    the one pydantic generates for the model (``str_schema``, ``literal_schema``,
    ``nullable_schema``, ``with_default_schema`` ... in a ``model_fields_schema`` with
    ``extra_behavior="forbid"``), written as plain dicts: its helper functions cost more than
    the validator they describe.

    Args:
        signature: The function's resolved signature.
        title: The model's name (the schema's ``title``).
    """
    key: list[object] = []
    for parameter in signature.parameters:
        if parameter.field_name != parameter.name:
            return None
        default = parameter.default
        if default is not ... and not _json_literal(default):
            return None
        key += (parameter.name, parameter.annotation, repr(default))  # 0 and False, 0.0 and -0.0
    shape_key = tuple(key)
    try:
        shape = _SHAPES.get(shape_key)
    except TypeError:  # an unhashable annotation: not simple anyway
        return None
    if shape is None:
        validator = _validator(signature)
        if validator is None:
            return None
        shape = _SHAPES.setdefault(shape_key, _Shape(validator))
    return SimpleInputModel(title, signature, shape)


def _validator(signature: FunctionSignature) -> SchemaValidator | None:
    fields: dict[str, ModelField] = {}
    for parameter in signature.parameters:
        schema = _core(parameter.annotation)
        if schema is None:
            return None
        if parameter.default is not ...:
            schema = {"type": "default", "schema": schema, "default": parameter.default}
        fields[parameter.name] = {"type": "model-field", "schema": schema}
    from pydantic_core import SchemaValidator

    config: CoreConfig = {"title": SimpleInput.__name__, "extra_fields_behavior": "forbid"}
    model: ModelSchema = {
        "type": "model",
        "cls": SimpleInput,
        "schema": {
            "type": "model-fields",
            "fields": fields,
            "model_name": SimpleInput.__name__,
            "extra_behavior": "forbid",
        },
        "config": config,
    }
    return SchemaValidator(model, config)


_CORE_SCALARS: dict[object, str] = {str: "str", int: "int", float: "float", bool: "bool"}


def _core(annotation: object) -> CoreSchema | None:
    """The core schema pydantic generates for ``annotation``; ``None`` where `_describe` is."""
    scalar = _CORE_SCALARS.get(annotation)
    if scalar is not None:
        return {"type": scalar}  # one of the four scalar schemas
    origin = get_origin(annotation)
    if origin is Literal:
        values = get_args(annotation)
        if _literal(values) is None:
            return None
        return {"type": "literal", "expected": list(values)}
    wrapped = _wrapped(annotation, origin)
    if wrapped is None:
        return None
    kind, inner = wrapped
    described = _core(inner)
    if described is None or described["type"] == "nullable":
        return None
    if kind == "list":
        return {"type": "list", "items_schema": described}
    return {"type": "nullable", "schema": described}


def _json_value(value: object) -> object:
    if type(value) is float and not math.isfinite(value):
        return None  # pydantic's JSON mode writes inf and nan as null
    if type(value) is list:
        return [_json_value(item) for item in value]
    return value
