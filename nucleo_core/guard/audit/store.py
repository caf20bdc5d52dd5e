"""`AuditStore`: the small protocol every audit store implements, and `AuditQuery`, its filter.

A store keeps records in order and seals them: `append` gives each entry the next sequence
number and its place in the hash chain *inside one write transaction*, so that several
processes appending to one store still make one chain. Batching is the `AuditLog`'s business,
not the store's; a store only has to make an append with ``durable=True`` survive a power
loss before it returns, and every other committed append survive the process's crash.

Implementations: `MemoryAuditStore` (tests), `SQLiteAuditStore` (the default). The same
contract tests run against each (``tests/unit/guard/audit/``); a PostgreSQL store (a later
issue) is one more, with the same columns (the filters' columns generated from the content)
and a head row taken ``FOR UPDATE``.
"""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from nucleo_core.guard.audit.records import AuditRecord, format_time, record_from_row
from nucleo_core.guard.audit.verify import VerifyReport

__all__ = [
    "AuditQuery",
    "AuditStore",
    "FollowsByPolling",
    "follow_records",
    "page_query",
    "paged_records",
]

_GLOB = frozenset("*?[")


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditQuery:
    """Which records to read; every filter given must match.

    Attributes:
        since: Only records made at or after this time (an aware ``datetime``).
        after: Only records whose sequence number is greater than this.
        thinker: Only records of this thinker or of the sub-thinkers it launched: a class's
            qualified name (``app.Planner``) or its bare name (``Planner``), or an instance id.
        tool: Only records of this tool: a name, or a glob (``mcp:*``, ``send_*``) matched
            against the tool's name and its source id.
        kinds: Only records of these kinds (empty: every kind).
    """

    since: datetime | None = None
    after: int = 0
    thinker: str | None = None
    tool: str | None = None
    kinds: frozenset[str] = frozenset()

    def matches(self, record: AuditRecord) -> bool:
        """Whether ``record`` passes every filter of this query."""
        if record.sequence <= self.after:
            return False
        if self.since is not None and record.at < self.since:
            return False
        if self.kinds and record.kind not in self.kinds:
            return False
        if self.tool is not None and not self._tool_matches(record):
            return False
        return self.thinker is None or self._thinker_matches(record)

    def _tool_matches(self, record: AuditRecord) -> bool:
        assert self.tool is not None
        if _GLOB.isdisjoint(self.tool):
            return record.tool == self.tool
        return any(
            value is not None and fnmatch.fnmatchcase(value, self.tool)
            for value in (record.tool, record.source)
        )

    def _thinker_matches(self, record: AuditRecord) -> bool:
        wanted = self.thinker
        requester = record.requester
        assert wanted is not None
        if requester is None:
            return False
        if _names(wanted, requester.thinker_class, requester.thinker_id):
            return True
        for parent in requester.parents:
            class_name, _, instance = parent.partition("#")
            if _names(wanted, class_name, instance or None):
                return True
        return False


def _names(wanted: str, class_name: str | None, instance: str | None) -> bool:
    if instance is not None and instance == wanted:
        return True
    return class_name is not None and (class_name == wanted or class_name.endswith("." + wanted))


@runtime_checkable
class AuditStore(Protocol):
    """Where audit records are kept, in order, hash-chained.

    A store class that subclasses it (as nucleo's do, through `FollowsByPolling`) inherits
    its `follow`, which polls the store's own `read`.
    """

    __slots__ = ()

    def append(self, contents: Sequence[str], *, durable: bool = False) -> int:
        """Seal and store one record per content, in order, in one transaction.

        Args:
            contents: The records' contents (see `AuditRecord.content`): the store numbers
                them and chains them.
            durable: Whether they must survive a power loss once this returns (else: a crash
                of the process).

        Returns:
            The sequence number of the last record now in the store.

        Raises:
            AuditStoreError: Nothing was stored.
        """
        ...

    def read(self, query: AuditQuery | None = None) -> Iterator[AuditRecord]:
        """The records ``query`` selects (every record without one), in sequence order."""
        ...

    def follow(
        self,
        query: AuditQuery | None = None,
        *,
        poll_interval: float = 0.5,
        stop: threading.Event | None = None,
    ) -> Iterator[AuditRecord]:
        """The records ``query`` selects, then each new one as it is appended, until ``stop``.

        Inherited: `read` asked every ``poll_interval`` seconds for the records after the last
        one it gave (`follow_records`).
        """
        return follow_records(self.read, query, poll_interval=poll_interval, stop=stop)

    def verify(self) -> VerifyReport:
        """Check the chain and the head; name the first bad record."""
        ...

    def flush(self) -> None:
        """Make every append so far durable (as if it had been appended with ``durable``)."""
        ...

    def close(self) -> None:
        """Release the store; it cannot be used afterwards. Closing twice is harmless."""
        ...


def follow_records(
    read: Callable[[AuditQuery], Iterator[AuditRecord]],
    query: AuditQuery | None,
    *,
    poll_interval: float,
    stop: threading.Event | None,
) -> Iterator[AuditRecord]:
    """`AuditStore.follow` by polling ``read`` for records after the last one seen."""
    base = query or AuditQuery()
    stopping = stop or threading.Event()
    last = base.after
    while True:
        for record in read(_after(base, last)):
            last = record.sequence
            yield record
        if stopping.wait(poll_interval):
            return


def _after(query: AuditQuery, sequence: int) -> AuditQuery:
    return AuditQuery(
        since=query.since,
        after=sequence,
        thinker=query.thinker,
        tool=query.tool,
        kinds=query.kinds,
    )


class FollowsByPolling(AuditStore):
    """The base of a store class: `AuditStore`, whose `follow` polls the store's own `read`."""

    __slots__ = ()


def page_query(
    query: AuditQuery, *, table: str, mark: str, field: Callable[[str], str], page: int
) -> tuple[str, list[Any]]:
    """A SQL store's query of one page of `paged_records`, and its parameters but the first.

    The filters the content answers in SQL (``since``, ``kinds``; the others are matched on
    each record read): ``field(name)`` is the backend's expression of the content's top-level
    ``name``, ``mark`` its placeholder. The first parameter, the sequence number to read
    after, is the page's.
    """
    where = [f"sequence > {mark}"]
    parameters: list[Any] = []
    if query.since is not None:
        where.append(f"{field('at')} >= {mark}")
        parameters.append(format_time(query.since))
    if query.kinds:
        where.append(f"{field('kind')} IN ({', '.join([mark] * len(query.kinds))})")
        parameters.extend(sorted(query.kinds))
    sql = (
        f"SELECT sequence, content, prev_digest, digest FROM {table} "
        f"WHERE {' AND '.join(where)} ORDER BY sequence LIMIT {page}"
    )
    return sql, parameters


def paged_records(
    fetch: Callable[[int], Sequence[tuple[int, str, str, str]]],
    query: AuditQuery,
    page: int,
) -> Iterator[AuditRecord]:
    """The records ``query`` selects, read ``page`` rows at a time by ``fetch``.

    ``fetch(after)`` returns the next rows (``sequence``, ``content``, ``prev_digest``,
    ``digest``) numbered above ``after``, in order, at most ``page`` of them: a reader holds
    the store (its lock, its connection) for one page at a time, never while its caller works.
    """
    last = query.after
    while True:
        rows = fetch(last)
        for sequence, content, prev_digest, digest in rows:
            record = record_from_row(sequence, content, prev_digest, digest)
            if query.matches(record):
                yield record
        if len(rows) < page:
            return
        last = rows[-1][0]
