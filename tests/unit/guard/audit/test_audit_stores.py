"""The store contract, run against every AuditStore, and the AuditLog in front of them."""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nucleo_core.guard.audit import (
    AuditEvent,
    AuditLog,
    AuditQuery,
    AuditStore,
    AuditStoreError,
    DeveloperDetails,
    MemoryAuditStore,
    Requester,
    SQLiteAuditStore,
)
from nucleo_core.guard.audit.records import make_content

PLANNER = Requester(thinker_class="app.Planner", thinker_id="p1", conversation_id="c1")
HELPER = Requester(
    thinker_class="app.Helper", thinker_id="h1", conversation_id="c1", parents=("app.Planner#p1",)
)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AuditStore]:
    """Each store implementation, fresh (PostgreSQL: a real server, tests/pg_server.py)."""
    made: AuditStore
    if request.param == "postgres":
        from nucleo_core.guard.audit.postgres_store import PostgresAuditStore

        made = PostgresAuditStore(request.getfixturevalue("pg_url"))
    else:
        made = (
            MemoryAuditStore() if request.param == "memory" else SQLiteAuditStore(tmp_path / "a.db")
        )
    yield made
    made.close()


def content(event: AuditEvent, at_ns: int | None = None) -> str:
    return make_content(event, time.time_ns() if at_ns is None else at_ns, None, None)


def test_appends_are_numbered_from_one_in_order_and_chained(store: AuditStore) -> None:
    """Records come back in the order appended, numbered 1, 2, 3, each chained to the last."""
    assert store.append([content(AuditEvent(kind="grant", tool=f"t{i}")) for i in range(3)]) == 3
    assert store.append([content(AuditEvent(kind="refusal", skill="s"))]) == 4
    records = list(store.read())
    assert [record.sequence for record in records] == [1, 2, 3, 4]
    assert [record.tool for record in records] == ["t0", "t1", "t2", None]
    assert all(b.prev_digest == a.digest for a, b in itertools.pairwise(records))
    assert store.verify().ok
    assert store.verify().head_sequence == 4


def test_an_empty_store_reads_nothing_and_verifies(store: AuditStore) -> None:
    """A store never appended to holds no record, and is intact."""
    assert list(store.read()) == []
    report = store.verify()
    assert report.ok
    assert report.records == 0


def test_filters_select_by_time_thinker_tool_and_kind(store: AuditStore) -> None:
    """since, thinker (class, bare class, id, or a parent), tool (name or glob) and kinds."""
    old = time.time_ns() - 3_600 * 10**9
    store.append(
        [
            content(AuditEvent(kind="grant", requester=PLANNER, tool="forecast"), old),
            content(AuditEvent(kind="call_start", requester=HELPER, tool="send_mail")),
            content(
                AuditEvent(
                    kind="call_finish",
                    requester=PLANNER,
                    tool="x",
                    source="mcp:srv:x",
                    outcome="ok",
                )
            ),
            content(AuditEvent(kind="failure", rule="plugin broken")),
        ]
    )

    def sequences(**filters: object) -> list[int]:
        return [record.sequence for record in store.read(AuditQuery(**filters))]  # type: ignore[arg-type]

    assert sequences(since=datetime.now(UTC) - timedelta(minutes=1)) == [2, 3, 4]
    assert sequences(thinker="app.Planner") == [1, 2, 3]  # the helper was launched by p1
    assert sequences(thinker="Helper") == [2]
    assert sequences(thinker="h1") == [2]
    assert sequences(tool="forecast") == [1]
    assert sequences(tool="send_*") == [2]
    assert sequences(tool="mcp:*") == [3]
    assert sequences(kinds=frozenset({"grant", "failure"})) == [1, 4]
    assert sequences(after=2) == [3, 4]


