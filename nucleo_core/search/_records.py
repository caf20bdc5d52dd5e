"""Reading what a caller hands the index (specs, providers, plain mappings) as `ToolSpec`s."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

from nucleo_core.search.errors import ToolRecordError
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.spec import ToolSpec

__all__ = ["ToolRecord", "iter_records", "read_records"]

#: What a `ToolIndex` accepts for one tool.
ToolRecord: TypeAlias = "ToolSpec | ToolProvider | Mapping[str, Any]"

#: The keys a plain mapping may carry its input schema under: nucleo's and MCP's
#: (``inputSchema`` on the wire) and OpenAI's function format (``parameters``).
_SCHEMA_KEYS = ("input_schema", "inputSchema", "parameters")

_MAX_NAME = 256


def read_records(records: Iterable[ToolRecord]) -> list[ToolSpec]:
    """Every record as a `ToolSpec`, all checked before any is returned.

    Raises:
        ToolRecordError: As `iter_records`.
    """
    return list(iter_records(records))


def iter_records(records: Iterable[ToolRecord]) -> Iterator[ToolSpec]:
    """Each record as a `ToolSpec`, checked as it is reached (so work can follow each one).

    Raises:
        ToolRecordError: A record is not a spec, a provider or a mapping; a mapping lacks a
            usable ``name``; its ``description`` is not text; its schema is not an object.
            Also when two records of the batch share a name (which one should win is
            ambiguous; `ToolIndex.add` replaces a name already indexed, one record at a time).
    """
    if isinstance(records, (str, bytes, Mapping, ToolSpec, ToolProvider)):
        raise ToolRecordError(
            0, None, "pass a list (or other iterable) of tools, not a single tool or text"
        )
    seen: dict[str, int] = {}
    for position, record in enumerate(records):
        spec = _read(position, record)
        if spec.name in seen:
            raise ToolRecordError(
                position,
                "name",
                f"the batch already holds a tool of this name (record {seen[spec.name]}); "
                "pass each name once",
            )
        seen[spec.name] = position
        yield spec


def _read(position: int, record: object) -> ToolSpec:
    # A plain dict first: the common case of a large catalog, and the cheapest check.
    if type(record) is dict:
        return _from_mapping(position, record)
    if isinstance(record, ToolSpec):
        _check_name(position, record.name)
        if not isinstance(record.description, str):
            raise ToolRecordError(position, "description", "must be text (str)")
        if not isinstance(record.input_schema, Mapping):
            raise ToolRecordError(position, "input_schema", "must be a JSON-schema object")
        return record
    if isinstance(record, ToolProvider):
        return _read(position, record.spec())
    if isinstance(record, Mapping):
        return _from_mapping(position, record)
    raise ToolRecordError(
        position,
        None,
        f"a {type(record).__name__} is not a tool: pass a ToolSpec, a ToolProvider, or a "
        "mapping with 'name', 'description' and 'input_schema'",
    )


def _from_mapping(position: int, record: Mapping[Any, Any]) -> ToolSpec:
    name = record.get("name")
    _check_name(position, name)
    assert isinstance(name, str)
    description = record.get("description")
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise ToolRecordError(
            position, "description", f"must be text (str), got {type(description).__name__}"
        )
    schema: Mapping[str, Any] = {}
    for key in _SCHEMA_KEYS:
        if key in record:
            found = record[key]
            # A dict first: the ABC check costs several times more, once per tool.
            if type(found) is dict or isinstance(found, Mapping):
                schema = found
            elif found is not None:
                raise ToolRecordError(
                    position, key, f"must be a JSON-schema object, got {type(found).__name__}"
                )
            break
    title = record.get("title")
    return ToolSpec(
        name=name,
        description=description,
        input_schema=schema,
        display_name=title if isinstance(title, str) else None,
    )


def _check_name(position: int, name: object) -> None:
    if not isinstance(name, str):
        kind = "missing" if name is None else f"a {type(name).__name__}"
        raise ToolRecordError(position, "name", f"must be text (str), got {kind}")
    if not name.strip():
        raise ToolRecordError(position, "name", "must not be empty")
    if len(name) > _MAX_NAME:
        raise ToolRecordError(position, "name", f"is longer than {_MAX_NAME} characters")
