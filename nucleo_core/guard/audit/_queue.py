"""What an `AuditLog` queues: a record's parts and time, or records written with their batch.

`entries` turns a batch of the queue into the records' contents, joined with their times as
the batch is stored (never on the caller's path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from nucleo_core.guard.audit.records import time_text

__all__ = ["Deferred", "Queued", "count_queued", "entries"]


class Deferred(Protocol):
    """Records queued unwritten, their contents written when their batch is stored.

    `AuditLog._record_deferred` queues one; `AuditLog._follow` may set its ``then`` (more to
    write after what it holds) while it is the last thing queued. `write` must not raise, and
    must read only what does not change once recorded; `count` says how many records it
    writes.
    """

    then: Any

    def write(self, add: Callable[[str], object]) -> None:
        """Pass each record's content, in order, to ``add``."""
        ...

    def count(self) -> int:
        """How many records `write` writes."""
        ...


# A queued record: when (ns since the epoch), and its content before and after the time; or
# records written when their batch is stored (`Deferred`).
Queued = tuple[int, str, str] | Deferred


def entries(batch: list[Queued]) -> list[str]:
    contents: list[str] = []
    add = contents.append
    for queued in batch:
        if type(queued) is tuple:
            at, head, tail = queued
            add(head + time_text(at) + tail)
        else:
            cast("Deferred", queued).write(add)  # records written now, with their batch
    return contents


def count_queued(batch: list[Queued]) -> int:
    """How many records ``batch`` holds."""
    return sum(1 if type(queued) is tuple else cast("Deferred", queued).count() for queued in batch)
