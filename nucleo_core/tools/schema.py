"""Schema generation: a function's input model, truthful output schemas, and refinement.

Everything here runs when a schema is first needed, never at ``import nucleo_core`` or at
declaration time; pydantic and docstring-parser are imported on that first use.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

from nucleo_core.errors import SchemaRefinementError, ToolDeclarationError

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

_SECTION_HEADERS = (
    "Args:",
    "Arguments:",
    "Parameters:",
    "Returns:",
    "Raises:",
    "Yields:",
    "Attributes:",
    "Example:",
    "Examples:",
)


@dataclass(frozen=True, slots=True)
class FunctionParameter:
    """One parameter of a function tool, as its input model declares it.

    Attributes:
        name: The parameter's name, which is also its name on the wire.
        field_name: The model field holding it (differs only for names pydantic reserves).
        annotation: The resolved annotation (plain-string ``Annotated`` metadata removed).
        default: The default value, or ``...`` when the parameter is required.
        description: From ``Annotated[T, "..."]`` or the docstring's ``Args`` section.
    """

    name: str
    field_name: str
    annotation: object
    default: Any
    description: str | None


@dataclass(frozen=True, slots=True)
class FunctionSignature:
    """A function tool's parameters and output type, resolved once.

    Attributes:
        parameters: In declaration order (the model-seat parameter is not one of them).
        output_type: The declared return type, or ``None`` when unannotated.
        seat: ``(parameter, grade)`` of the parameter annotated ``ModelSeat``, which the
            framework fills in and the published schema leaves out; ``None`` when there is none.
    """

    parameters: tuple[FunctionParameter, ...]
    output_type: object
    seat: tuple[str, str | None] | None = None

    @property
    def arguments(self) -> tuple[tuple[str, str], ...]:
        """``(parameter, field)`` pairs: the function gets ``parameter=validated.field``."""
        return tuple((p.name, p.field_name) for p in self.parameters)


def docstring_parts(doc: str | None, target: str = "a tool") -> tuple[str, dict[str, str]]:
    """Split a docstring into the description a model reads and per-parameter descriptions.

    The description is the docstring without its Google-style sections (``Args``,
    ``Returns``, ``Raises``, ``Attributes``, ``Example``, ...); the parameters come from the
    ``Args`` section.

    Raises:
        ToolDeclarationError: The sections cannot be read (``target`` names the tool).
    """
    if not doc or not doc.strip():
        return "", {}
    cleaned = _cleandoc(doc)
    if not any(header in cleaned for header in _SECTION_HEADERS):
        return cleaned, {}
    return _parse_sections(cleaned, target)


def docstring_description(doc: str | None, target: str = "a tool") -> str:
    """The description part of a docstring alone, without parsing its sections.

    A catalog reads thousands of descriptions (``request_tools`` lists them), so this takes
    the text before the first line that is exactly a section header; a docstring whose
    sections do not start that plainly gets the full parse of `docstring_parts`.
    """
    if not doc or not doc.strip():
        return ""
    cleaned = _cleandoc(doc)
    if not any(header in cleaned for header in _SECTION_HEADERS):
        return cleaned
    lines = cleaned.splitlines()
    for index, line in enumerate(lines):
        if line in _SECTION_HEADERS:
            head = "\n".join(lines[:index]).strip()
            if head:
                return head
            break
    return docstring_parts(doc, target)[0]


#: The section titles docstring_parser's Google parser knows, in its order, and its title line.
_PARSER_TITLES = (
    "Arguments",
    "Args",
    "Parameters",
    "Params",
    "Raises",
    "Exceptions",
    "Except",
    "Attributes",
    "Example",
    "Examples",
    "Returns",
    "Yields",
)
_TITLE_LINE = re.compile(
    "^(" + "|".join(f"({title})" for title in _PARSER_TITLES) + "):[ \t\r\f\v]*$", re.M
)
_PARAMETER_TITLES = frozenset({"Arguments", "Args", "Parameters", "Params"})
#: Sections docstring_parser reads as one block, which it never refuses.
_BLOCK_TITLES = frozenset({"Example", "Examples", "Returns", "Yields"})
_UNINDENTED_LINE = re.compile(r"\n\S")
_LEADING_SPACE = re.compile(r"^\s*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parameter_docs(doc: str | None, target: str = "a tool") -> dict[str, str]:
    """The per-parameter descriptions of a docstring's ``Args`` section.

    The same answer as ``docstring_parts(doc)[1]``. A catalog reads thousands of docstrings,
    and docstring_parser is most of a function tool's schema: a docstring whose sections are
    an ``Args`` section of ``name: description`` entries and, besides it, only ``Returns``,
    ``Yields`` or ``Example(s)`` is read here, splitting and cleaning each entry exactly as
    docstring_parser does; any other docstring gets the full parse.

    Raises:
        ToolDeclarationError: The sections cannot be read (``target`` names the tool).
    """
    if not doc or not doc.strip():
        return {}
    cleaned = _cleandoc(doc)
    if not any(header in cleaned for header in _SECTION_HEADERS):
        return {}
    quick = _quick_parameter_docs(cleaned)
    return quick if quick is not None else _parse_sections(cleaned, target)[1]


def _quick_parameter_docs(cleaned: str) -> dict[str, str] | None:
    """docstring_parser's parameter descriptions of ``cleaned``, or ``None``: parse it fully."""
    if "\n" in cleaned and _UNINDENTED_LINE.search(cleaned) is None:
        # docstring_parser cleans the text again, which then dedents every line but the first.
        return None
    titles = list(_TITLE_LINE.finditer(cleaned))
    params: dict[str, str] | None = None
    for index, title in enumerate(titles):
        name = title.group(1)
        if name in _BLOCK_TITLES:
            continue
        if name not in _PARAMETER_TITLES or params is not None:
            return None  # a section docstring_parser may refuse, or two parameter sections
        end = titles[index + 1].start() if index + 1 < len(titles) else len(cleaned)
        details = cleaned[title.end() : end]
        unindented = _UNINDENTED_LINE.search(details)
        if unindented is not None:
            details = details[: unindented.start()]
        params = _quick_entries(details.strip("\n"))
        if params is None:
            return None
    return params if params is not None else {}


