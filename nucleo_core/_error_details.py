"""`keeps_details`: an error class whose constructor keeps each detail it is given as an attribute.

An error that carries details for the code that catches it (a server's id, a schema version)
declares them as annotated fields, as a dataclass does, and words its message from them in
``__post_init__``; a detail that is only worded, never kept, is an ``InitVar``::

    @keeps_details
    class ServerDown(NucleoError):
        server: str
        fix: InitVar[str]

        def __post_init__(self, fix: str) -> None:
            super().__init__(f"server '{self.server}' is down. {fix}")

The fields are the constructor's parameters, in order (``KW_ONLY`` makes the rest keyword-only),
and ``args`` is the message alone, as for any error that passes its message up. Equality and
``repr`` stay the exception's own: two errors are equal only when they are the same one, and the
``repr`` shows the message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar, dataclass_transform

__all__ = ["keeps_details"]

_Error = TypeVar("_Error", bound=BaseException)


@dataclass_transform(eq_default=False)
def keeps_details(cls: type[_Error]) -> type[_Error]:
    """Make ``cls`` keep its fields as attributes, its constructor taking them in order."""
    return dataclass(eq=False, repr=False)(cls)