def test_follow_yields_what_is_there_then_each_new_record_until_stopped(
    store: AuditStore,
) -> None:
    """Following reads the records there are, then those appended later, and ends on stop."""
    store.append([content(AuditEvent(kind="grant", tool="a"))])
    stop = threading.Event()
    seen: list[str | None] = []
    followed = store.follow(AuditQuery(kinds=frozenset({"grant"})), poll_interval=0.01, stop=stop)
    seen.append(next(followed).tool)
    store.append([content(AuditEvent(kind="refusal", tool="b"))])
    store.append([content(AuditEvent(kind="grant", tool="c"))])
    seen.append(next(followed).tool)
    stop.set()
    assert list(followed) == []
    assert seen == ["a", "c"]


def test_a_closed_store_refuses_to_append(store: AuditStore) -> None:
    """After close, an append raises AuditStoreError instead of dropping the record."""
    store.close()
    with pytest.raises(AuditStoreError, match="closed"):
        store.append([content(AuditEvent(kind="grant"))])


def test_the_log_stores_queued_records_on_flush_and_on_close(tmp_path: Path) -> None:
    """Batched records reach the file by flush or close, in the order recorded."""
    path = tmp_path / "a.db"
    log = AuditLog(SQLiteAuditStore(path), flush_interval=60)
    log.record(AuditEvent(kind="grant", tool="a"))
    log.flush()
    log.record(AuditEvent(kind="grant", tool="b"))
    log.close()
    reader = SQLiteAuditStore(path, create=False)
    assert [record.tool for record in reader.read()] == ["a", "b"]
    reader.close()


def test_a_durable_record_is_in_the_file_when_record_returns(tmp_path: Path) -> None:
    """record(durable=True) commits it, and every record queued before it, before returning."""
    path = tmp_path / "a.db"
    log = AuditLog(SQLiteAuditStore(path), flush_interval=60)
    log.record(AuditEvent(kind="permission", tool="t", decision="confirm"))
    log.record(AuditEvent(kind="call_start", tool="t"), durable=True)
    with sqlite3.connect(path) as other:
        kinds = [row[0] for row in other.execute("SELECT kind FROM audit_view ORDER BY 1")]
    other.close()
    assert sorted(kinds) == ["call_start", "permission"]
    log.close()


