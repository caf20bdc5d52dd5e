"""The audit record over HTTP: pages, the recent call log, and a server-sent-events stream.

Records are read through the hub's `AuditLog` (what it has queued is stored first, so a page
shows the call just made). A page is a slice in sequence order: ``after`` is the cursor, the
answer's ``next_after`` the next page's. The stream sends each record as one SSE event whose
``id`` is its sequence number, so a browser's ``EventSource`` that reconnects (it does, by
itself, when a response ends) goes on from the last record it saw (``Last-Event-ID``).

Developer details of a failure (its exception, message and traceback) stay out unless asked
for (``developer=true``): the message of an exception can quote anything.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from nucleo_core.server.errors import ApiError
from nucleo_core.server.models import AuditPage, AuditRecordView

if TYPE_CHECKING:
    from nucleo_core.guard.audit import AuditLog, AuditQuery, AuditRecord

__all__ = ["CALL_KINDS", "AuditReader"]

#: The kinds of record the recent call log (``GET /api/tools/logs``) shows.
CALL_KINDS: Final = frozenset(
    {"permission", "approval_request", "approval_decision", "call_start", "call_finish"}
)
#: How often the stream looks for new records, in seconds.
POLL_SECONDS: Final = 0.25
#: A comment line at least this often keeps proxies from closing an idle stream.
KEEPALIVE_SECONDS: Final = 15.0


class AuditReader:
    """Reads the audit record for the API.

    Args:
        log: The hub's audit log; ``None`` when the server keeps none (every read is empty).
        stream_seconds: How long one stream response lasts.
    """

    def __init__(self, log: AuditLog | None, *, stream_seconds: float) -> None:
        self._log = log
        self._stream_seconds = stream_seconds

    @staticmethod
    def query(
        *,
        since: datetime | None = None,
        after: int = 0,
        thinker: str | None = None,
        tool: str | None = None,
        kinds: Iterable[str] = (),
    ) -> AuditQuery:
        """The filter of ``nucleo audit``, as the API's parameters give it.

        Raises:
            ApiError: 422 a kind is not a kind of record.
        """
        from nucleo_core.guard.audit import AUDIT_KINDS, AuditQuery

        wanted = frozenset(kinds)
        if not wanted <= set(AUDIT_KINDS):
            raise ApiError(
                422,
                "invalid_input",
                f"kind: not a kind of record; use one of {', '.join(AUDIT_KINDS)}",
            )
        return AuditQuery(since=since, after=after, thinker=thinker, tool=tool, kinds=wanted)

    def page(self, query: AuditQuery, limit: int, *, developer: bool) -> AuditPage:
        """Up to ``limit`` records after the query's cursor, and the next page's cursor."""
        found: list[AuditRecordView] = []
        more = False
        for record in self._read(query):
            if len(found) == limit:
                more = True
                break
            found.append(_view(record, developer=developer))
        next_after = found[-1].sequence if more and found else None
        return AuditPage(records=found, next_after=next_after)

    def recent(self, query: AuditQuery, limit: int, *, developer: bool) -> AuditPage:
        """The last ``limit`` records the query selects, oldest first."""
        kept: deque[AuditRecord] = deque(maxlen=limit)
        kept.extend(self._read(query))
        return AuditPage(
            records=[_view(record, developer=developer) for record in kept], next_after=None
        )

    async def stream(self, query: AuditQuery, *, developer: bool) -> AsyncIterator[str]:
        """Server-sent events: the records after the cursor, then each new one, for a while.

        The response ends after the server's stream time; the client reconnects with
        ``Last-Event-ID`` and loses nothing.
        """
        from nucleo_core.guard.audit import AuditQuery

        # Tell EventSource to reconnect quickly when this response ends.
        yield "retry: 1000\n\n"
        ends = time.monotonic() + self._stream_seconds
        quiet_since = time.monotonic()
        last = query.after
        while time.monotonic() < ends:
            cursor = AuditQuery(
                since=query.since,
                after=last,
                thinker=query.thinker,
                tool=query.tool,
                kinds=query.kinds,
            )
            records = await asyncio.to_thread(self._listed, cursor)
            for record in records:
                last = record.sequence
                data = json.dumps(_view(record, developer=developer).model_dump(mode="json"))
                yield f"id: {record.sequence}\nevent: record\ndata: {data}\n\n"
                quiet_since = time.monotonic()
            if time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
                yield ": keep-alive\n\n"
                quiet_since = time.monotonic()
            await asyncio.sleep(POLL_SECONDS)

    def _listed(self, query: AuditQuery) -> list[AuditRecord]:
        return list(self._read(query))

    def _read(self, query: AuditQuery) -> Iterable[AuditRecord]:
        if self._log is None:
            return ()
        return self._log.read(query)


def _view(record: AuditRecord, *, developer: bool) -> AuditRecordView:
    data: dict[str, Any] = record.to_json()
    details = data.get("developer")
    if details is not None and not developer:
        # The type says what failed; the message and traceback may quote anything.
        data["developer"] = {"exception_type": details.get("exception_type")}
    return AuditRecordView(**data)
