"""`render_output`: a tool's output as the text of its result block."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeGuard

from nucleo_core.tools.reply import is_reply

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["render_output"]


def render_output(output: object) -> str:
    """A tool's output as text for the model.

    A string is kept as it is and ``None`` is empty; a `ToolReply` (an MCP result) is the
    text it gives; a pydantic model is its JSON
    (``model_dump_json``); a dataclass, mapping (a TypedDict included), list or tuple is JSON,
    with anything JSON cannot hold inside it written as ``str()``; anything else is ``str()``.
    Output JSON cannot hold at all (a mapping with tuple keys) falls back to ``str()`` too.
    """
    if isinstance(output, str):
        return output
    if output is None:
        return ""
    if is_reply(output):
        return output.tool_reply()[0]
    if _is_pydantic_model(output):
        return output.model_dump_json()
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        value: object = dataclasses.asdict(output)
    elif isinstance(output, Mapping):
        value = dict(output)
    elif isinstance(output, list | tuple):
        value = output
    else:
        return str(output)
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_default)
    except (TypeError, ValueError):  # keys JSON cannot hold; a circular reference
        return str(output)


def _is_pydantic_model(value: object) -> TypeGuard[BaseModel]:
    """Whether ``value`` is a pydantic model.

    pydantic is imported only when the value's class looks like a model, so rendering plain
    output never imports it.
    """
    if not hasattr(type(value), "model_dump_json"):
        return False
    from pydantic import BaseModel

    return isinstance(value, BaseModel)


def _json_default(value: object) -> object:
    """What ``json.dumps`` writes for a value it cannot hold itself."""
    if _is_pydantic_model(value):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset):
        return list(value)
    return str(value)
