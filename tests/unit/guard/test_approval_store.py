"""The approvals' stores: each approval decided exactly once, claimed once, expiry read."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nucleo_core.guard.approval_store import (
    ApprovalAlreadyDecided,
    ApprovalError,
    ApprovalExpired,
    ApprovalNotFound,
    ApprovalRecord,
    ApprovalStatus,
    ApprovalStore,
    MemoryApprovalStore,
    SQLiteApprovalStore,
    default_approvals_path,
)
from nucleo_core.guard.audit import arguments_digest


def record(approval_id: str = "a1", *, expires_in: float = 3600.0) -> ApprovalRecord:
    """A pending approval of a wire_money call."""
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
        risk_declared=True,
        arguments=arguments,
        arguments_digest=arguments_digest(arguments),
        requested_at=now,
        expires_at=now + timedelta(seconds=expires_in),
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


def test_an_approval_is_decided_once_and_a_second_decision_says_how_it_was_decided(
    store: ApprovalStore,
) -> None:
    """Approving then rejecting raises ApprovalAlreadyDecided naming the first decision."""
    store.add([record()])
    decided = store.approve("a1", by="ops")
    assert decided.status == "approved"
    assert decided.decided_by == "ops"
    with pytest.raises(ApprovalAlreadyDecided, match="it was approved by ops"):
        store.reject("a1", "too late")
    with pytest.raises(ApprovalAlreadyDecided):
        store.approve("a1")
    found = store.get("a1")
    assert found is not None
    assert found.status == "approved"


def test_a_rejection_needs_a_reason_and_keeps_it(store: ApprovalStore) -> None:
    """An empty reason is refused (the model reads it); a given one is kept."""
    store.add([record()])
    with pytest.raises(ApprovalError, match="needs a reason"):
        store.reject("a1", " ")
    assert store.reject("a1", "unknown payee").reason == "unknown payee"


def test_an_unknown_id_is_not_found(store: ApprovalStore) -> None:
    """Deciding an id the store does not hold raises ApprovalNotFound."""
    with pytest.raises(ApprovalNotFound):
        store.approve("nope")


def test_an_expired_approval_reads_as_expired_and_cannot_be_decided(
    store: ApprovalStore,
) -> None:
    """A pending approval past its expiry is listed as expired and refuses a decision."""
    store.add([record(expires_in=0.0)])
    assert [r.id for r in store.list(status="expired")] == ["a1"]
    assert store.list(status="pending") == []
    with pytest.raises(ApprovalExpired):
        store.approve("a1")


def test_an_approved_approval_is_claimed_once(store: ApprovalStore) -> None:
    """claim() moves approved to consumed for one caller only; a pending one is not claimed."""
    store.add([record()])
    assert store.claim("a1") is False  # pending: nothing to claim
    store.approve("a1")
    assert store.claim("a1") is True
    assert store.claim("a1") is False
    found = store.get("a1")
    assert found is not None
    assert found.status == "consumed"


def test_listing_by_status_finds_each_approval_under_the_status_it_reads_as_now(
    store: ApprovalStore,
) -> None:
    """list(status=...) is the full list filtered by status_at, for every status at once."""
    store.add([record(f"a{n}") for n in range(5)] + [record("late", expires_in=0.0)])
    store.approve("a1")
    store.approve("a2")
    assert store.claim("a2")
    store.reject("a3", "no")
    reading: dict[ApprovalStatus, list[str]] = {
        "pending": ["a0", "a4"],
        "approved": ["a1"],
        "consumed": ["a2"],
        "rejected": ["a3"],
        "expired": ["late"],
    }
    everything = store.list()
    for status, ids in reading.items():
        listed = store.list(status=status)
        assert sorted(r.id for r in listed) == ids, status
        assert listed == [r for r in everything if r.status_at() == status], status
    assert store.list(status="approved", conversation_id="elsewhere") == []
    assert [r.id for r in store.list(status="approved", conversation_id="conv")] == ["a1"]


def test_adding_an_approval_again_leaves_the_kept_one_as_it_is(store: ApprovalStore) -> None:
    """add() of a kept id never undoes its decision (a resume files the approvals again)."""
    store.add([record()])
    store.reject("a1", "no")
    store.add([record()])
    found = store.get("a1")
    assert found is not None
    assert found.status == "rejected"


def test_two_processes_deciding_at_once_one_wins(tmp_path: Path) -> None:
    """Of many stores on one file deciding one approval at once, exactly one succeeds."""
    path = tmp_path / "approvals.sqlite3"
    SQLiteApprovalStore(path).add([record()])
    stores = [SQLiteApprovalStore(path) for _ in range(8)]
    start = threading.Barrier(len(stores))
    won: list[str] = []
    lost: list[Exception] = []

    def decide(index: int, store: SQLiteApprovalStore) -> None:
        start.wait()
        try:
            if index % 2:
                store.approve("a1", by=f"d{index}")
            else:
                store.reject("a1", "no", by=f"d{index}")
            won.append(f"d{index}")
        except ApprovalAlreadyDecided as exc:
            lost.append(exc)

    threads = [threading.Thread(target=decide, args=pair) for pair in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1
    assert len(lost) == len(stores) - 1
    found = SQLiteApprovalStore(path).get("a1")
    assert found is not None
    assert found.decided_by == won[0]


def test_an_approval_is_bound_to_the_digest_of_its_arguments() -> None:
    """bound_to() holds for the very arguments only, and not for a record edited in place."""
    kept = record()
    assert kept.bound_to({"amount": 120, "to": "acme"})  # key order does not matter
    assert not kept.bound_to({"to": "acme", "amount": 121})
    assert not kept.bound_to({"to": "acme"})


def test_an_edited_record_authorises_nothing() -> None:
    """A record whose arguments no longer match its digest is bound to no call."""
    kept = record()
    forged = ApprovalRecord.from_json(kept.to_json() | {"arguments": {"to": "mallory"}})
    assert not forged.bound_to({"to": "mallory"})
    assert not forged.bound_to({"to": "acme", "amount": 120})


def test_the_default_path_is_beside_the_conversations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """approvals.sqlite3 next to the conversations' file, unless $NUCLEO_APPROVALS says."""
    monkeypatch.delenv("NUCLEO_APPROVALS", raising=False)
    assert default_approvals_path(tmp_path / "c.sqlite3") == tmp_path / "approvals.sqlite3"
    monkeypatch.setenv("NUCLEO_APPROVALS", str(tmp_path / "elsewhere.sqlite3"))
    assert default_approvals_path(tmp_path / "c.sqlite3") == tmp_path / "elsewhere.sqlite3"
