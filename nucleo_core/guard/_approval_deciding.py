"""What every approvals' store shares: deciding a record once, and its row as JSON.

Each store reads a record, checks it is still pending (`refusal` says why not), makes the
decided record (`decided_record`: an elicitation's content checked against its requested schema) and
writes it under its own condition (a lock, or a conditional ``UPDATE``). `DecidesOnce` gives a
store its `approve` and `reject` on its own ``_decide``. A row keeps the record's JSON
(`encoded`) beside a status column, which wins when it is read back (`from_row`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from nucleo_core.guard.approval_record import (
    ApprovalAlreadyDecided,
    ApprovalError,
    ApprovalExpired,
    ApprovalNotFound,
    ApprovalRecord,
    ApprovalStatus,
    ApprovalStoreError,
    stored_as,
)
from nucleo_core.guard.elicitation_answer import answer_problems

__all__ = [
    "Decide",
    "DecidesOnce",
    "check_reason",
    "decided_record",
    "encoded",
    "from_row",
    "listed",
    "listing_query",
    "refusal",
    "row_values",
]


#: What a decision makes of the pending record it was asked of (`decided_record`).
Decide = Callable[[ApprovalRecord], ApprovalRecord]


class DecidesOnce:
    """Mixin: an `ApprovalStore`'s `approve` and `reject`, on the store's ``_decide``.

    ``_decide(approval_id, decide)`` reads the approval, raises `refusal`'s error unless it is
    pending, and keeps ``decide(record)`` under the store's own condition, once.
    """

    __slots__ = ()

    def approve(
        self,
        approval_id: str,
        *,
        by: str = "",
        note: str = "",
        content: Mapping[str, Any] | None = None,
    ) -> ApprovalRecord:
        """Approve, once (see `ApprovalStore.approve`)."""
        return self._decide(
            approval_id, lambda record: decided_record(record, "approved", by, note, content)
        )

    def reject(self, approval_id: str, reason: str, *, by: str = "") -> ApprovalRecord:
        """Reject, once (see `ApprovalStore.reject`)."""
        said = check_reason(reason)
        return self._decide(
            approval_id, lambda record: decided_record(record, "rejected", by, said)
        )

    def _decide(self, approval_id: str, decide: Decide) -> ApprovalRecord:
        raise NotImplementedError


def listing_query(
    table: str, mark: str, status: ApprovalStatus | None, conversation_id: str | None
) -> tuple[str, tuple[str, ...]]:
    """A SQL store's query of `ApprovalStore.list` over ``table``, and its parameters.

    ``mark`` is the driver's placeholder (``?``, ``%s``). Only the rows that can read as
    ``status`` are selected (`stored_as`), so the others are never parsed; `listed` keeps
    those that do.
    """
    where: list[str] = []
    params: tuple[str, ...] = ()
    if conversation_id is not None:
        where.append(f"conversation_id = {mark}")
        params = (conversation_id,)
    if status is not None:
        stored = stored_as(status)
        where.append(f"status IN ({', '.join([mark] * len(stored))})")
        params += stored
    query = f"SELECT status, record FROM {table}"
    if where:
        query += " WHERE " + " AND ".join(where)
    return query + " ORDER BY requested_at, id", params


def listed(rows: Iterable[tuple[str, str]], status: ApprovalStatus | None) -> list[ApprovalRecord]:
    """The records of ``rows`` that read as ``status`` now (all of them without one)."""
    found = [from_row(row) for row in rows]
    return [r for r in found if status is None or r.status_at() == status]


def row_values(records: Sequence[ApprovalRecord]) -> list[tuple[str, str, str, float, float, str]]:
    """The rows of ``records`` for a SQL store: id, conversation, status, times, the JSON."""
    return [
        (
            r.id,
            r.conversation_id,
            r.status,
            r.requested_at.timestamp(),
            r.expires_at.timestamp(),
            encoded(r),
        )
        for r in records
    ]


def _now() -> datetime:
    return datetime.now(UTC)


def check_reason(reason: object) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ApprovalError(
            "a rejection needs a reason (a non-empty string): it is what the model reads"
        )
    return reason.strip()


def decided_record(
    record: ApprovalRecord,
    status: ApprovalStatus,
    by: str,
    reason: str,
    content: Mapping[str, Any] | None = None,
) -> ApprovalRecord:
    kept = _checked_content(record, content) if status == "approved" else None
    return replace(
        record, status=status, decided_at=_now(), decided_by=by, reason=reason, content=kept
    )


def _checked_content(
    record: ApprovalRecord, content: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """The answer an approval keeps: none for a call, a fitting one for a form elicitation."""
    if record.kind != "elicitation":
        if content is not None:
            raise ApprovalError(
                f"approval {record.id} is of a call of {record.tool!r}, not of an elicitation: "
                "it takes no content"
            )
        return None
    if record.elicitation.get("mode", "form") == "url":
        if content:
            raise ApprovalError(
                f"approval {record.id} asks to open a URL: approving it takes no content"
            )
        return MappingProxyType({})
    schema = record.elicitation.get("schema") or {}
    problems = answer_problems(schema, {} if content is None else content)
    if problems:
        raise ApprovalError(
            f"the content does not fit what MCP server "
            f"'{record.elicitation.get('server', '?')}' asked for ({'; '.join(problems)}); "
            "nothing was decided: approve it again with content that fits (--content JSON)"
        )
    return MappingProxyType(dict(content or {}))


def refusal(record: ApprovalRecord | None, approval_id: str) -> ApprovalError:
    """Why ``record`` could not be decided: it is missing, expired, or decided already."""
    if record is None:
        return ApprovalNotFound(approval_id)
    if record.status_at() == "expired":
        return ApprovalExpired(record)
    return ApprovalAlreadyDecided(record)


def encoded(record: ApprovalRecord) -> str:
    return json.dumps(record.to_json() | {"status": record.status}, sort_keys=True)


def from_row(row: tuple[str, str]) -> ApprovalRecord:
    status, text = row
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ApprovalStoreError(f"an approval record is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ApprovalStoreError("an approval record is not a JSON object")
    # The status column is the one the conditional updates move: it wins over the copy.
    return ApprovalRecord.from_json(data | {"status": status})