def _quick_entries(chunk: str) -> dict[str, str] | None:
    """The ``name: description`` entries of a parameter section, read as docstring_parser does."""
    indent = _LEADING_SPACE.match(chunk)
    if indent is None or not indent.group() or "\n" in indent.group():
        return None
    starts = list(re.finditer("^" + re.escape(indent.group()) + r"(?=\S)", chunk, flags=re.M))
    if not starts or starts[0].start() != 0:
        return None
    params: dict[str, str] = {}
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(chunk)
        part = chunk[start.end() : end].strip("\n")
        if ":" not in part:
            return None
        before, description = part.split(":", 1)
        if _IDENTIFIER.fullmatch(before) is None:
            return None  # a typed entry, ``name (int):``, or something odder
        if description:
            description = description[1:] if description[0] == " " else description
            if "\n" in description:
                first_line, rest = description.split("\n", 1)
                description = first_line + "\n" + inspect.cleandoc(rest)
            description = description.strip("\n")
        if description:
            params[before] = description
    return params


@functools.lru_cache(maxsize=64)
def _cleandoc(doc: str) -> str:
    """`inspect.cleandoc`, remembered: a tool's description and its parameters read one doc."""
    return inspect.cleandoc(doc)


@functools.lru_cache(maxsize=512)
def _parse_sections(cleaned: str, target: str) -> tuple[str, dict[str, str]]:
    import docstring_parser

    try:
        parsed = docstring_parser.parse(cleaned, style=docstring_parser.DocstringStyle.GOOGLE)
    except docstring_parser.ParseError as exc:
        raise ToolDeclarationError(
            target,
            [
                f"its docstring's Google-style sections cannot be read ({exc}); under 'Args:' "
                "write one 'name: description' line per parameter"
            ],
        ) from exc
    parts = [part for part in (parsed.short_description, parsed.long_description) if part]
    description = "\n\n".join(parts) if parts else cleaned
    params = {param.arg_name: param.description for param in parsed.params if param.description}
    return description, params


