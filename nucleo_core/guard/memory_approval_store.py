"""`MemoryApprovalStore`: approvals in this process's memory, for tests and in-memory services."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace

from nucleo_core.guard._approval_deciding import Decide, DecidesOnce, refusal
from nucleo_core.guard.approval_record import ApprovalRecord, ApprovalStatus

__all__ = ["MemoryApprovalStore"]


class MemoryApprovalStore(DecidesOnce):
    """Approvals kept in this process's memory (tests, in-memory conversation services)."""

    def __init__(self) -> None:
        self._records: dict[str, ApprovalRecord] = {}
        self._lock = threading.Lock()

    def add(self, records: Sequence[ApprovalRecord]) -> None:
        """Keep ``records`` (see `ApprovalStore.add`)."""
        with self._lock:
            for record in records:
                self._records.setdefault(record.id, record)

    def get(self, approval_id: str) -> ApprovalRecord | None:
        """The approval ``approval_id``, or ``None``."""
        with self._lock:
            return self._records.get(approval_id)

    def list(
        self, *, status: ApprovalStatus | None = None, conversation_id: str | None = None
    ) -> list[ApprovalRecord]:
        """The approvals (see `ApprovalStore.list`)."""
        with self._lock:
            found = sorted(self._records.values(), key=lambda r: r.requested_at)
        return [
            record
            for record in found
            if (status is None or record.status_at() == status)
            and (conversation_id is None or record.conversation_id == conversation_id)
        ]

    def claim(self, approval_id: str) -> bool:
        """Approved → consumed, once (see `ApprovalStore.claim`)."""
        with self._lock:
            record = self._records.get(approval_id)
            if record is None or record.status != "approved":
                return False
            self._records[approval_id] = replace(record, status="consumed")
            return True

    def close(self) -> None:
        """Nothing to release."""

    def _decide(self, approval_id: str, decide: Decide) -> ApprovalRecord:
        with self._lock:
            record = self._records.get(approval_id)
            if record is None or record.status_at() != "pending":
                raise refusal(record, approval_id)
            decided = decide(record)
            self._records[approval_id] = decided
            return decided
