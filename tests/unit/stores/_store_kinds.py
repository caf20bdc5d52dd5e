"""The store backends every store contract test runs against: SQLite, then PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nucleo_core.guard.approval_store import ApprovalRecord
from nucleo_core.guard.audit import arguments_digest

BACKENDS = ["sqlite", "postgres"]


def store_url(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> str:
    """A fresh, empty store of ``backend``: a SQLite folder, or a PostgreSQL database."""
    if backend == "postgres":
        url: str = request.getfixturevalue("pg_url")
        return url
    return f"sqlite://{tmp_path / 'store'}"


def pending_approval(approval_id: str) -> ApprovalRecord:
    """A pending approval of a wire_money call, expiring in an hour."""
    now = datetime.now(UTC)
    arguments = {"to": "acme", "amount": 120}
    return ApprovalRecord(
        id=approval_id,
        thinker="app.Treasurer",
        conversation_id="conv",
        call_id="use_1",
        tool="wire_money",
        source="native:wire_money",
        risk="high",
        arguments=arguments,
        arguments_digest=arguments_digest(arguments),
        requested_at=now,
        expires_at=now + timedelta(hours=1),
    )
