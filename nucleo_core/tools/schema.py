"""Schema generation: a function's input model, truthful output schemas, and refinement.

A function's signature is read in `nucleo_core.tools.function_signature`, its docstring in
`nucleo_core.tools.docstrings`; their names are re-exported here.

Everything here runs when a schema is first needed, never at ``import nucleo_core`` or at
declaration time; pydantic and docstring-parser are imported on that first use.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

from nucleo_core.errors import SchemaRefinementError, ToolDeclarationError
from nucleo_core.tools.declaration import describe_target
from nucleo_core.tools.docstrings import docstring_description, docstring_parts, parameter_docs
from nucleo_core.tools.function_signature import (
    FunctionParameter,
    FunctionSignature,
    function_signature,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

    from nucleo_core.tools.declaration import SchemaRefiner

__all__ = [
    "FunctionParameter",
    "FunctionSignature",
    "docstring_description",
    "docstring_parts",
    "function_input_model",
    "function_signature",
    "output_schema_for",
    "parameter_docs",
    "refine_schema",
]


def function_input_model(
    fn: Callable[..., Any], signature: FunctionSignature, model_name: str
) -> type[BaseModel]:
    """Build the pydantic model a function tool's input is validated into.

    Unknown fields are forbidden (``additionalProperties: false``), so a misspelt argument is
    refused rather than silently dropped.

    Raises:
        ToolDeclarationError: pydantic cannot build a model from the annotations.
    """
    from pydantic import ConfigDict, Field, create_model

    fields: dict[str, Any] = {}
    for parameter in signature.parameters:
        description = parameter.description
        if description is not None and _has_field_description(parameter.annotation):
            description = None  # an explicit Field(description=...) wins over the docstring
        alias = parameter.name if parameter.field_name != parameter.name else None
        # Only set what is known: an explicit None would override Annotated's own Field values.
        options: dict[str, Any] = {}
        if description is not None:
            options["description"] = description
        if alias is not None:
            options["alias"] = alias
        fields[parameter.field_name] = (parameter.annotation, Field(parameter.default, **options))
    try:
        return create_model(
            model_name,
            __config__=ConfigDict(extra="forbid", protected_namespaces=()),
            __module__=fn.__module__,
            **fields,
        )
    except Exception as exc:
        raise ToolDeclarationError(
            describe_target(fn),
            [f"its parameters cannot be described as a JSON schema ({type(exc).__name__}: {exc})"],
        ) from exc


def output_schema_for(output_type: object) -> dict[str, Any] | None:
    """The JSON schema of a tool's output, only where it can be described truthfully.

    A pydantic model, a dataclass or a TypedDict is composite and described as an object; any
    other type (``str``, ``int``, a list, ``Any``, a union) answers ``None`` and the output ships
    to the model as text content.
    """
    if not isinstance(output_type, type):
        return None
    from pydantic import BaseModel, TypeAdapter

    # typing_extensions' check also knows typing_extensions.TypedDict, which pydantic asks for
    # on Python < 3.12 and so is what many users' code defines.
    from typing_extensions import is_typeddict

    try:
        if issubclass(output_type, BaseModel):
            return output_type.model_json_schema(mode="serialization")
        if dataclasses.is_dataclass(output_type) or is_typeddict(output_type):
            return TypeAdapter(output_type).json_schema(mode="serialization")
    except Exception:  # an undescribable field type: the output ships as text
        return None
    return None


def refine_schema(
    schema: Mapping[str, Any], refiner: SchemaRefiner, tool_name: str
) -> dict[str, Any]:
    """Apply a declared refiner to a copy of ``schema`` and check the result is a valid schema.

    Raises:
        SchemaRefinementError: The refiner raised, returned something other than a dict, or
            returned a schema that is not a valid Draft 2020-12 object schema. The unrefined
            schema is never published in its place.
    """
    draft = copy.deepcopy(dict(schema))
    try:
        returned = refiner(draft)
    except Exception as exc:
        raise SchemaRefinementError(
            f"The schema refiner of tool '{tool_name}' raised {type(exc).__name__}: {exc}. "
            "The unrefined schema is not published; fix the refiner."
        ) from exc
    refined = draft if returned is None else returned
    if not isinstance(refined, dict):
        raise SchemaRefinementError(
            f"The schema refiner of tool '{tool_name}' returned {type(refined).__name__}; "
            "it must return a JSON schema dict (or refine its argument in place and return None)."
        )
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(refined)
    except SchemaError as exc:
        raise SchemaRefinementError(
            f"The schema refiner of tool '{tool_name}' produced an invalid JSON schema "
            f"({exc.message}); fix the refiner."
        ) from exc
    if refined.get("type") != "object":
        raise SchemaRefinementError(
            f'The schema refiner of tool \'{tool_name}\' must keep "type": "object" at the top '
            "level: model providers accept only object input schemas."
        )
    return refined


def _has_field_description(annotation: object) -> bool:
    if get_origin(annotation) is not Annotated:
        return False
    from pydantic.fields import FieldInfo

    return any(
        isinstance(extra, FieldInfo) and extra.description for extra in get_args(annotation)[1:]
    )
