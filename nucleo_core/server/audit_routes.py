"""The audit's routes: ``/api/audit`` a page at a time, ``/api/audit/stream`` live.

Both take the filters of ``nucleo audit`` (`AuditReader` reads the record).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Header, Query
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from nucleo_core.guard.audit.events import AuditKind
from nucleo_core.server.audit_views import AuditReader
from nucleo_core.server.errors import ApiError
from nucleo_core.server.identity import Identity
from nucleo_core.server.models import AuditPage
from nucleo_core.server.route_docs import TEXT, TOOL, errors

if TYPE_CHECKING:
    from nucleo_core.guard.audit import AuditQuery
    from nucleo_core.server.service import ApiService

__all__ = ["add_audit_routes"]

#: The largest integer a cursor takes (SQLite's integers are 64-bit).
_MAX_CURSOR = 2**62
_SINCE = "From then on: an ISO 8601 time (UTC unless it says) or an age (30s, 15m, 2h, 7d)."
_THINKER = "A thinker class (bare or qualified), an instance id or a token's identity."
_AFTER = "Only records after this sequence number (the previous page's next_after)."
_DEVELOPER = "Include the failures' exception messages and tracebacks."
_SINCE_PATTERN = (
    r"^(\d{1,9} ?[smhd]|\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?"
    r"(Z|[+-]\d{2}:\d{2})?)$"
)

#: One event of the audit stream, as a client's event parser reads it.
_SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "event": {"type": "string", "enum": ["record"]},
        "id": {"type": "string", "description": "The record's sequence number."},
        "data": {"type": "string", "description": "The record, as JSON (an AuditRecordView)."},
        "retry": {"type": "integer"},
    },
}

#: The switch both routes take: the failures' developer details, or not.
_Developer = Annotated[bool, Query(description=_DEVELOPER)]


class _AuditFilters(BaseModel):
    """The filters both routes take, as ``nucleo audit`` takes them (query parameters)."""

    since: str | None = Field(
        default=None, max_length=100, pattern=_SINCE_PATTERN, description=_SINCE
    )
    thinker: str | None = Field(default=None, max_length=TEXT, description=_THINKER)
    tool: str | None = Field(default=None, max_length=TEXT, description=TOOL)
    kind: list[AuditKind] | None = Field(default=None, description="Only records of these kinds.")
    after: int = Field(default=0, ge=0, le=_MAX_CURSOR, description=_AFTER)

    def query(self, *, seen: int = 0) -> AuditQuery:
        """What `AuditReader` reads: the records these filters match after ``after`` and ``seen``.

        Args:
            seen: The last record a reconnecting stream saw (its ``Last-Event-ID``).
        """
        return AuditReader.query(
            since=_since(self.since),
            after=max(self.after, seen),
            thinker=self.thinker,
            tool=self.tool,
            kinds=self.kind or (),
        )


def add_audit_routes(app: FastAPI, service: ApiService) -> None:
    """Route ``/api/audit`` and ``/api/audit/stream`` to ``service``'s audit reader."""
    reader = service.audit

    @app.get("/api/audit", tags=["audit"], responses=errors(401, 422))
    def audit_page(
        who: Identity,
        filters: Annotated[_AuditFilters, Query()],
        limit: Annotated[int, Query(ge=1, le=1000, description="At most this many records.")] = 100,
        developer: _Developer = False,
    ) -> AuditPage:
        """The audit record, a page at a time, with the filters of ``nucleo audit``.

        ``since``: an ISO 8601 time (UTC unless it says) or an age (30s, 15m, 2h, 7d).
        ``thinker``: a class (bare or qualified) or an instance id, its sub-thinkers included;
        a token's identity (api-token:...) selects what that token did. ``tool``: a name or a
        glob. ``after``: the previous page's ``next_after``. ``developer``: include the
        failures' exception messages and tracebacks.
        """
        del who
        return reader.page(filters.query(), limit, developer=developer)

    @app.get(
        "/api/audit/stream",
        tags=["audit"],
        response_class=StreamingResponse,
        responses={
            200: {
                "content": {"text/event-stream": {"schema": _SSE_EVENT}},
                "description": "One event a record (id: its sequence; data: its JSON).",
            },
            **errors(401, 422),
        },
    )
    def audit_stream(
        who: Identity,
        filters: Annotated[_AuditFilters, Query()],
        developer: _Developer = False,
        last_event_id: Annotated[
            str | None,
            Header(
                alias="Last-Event-ID",
                max_length=100,
                description=(
                    "Sent by a reconnecting EventSource: the last record it saw (anything but "
                    "a sequence number is ignored)."
                ),
            ),
        ] = None,
    ) -> StreamingResponse:
        """Server-sent events: the records after ``after``, then each new one, live.

        The filters are ``GET /api/audit``'s. A reconnecting ``EventSource`` sends
        ``Last-Event-ID`` and goes on after the last record it saw.
        """
        del who
        seen = (last_event_id or "").strip()
        last_seen = min(int(seen), _MAX_CURSOR) if seen.isascii() and seen.isdigit() else 0
        return StreamingResponse(
            reader.stream(filters.query(seen=last_seen), developer=developer),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )


def _since(text: str | None) -> datetime | None:
    """``since`` as ``nucleo audit --since`` reads it: an ISO 8601 time or an age."""
    import re

    if text is None:
        return None
    relative = re.fullmatch(r"(\d{1,9})\s*([smhd])", text.strip())
    if relative is not None:
        amount, unit = relative.groups()
        units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
        try:
            return datetime.now(UTC) - timedelta(**{units[unit]: int(amount)})
        except OverflowError:
            return datetime.min.replace(tzinfo=UTC)
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ApiError(
            422,
            "invalid_input",
            "since: not a time; give an ISO 8601 time (2025-01-31T09:00, UTC unless it says) "
            "or an age (30s, 15m, 2h, 7d)",
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