def test_the_log_writer_stores_batches_without_being_asked(tmp_path: Path) -> None:
    """Records reach the file within the flush interval, with no flush or close."""
    path = tmp_path / "a.db"
    log = AuditLog(SQLiteAuditStore(path), flush_interval=0.01)
    log.record(AuditEvent(kind="grant", tool="a"))
    reader = SQLiteAuditStore(path)  # the writer may not have created the file yet
    deadline = time.monotonic() + 30
    while not list(reader.read()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [record.tool for record in reader.read()] == ["a"]
    reader.close()
    log.close()


def test_a_closed_log_refuses_to_record() -> None:
    """Recording after close raises, never drops silently."""
    log = AuditLog(MemoryAuditStore())
    log.close()
    with pytest.raises(AuditStoreError, match="closed"):
        log.record(AuditEvent(kind="grant"))


def test_arguments_are_a_digest_unless_the_log_records_them() -> None:
    """Without record_arguments only the digest is kept; with it, the arguments too."""
    for keep in (False, True):
        log = AuditLog(MemoryAuditStore(), record_arguments=keep)
        log.record(AuditEvent(kind="call_start", tool="t", arguments={"token": "s3cret"}))
        (record,) = log.read()
        assert record.arguments_digest is not None
        assert (record.arguments == {"token": "s3cret"}) is keep
        assert ("s3cret" in record.content) is keep
        log.close()


def test_a_digest_given_with_the_event_is_kept_as_given() -> None:
    """An approval's digest passed along is recorded as it is, not recomputed."""
    log = AuditLog(MemoryAuditStore())
    log.record(
        AuditEvent(kind="approval_request", tool="t", arguments={"a": 1}, arguments_digest="d" * 64)
    )
    (record,) = log.read()
    assert record.arguments_digest == "d" * 64
    log.close()


def test_developer_details_are_stored_apart_from_the_reason(tmp_path: Path) -> None:
    """A tool's exception is kept in the developer details; the reason stays what it was."""
    log = AuditLog(SQLiteAuditStore(tmp_path / "a.db"))
    try:
        raise RuntimeError("dsn=postgres://admin:hunter2@db")
    except RuntimeError as exc:
        details = DeveloperDetails.from_exception(exc)
    log.record(
        AuditEvent(
            kind="call_finish",
            tool="t",
            outcome="tool_error",
            reason="the tool failed",
            developer=details,
        )
    )
    log.close()
    reader = SQLiteAuditStore(tmp_path / "a.db", create=False)
    (record,) = reader.read()
    reader.close()
    assert record.reason == "the tool failed"
    assert record.developer == details
    assert "hunter2" in record.developer.message


def test_records_from_many_threads_are_each_stored_once_in_one_chain(tmp_path: Path) -> None:
    """Eight threads recording at once, some durably: every record once, the chain intact."""
    log = AuditLog(SQLiteAuditStore(tmp_path / "a.db"), batch_size=7, flush_interval=0.005)

    def work(thread: int) -> None:
        for index in range(50):
            log.record(AuditEvent(kind="grant", tool=f"{thread}:{index}"), durable=index % 10 == 0)

    threads = [threading.Thread(target=work, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = list(log.read())
    assert sorted(record.tool or "" for record in records) == sorted(
        f"{t}:{i}" for t in range(8) for i in range(50)
    )
    for thread in range(8):  # each thread's records keep the order it made them in
        mine = [r.tool for r in records if (r.tool or "").startswith(f"{thread}:")]
        assert mine == [f"{thread}:{i}" for i in range(50)]
    assert log.verify().ok
    log.close()


def test_a_reader_does_not_create_a_missing_file(tmp_path: Path) -> None:
    """Opening with create=False a file that is not there says so, and creates nothing."""
    store = SQLiteAuditStore(tmp_path / "none.db", create=False)
    with pytest.raises(AuditStoreError, match="no audit record"):
        list(store.read())
    assert not (tmp_path / "none.db").exists()


def test_a_sqlite_file_that_is_not_an_audit_record_is_refused(tmp_path: Path) -> None:
    """Another application's SQLite file is never taken for an empty audit record."""
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    other.close()
    with pytest.raises(AuditStoreError, match="not an audit record"):
        list(SQLiteAuditStore(path).read())


def test_a_file_of_a_later_schema_is_refused(tmp_path: Path) -> None:
    """A record written by a later nucleo is refused rather than misread."""
    path = tmp_path / "a.db"
    SQLiteAuditStore(path).append([content(AuditEvent(kind="grant"))])
    with sqlite3.connect(path) as other:
        other.execute("PRAGMA user_version = 99")
    other.close()
    with pytest.raises(AuditStoreError, match="later nucleo"):
        list(SQLiteAuditStore(path).read())


def test_records_a_failing_store_cannot_take_stay_queued_and_the_caller_fails_closed(
    tmp_path: Path,
) -> None:
    """A failing store keeps records queued; flush, a durable record, a full queue raise."""
    path = tmp_path / "a.db"
    broken = SQLiteAuditStore(path)
    broken.close()  # every append now fails
    log = AuditLog(broken, flush_interval=60, max_pending=3)
    log.record(AuditEvent(kind="grant", tool="a"))
    with pytest.raises(AuditStoreError, match="closed"):
        log.flush()
    with pytest.raises(AuditStoreError, match="closed"):
        log.record(AuditEvent(kind="call_start", tool="b"), durable=True)
    log.record(AuditEvent(kind="grant", tool="c"))
    with pytest.raises(AuditStoreError, match="closed"):
        log.record(AuditEvent(kind="grant", tool="d"))  # the third queued: stored now, or raise
    with pytest.raises(AuditStoreError, match="3 audit records were not stored"):
        log.close()
