"""The search layer's error: a record handed to a `ToolIndex` that is not a tool."""

from __future__ import annotations

from nucleo_core.errors import MisuseError

__all__ = ["ToolRecordError"]


class ToolRecordError(MisuseError, TypeError):
    """A record given to a `ToolIndex` cannot be read as a tool.

    Raised before the index changes at all: a batch with one bad record adds nothing.

    Attributes:
        position: The record's position in the batch it came in (0-based).
        field: The field at fault (``name``, ``description``, ``input_schema``), or ``None``
            when the record as a whole has the wrong type.
        reason: What is wrong and how to fix it.
    """

    def __init__(self, position: int, field: str | None, reason: str) -> None:
        self.position = position
        self.field = field
        self.reason = reason
        where = f"record {position}" + (f", field '{field}'" if field else "")
        super().__init__(f"Cannot index {where}: {reason}")
