"""An approval of an MCP server's elicitation (a paused run's question) is listed over HTTP.

Such a record's JSON carries its own ``kind`` ("elicitation") beside the view's ``kind`` (which
door decides it); listing or showing it must answer 200, not fail on the clash.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from _server_harness import running_server, server_environment

from nucleo_core.guard.approval_record import ApprovalRecord
from nucleo_core.guard.approval_store import SQLiteApprovalStore


def _elicitation(now: datetime) -> ApprovalRecord:
    return ApprovalRecord(
        id="elicit-1",
        thinker="Booker",
        conversation_id="conv",
        call_id="call_1",
        tool="book_table",
        source="mcp:restaurants",
        risk="high",
        requested_by="operator",
        requested_at=now,
        expires_at=now + timedelta(hours=1),
        decided_by_rule="mcp:elicitation",
        kind="elicitation",
        elicitation={"server": "restaurants", "message": "How many guests?", "schema": {}},
    )


def test_an_elicitation_approval_is_listed_and_shown_as_a_paused_run(tmp_path: Path) -> None:
    store = SQLiteApprovalStore(tmp_path / "approvals.sqlite3")
    try:
        store.add([_elicitation(datetime.now(UTC))])
    finally:
        store.close()
    environment = server_environment(
        tmp_path, NUCLEO_CONVERSATIONS=str(tmp_path / "conversations.sqlite3")
    )
    with running_server(tmp_path, environment=environment) as server:
        listed = server.request("GET", "/api/approvals")
        assert listed.status == 200, listed.body
        assert listed.body["count"] == 1
        (view,) = listed.body["approvals"]
        assert view["id"] == "elicit-1"
        assert view["kind"] == "thinker_run"
        assert view["resume_command"] == "nucleo resume conv"
        shown = server.request("GET", "/api/approvals/elicit-1")
        assert shown.status == 200, shown.body
        assert shown.body["tool"] == "book_table"