def function_signature(fn: Callable[..., Any]) -> FunctionSignature:
    """Resolve a function tool's annotations, defaults and parameter descriptions.

    Raises:
        ToolDeclarationError: An annotation cannot be resolved.
    """
    from nucleo_core.tools.decorator import describe_target

    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:  # NameError, TypeError: an annotation that cannot be evaluated
        raise ToolDeclarationError(
            describe_target(fn),
            [
                f"an annotation cannot be resolved ({type(exc).__name__}: {exc}); import the types "
                "it names at module level"
            ],
        ) from exc
    param_docs = parameter_docs(fn.__doc__, describe_target(fn))
    reserved = _reserved_names()
    parameters: list[FunctionParameter] = []
    seat: tuple[str, str | None] | None = None
    for parameter in _signature_parameters(fn):
        found = _seat_parameter(fn, parameter.name, hints[parameter.name])
        if found is not None:  # filled in by the framework, never described to the model
            if seat is not None:
                raise ToolDeclarationError(
                    describe_target(fn),
                    [f"parameters {seat[0]!r} and {found[0]!r} both take a ModelSeat: keep one"],
                )
            seat = found
            continue
        annotation, annotated_description = _plain_string_metadata(hints[parameter.name])
        description = annotated_description or param_docs.get(parameter.name)
        field_name = parameter.name
        if field_name.startswith("_") or field_name in reserved:
            # pydantic reserves these names; the parameter's own name stays on the wire (alias).
            field_name = f"param_{field_name.lstrip('_')}"
        parameters.append(
            FunctionParameter(
                name=parameter.name,
                field_name=field_name,
                annotation=annotation,
                default=parameter.default,
                description=description,
            )
        )
    return FunctionSignature(
        parameters=tuple(parameters), output_type=hints.get("return"), seat=seat
    )


@dataclass(frozen=True, slots=True)
class _Parameter:
    name: str
    default: Any  # ``...`` when the parameter has none


def _signature_parameters(fn: Callable[..., Any]) -> list[_Parameter]:
    """``fn``'s parameters in order with their defaults, as `inspect.signature` gives them.

    A catalog resolves thousands of signatures and `inspect.signature` is a sixth of that
    work, so a plain function (no ``*args``/``**kwargs``, not wrapped, no ``__signature__``) is
    read from its code object and defaults directly; anything else asks `inspect.signature`.
    """
    code = getattr(fn, "__code__", None)
    if (
        type(fn) is not types.FunctionType
        or code is None
        or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        or "__wrapped__" in fn.__dict__
        or "__signature__" in fn.__dict__
    ):
        return [
            _Parameter(p.name, ... if p.default is p.empty else p.default)
            for p in inspect.signature(fn).parameters.values()
        ]
    positional, keyword_only = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[: positional + keyword_only]
    defaults = fn.__defaults__ or ()
    keyword_defaults = fn.__kwdefaults__ or {}
    first_default = positional - len(defaults)
    parameters = [
        _Parameter(name, defaults[index - first_default] if index >= first_default else ...)
        for index, name in enumerate(names[:positional])
    ]
    parameters += [_Parameter(name, keyword_defaults.get(name, ...)) for name in names[positional:]]
    return parameters


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

    from nucleo_core.tools.decorator import describe_target

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


def _plain_string_metadata(annotation: object) -> tuple[object, str | None]:
    """Read ``Annotated[T, "description"]``: a plain string is taken as the description."""
    if get_origin(annotation) is not Annotated:
        return annotation, None
    base, *extras = get_args(annotation)
    strings = [extra for extra in extras if isinstance(extra, str)]
    if not strings:
        return annotation, None
    others = [extra for extra in extras if not isinstance(extra, str)]
    rebuilt = Annotated[(base, *others)] if others else base
    return rebuilt, strings[0]


def _seat_parameter(
    fn: Callable[..., Any], name: str, annotation: object
) -> tuple[str, str | None] | None:
    """``(name, declared grade or None)`` for a ``ModelSeat`` parameter, ``None`` for another.

    Raises:
        ToolDeclarationError: ``ModelSeat`` is part of a wider annotation (``ModelSeat | None``),
            which the framework could neither fill in nor describe.
    """
    from nucleo_core.tools.seat import ModelSeat, SeatGrade

    base: object = annotation
    extras: tuple[object, ...] = ()
    if get_origin(annotation) is Annotated:
        base, *rest = get_args(annotation)
        extras = tuple(rest)
    if base is ModelSeat:
        grades = [extra.grade for extra in extras if isinstance(extra, SeatGrade)]
        return (name, grades[0] if grades else None)
    if ModelSeat in get_args(base):
        from nucleo_core.tools.decorator import describe_target

        raise ToolDeclarationError(
            describe_target(fn),
            [
                f"parameter {name!r}: annotate a model seat as plain ModelSeat (or "
                "Annotated[ModelSeat, SeatGrade(...)]); the framework always fills it in"
            ],
        )
    return None


@functools.cache
def _reserved_names() -> frozenset[str]:
    from pydantic import BaseModel

    return frozenset(dir(BaseModel))


def _has_field_description(annotation: object) -> bool:
    if get_origin(annotation) is not Annotated:
        return False
    from pydantic.fields import FieldInfo

    return any(
        isinstance(extra, FieldInfo) and extra.description for extra in get_args(annotation)[1:]
    )
