"""Approvals of kind ``elicitation``: the answer checked and kept with the decision, used once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from nucleo_core.guard.approval_store import (
    ApprovalError,
    ApprovalRecord,
    ApprovalStore,
    MemoryApprovalStore,
    SQLiteApprovalStore,
)
from nucleo_core.guard.audit import arguments_digest
from nucleo_core.mcp.elicitation import CallElicitations, ElicitationRequest
from nucleo_core.thinking._execution_durable import (
    DelegationState,
    ElicitationPaused,
    ElicitationScope,
    settled_refusal,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "seats": {"type": "integer", "minimum": 1, "maximum": 10},
    },
    "required": ["name", "seats"],
}
ASKED = {
    "server": "full",
    "tool": "sign_up",
    "message": "How many seats?",
    "mode": "form",
    "schema": SCHEMA,
}


def elicitation(approval_id: str = "e1", **asked: Any) -> ApprovalRecord:
    """A pending elicitation approval of a ``sign_up`` call."""
    now = datetime.now(UTC)
    return ApprovalRecord(
        id=approval_id,
        thinker="app.Clerk",
        conversation_id="conv",
        call_id="use_1",
        tool="sign_up",
        source="mcp:full:sign_up",
        risk="low",
        arguments={},
        arguments_digest=arguments_digest({}),
        requested_at=now,
        expires_at=now + timedelta(hours=1),
        kind="elicitation",
        elicitation=ASKED | asked,
    )


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ApprovalStore]:
    """Each store kind (PostgreSQL: a real server, see tests/pg_server.py)."""
    made: ApprovalStore
    if request.param == "postgres":
        from nucleo_core.guard.postgres_approval_store import PostgresApprovalStore

        made = PostgresApprovalStore(request.getfixturevalue("pg_url"))
    elif request.param == "memory":
        made = MemoryApprovalStore()
    else:
        made = SQLiteApprovalStore(tmp_path / "approvals.sqlite3")
    yield made
    made.close()


def test_approving_keeps_the_content_that_fits_the_requested_schema(store: ApprovalStore) -> None:
    """The decided record holds the content, read back from the store as given."""
    store.add([elicitation()])
    store.approve("e1", content={"name": "Ada", "seats": 2})
    found = store.get("e1")
    assert found is not None
    assert (found.kind, found.status, dict(found.content or {})) == (
        "elicitation",
        "approved",
        {"name": "Ada", "seats": 2},
    )
    assert found.elicitation["message"] == "How many seats?"


def test_content_that_does_not_fit_decides_nothing_and_names_no_value(
    store: ApprovalStore,
) -> None:
    """Each problem is named by field and reason; the approval stays pending."""
    store.add([elicitation()])
    with pytest.raises(ApprovalError) as refused:
        store.approve("e1", content={"seats": 4711})
    assert "name: required" in str(refused.value)
    assert "seats: must be <= 10" in str(refused.value)
    assert "4711" not in str(refused.value)
    found = store.get("e1")
    assert found is not None
    assert found.status == "pending"


def test_a_call_approval_takes_no_content(store: ApprovalStore) -> None:
    """Content given to a call's approval is refused rather than silently dropped."""
    store.add([replace(elicitation(), kind="call", elicitation={})])
    with pytest.raises(ApprovalError, match="takes no content"):
        store.approve("e1", content={"name": "Ada"})


def test_a_call_record_is_written_as_before_and_an_elicitation_round_trips() -> None:
    """A call's JSON carries no elicitation fields; an elicitation's reads back whole."""
    call = replace(elicitation(), kind="call", elicitation={})
    assert "kind" not in call.to_json()
    again = ApprovalRecord.from_json(elicitation().to_json())
    assert again.kind == "elicitation"
    assert dict(again.elicitation) == ASKED


def test_a_decision_answers_the_same_request_once_and_another_request_is_pending() -> None:
    """Same server, tool, message and schema: the content, once; then pending again."""
    decided = replace(elicitation(), status="consumed", content={"name": "Ada", "seats": 2})
    scope = ElicitationScope(pausable=True, decided=(decided,))
    request = ElicitationRequest(server="full", message="How many seats?", schema=SCHEMA)
    first = CallElicitations("full", "sign_up", scope)
    answer = first.answer(request)
    assert (answer.action, dict(answer.content or {})) == ("accept", {"name": "Ada", "seats": 2})
    assert first.pending is None
    second = CallElicitations("full", "sign_up", scope)
    assert second.answer(request).action == "cancel"  # used once: pending again
    assert second.pending == ASKED
    other = CallElicitations("full", "sign_up", ElicitationScope(pausable=True, decided=(decided,)))
    assert other.answer(replace(request, message="Which plan?")).action == "cancel"
    assert other.pending is not None
    assert other.pending["message"] == "Which plan?"


def test_outside_a_pausable_turn_an_unanswered_elicitation_is_declined() -> None:
    """No one to ask and nothing to resume: no consent."""
    calls = CallElicitations("full", "sign_up", ElicitationScope(pausable=False))
    request = ElicitationRequest(server="full", message="How many seats?", schema=SCHEMA)
    assert calls.answer(request).action == "decline"
    assert calls.pending is None


def test_a_rejected_elicitation_is_a_refusal_with_the_reason_not_the_server_s_text() -> None:
    """The model reads who asked, that it was refused and why; never the message."""
    rejected = replace(elicitation(), status="rejected", reason="not this quarter")
    refusal = settled_refusal(rejected)
    assert refusal is not None
    assert "MCP server 'full'" in refusal
    assert "not this quarter" in refusal
    assert "How many seats?" not in refusal


def test_the_paused_call_s_state_round_trips_with_what_was_asked() -> None:
    """The delegation state a paused turn keeps reads back with its elicitation."""
    state = ElicitationPaused(ASKED).state
    kept = DelegationState(state.conversation_id, False, (elicitation(),), state.elicitation)
    again = DelegationState.from_json(kept.to_json())
    assert again.elicitation == ASKED
    assert again.approvals[0].kind == "elicitation"
