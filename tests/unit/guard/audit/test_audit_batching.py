"""The audit's cheap paths: call records written from kept parts, batches, bounded memory, schema 1.

The call door writes a call's start and finish from parts it keeps per tool instead of through
an `AuditEvent`; those records must be exactly what an event would have made, in order, whether
a finish joined its start's entry in the queue or not. A memory store keeps a bounded window
whose chain still verifies; a SQLite file of the first schema (filter columns generated in the
table) is still read, appended to and verified; the SQLite store checkpoints on its own thread.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nucleo_core import tool
from nucleo_core.guard.audit import (
    AuditEvent,
    AuditLog,
    AuditQuery,
    MemoryAuditStore,
    SQLiteAuditStore,
)
from nucleo_core.guard.audit.records import content_parts
from nucleo_core.guard.permission import PermissionDecision
from nucleo_core.hub._audit import requester_of
from nucleo_core.models import ToolResultBlock
from nucleo_core.plugins.decision import Decision
from nucleo_core.thinking._call_records import seconds_text as _seconds_text
from nucleo_core.thinking._execution_audit import CallAudit
from nucleo_core.thinking._execution_report import CallOutcome, CallStatus
from nucleo_core.thinking.tool_call import ToolCall
from nucleo_core.tools.providers import provider_for


@tool(name="send_note", risk="medium")
def send_note(to: str, text: str) -> str:
    """Send a note."""
    return "sent"


@tool(name="peek", read_only=True)
def peek(key: str) -> str:
    """Peek at a key (no declared risk)."""
    return key


class Asker:
    """A thinker stand-in: the requester of the records."""


def _event_of(record: Any) -> AuditEvent:
    """The event the record would have been written from."""
    return AuditEvent(
        kind=record.kind,
        requester=record.requester,
        tool=record.tool,
        source=record.source,
        risk=record.risk,
        rule=record.rule,
        decision=record.decision,
        outcome=record.outcome,
        reason=record.reason,
        call_id=record.call_id,
        duration=record.duration,
        arguments_digest=record.arguments_digest,
    )


ARGUMENTS = {"to": "ana", "text": "hé"}


@pytest.mark.parametrize(
    ("subject", "decision", "status", "content", "raw"),
    [
        (send_note, "notify", CallStatus.OK, "sent", ARGUMENTS),
        (send_note, "auto", CallStatus.TIMEOUT, 'too slow: "quoted" \\ and ünïcode\n', ARGUMENTS),
        (peek, None, CallStatus.OK, "k", ARGUMENTS),
        (peek, "confirm", CallStatus.REFUSED, "not approved", ARGUMENTS),
        (peek, "auto", CallStatus.OK, "k", '{"key": "k"}'),  # the text a model sent
    ],
)
def test_call_records_written_from_parts_are_what_an_event_would_write(
    subject: Any, decision: str | None, status: CallStatus, content: str, raw: Any
) -> None:
    """A call's start and finish written by the call door equal content_parts of their events."""
    log = AuditLog(MemoryAuditStore())
    audit = CallAudit(log, requester_of(Asker()))
    provider = provider_for(subject)
    call = ToolCall(id='call-"1"', name=provider.name, raw_input=raw)
    decided = (
        None
        if decision is None
        else PermissionDecision(decision=Decision(decision), reason="", decided_by="rule:x")
    )
    result = ToolResultBlock(tool_use_id=call.id, content=content, is_error=False)
    audit.started(call, provider, decided)
    audit.finished(
        CallOutcome(call=call, status=status, result=result, duration=0.25), provider, decided
    )
    records = list(log.read())
    assert [record.kind for record in records] == ["call_start", "call_finish"]
    for record in records:
        head, tail = content_parts(_event_of(record), record.arguments_digest, None)
        assert record.content == head + json.loads(record.content)["at"] + tail
    assert records[0].rule == ("rule:x" if decided else None)
    assert (records[0].arguments_digest is None) == isinstance(raw, str)
    assert records[1].reason == (None if status is CallStatus.OK else content)
    assert log.verify().ok


def test_a_memory_log_stores_with_no_writer_thread_and_reads_see_every_record() -> None:
    """Records to a memory log are read back at once, and no writer thread is started."""
    writers = sum(t.name == "nucleo-audit-writer" for t in threading.enumerate())
    log = AuditLog(MemoryAuditStore(), batch_size=3)
    for number in range(7):
        log.record(AuditEvent(kind="grant", tool=f"t{number}"))
    assert sum(t.name == "nucleo-audit-writer" for t in threading.enumerate()) <= writers
    assert [record.tool for record in log.read()] == [f"t{n}" for n in range(7)]
    assert log.verify().ok


def test_a_bounded_memory_store_keeps_the_latest_records_and_still_verifies() -> None:
    """max_records forgets the oldest records; numbering goes on and the window verifies."""
    store = MemoryAuditStore(max_records=5)
    log = AuditLog(store, batch_size=2)
    for number in range(12):
        log.record(AuditEvent(kind="grant", tool=f"t{number}"))
    records = list(log.read())
    assert [record.sequence for record in records] == list(range(8, 13))
    assert [record.tool for record in records] == [f"t{n}" for n in range(7, 12)]
    assert store.forgotten == 7
    report = log.verify()
    assert report.ok, report
    assert (report.records, report.head_sequence) == (5, 12)
    first = store.rows[0]
    store.rows[0] = first._replace(content=first.content.replace("t7", "t0"))
    assert log.verify().first_bad_sequence == 8


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_a_memory_store_bound_must_be_a_positive_number(bad: Any) -> None:
    """max_records of zero, negative, fractional or boolean is refused, naming the argument."""
    with pytest.raises(ValueError, match="max_records"):
        MemoryAuditStore(max_records=bad)


SCHEMA_1 = """
CREATE TABLE audit_records (
    sequence INTEGER PRIMARY KEY,
    content TEXT NOT NULL,
    prev_digest TEXT NOT NULL,
    digest TEXT NOT NULL,
    at TEXT GENERATED ALWAYS AS (json_extract(content, '$.at')) VIRTUAL,
    kind TEXT GENERATED ALWAYS AS (json_extract(content, '$.kind')) VIRTUAL
);
CREATE TABLE audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    sequence INTEGER NOT NULL,
    digest TEXT NOT NULL
);
PRAGMA user_version = 1;
"""


def test_a_file_of_schema_1_is_read_appended_to_and_verified(tmp_path: Path) -> None:
    """A file written by the first schema keeps working: its records, new ones, one chain."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.executescript(SCHEMA_1)
    connection.close()
    log = AuditLog(SQLiteAuditStore(path))
    log.record(AuditEvent(kind="grant", tool="a"))
    log.record(AuditEvent(kind="refusal", tool="b"))
    log.close()
    store = SQLiteAuditStore(path, create=False)
    assert [r.tool for r in store.read(AuditQuery(kinds=frozenset({"refusal"})))] == ["b"]
    assert store.verify().ok
    store.close()
    with sqlite3.connect(path) as connection:
        kinds = [row[0] for row in connection.execute("SELECT kind FROM audit_records")]
        (version,) = connection.execute("PRAGMA user_version").fetchone()
    connection.close()
    assert (kinds, version) == (["grant", "refusal"], 1)


def test_a_new_file_offers_the_filter_columns_as_a_view(tmp_path: Path) -> None:
    """audit_view gives each record's time, kind, tool, source and requester as columns."""
    path = tmp_path / "new.sqlite3"
    log = AuditLog(SQLiteAuditStore(path))
    log.record(AuditEvent(kind="call_start", tool="peek", source="native:x.peek"))
    log.close()
    with sqlite3.connect(path) as connection:
        row = connection.execute("SELECT sequence, kind, tool, source FROM audit_view").fetchone()
    connection.close()
    assert row == (1, "call_start", "peek", "native:x.peek")


class Conversation:
    """A conversation stand-in: only its id is read."""

    def __init__(self, id: str) -> None:
        self.id = id


def test_a_thinker_s_requester_is_kept_until_its_conversation_or_parents_change() -> None:
    """requester_of gives the same Requester each turn, a new one when what it names changed."""
    thinker, parent = Asker(), Asker()
    first = requester_of(thinker)
    assert requester_of(thinker) is first
    thinker.conversation = Conversation("conv-1")  # type: ignore[attr-defined]
    opened = requester_of(thinker)
    assert opened.conversation_id == "conv-1"
    thinker._delegator = parent  # type: ignore[attr-defined]
    delegated = requester_of(thinker)
    assert delegated.parents == (f"{__name__}.Asker#{id(parent):x}",)
    assert requester_of(thinker) is delegated
    assert requester_of(Asker()).conversation_id is None


def test_a_call_whose_arguments_have_no_canonical_form_is_still_recorded() -> None:
    """Arguments JSON cannot hold leave the digest out of the call's records, never the records."""
    log = AuditLog(MemoryAuditStore())
    audit = CallAudit(log, requester_of(Asker()))
    provider = provider_for(peek)
    call = ToolCall(id="c1", name="peek", raw_input={"key": object()})
    result = ToolResultBlock(tool_use_id="c1", content="k")
    audit.started(call, provider, None)
    audit.finished(CallOutcome(call=call, status=CallStatus.OK, result=result), provider, None)
    records = list(log.read())
    assert [(r.kind, r.call_id, r.arguments_digest) for r in records] == [
        ("call_start", "c1", None),
        ("call_finish", "c1", None),
    ]
    assert log.verify().ok


def _outcome_of(call: ToolCall, duration: float = 0.25) -> CallOutcome:
    result = ToolResultBlock(tool_use_id=call.id, content="ok", is_error=False)
    return CallOutcome(call=call, status=CallStatus.OK, result=result, duration=duration)


def _as_an_event_writes(records: list[Any]) -> None:
    for record in records:
        head, tail = content_parts(_event_of(record), record.arguments_digest, None)
        assert record.content == head + json.loads(record.content)["at"] + tail


AUTO = PermissionDecision(decision=Decision.AUTO, reason="", decided_by="default:risk=low")


def test_a_finish_joins_its_start_in_the_queue_only_when_nothing_came_between() -> None:
    """Records keep their order whether a call's finish joined its start's entry or not."""
    log = AuditLog(MemoryAuditStore(), batch_size=1000)
    audit = CallAudit(log, requester_of(Asker()))
    provider = provider_for(peek)
    first, second, third = (
        ToolCall(id=f"c{n}", name="peek", raw_input={"key": str(n)}) for n in range(3)
    )
    audit.started(first, provider, AUTO)
    audit.finished(_outcome_of(first), provider, AUTO)
    assert len(log._pending) == 1  # the finish joined its start
    audit.started(second, provider, AUTO)
    audit.started(third, provider, AUTO)  # the two run side by side
    audit.finished(_outcome_of(second), provider, AUTO)
    log.record(AuditEvent(kind="grant", tool="late"))
    audit.finished(_outcome_of(third), provider, AUTO)
    assert len(log._pending) == 6
    records = list(log.read())
    assert [(r.kind, r.call_id or r.tool) for r in records] == [
        ("call_start", "c0"),
        ("call_finish", "c0"),
        ("call_start", "c1"),
        ("call_start", "c2"),
        ("call_finish", "c1"),
        ("grant", "late"),
        ("call_finish", "c2"),
    ]
    _as_an_event_writes([r for r in records if r.kind != "grant"])
    assert log.verify().ok


def test_a_start_already_stored_gets_its_finish_as_a_record_of_its_own(tmp_path: Path) -> None:
    """A start stored (a read, a flush) before its call finished is not reopened."""
    log = AuditLog(SQLiteAuditStore(tmp_path / "audit.sqlite3"))
    audit = CallAudit(log, requester_of(Asker()))
    provider = provider_for(peek)
    call = ToolCall(id="c1", name="peek", raw_input={"key": "k"})
    audit.started(call, provider, AUTO)
    assert [r.kind for r in log.read()] == ["call_start"]
    audit.finished(_outcome_of(call), provider, AUTO)
    records = list(log.read())
    assert [r.kind for r in records] == ["call_start", "call_finish"]
    _as_an_event_writes(records)
    assert log.verify().ok
    log.close()


@given(st.integers(min_value=0, max_value=10**15 - 1))
def test_a_duration_s_text_is_the_repr_canonical_json_writes(nanoseconds: int) -> None:
    """The call records' duration text, written from whole nanoseconds, is the float's repr."""
    assert _seconds_text(nanoseconds) == repr(nanoseconds / 1e9)
    assert json.loads(_seconds_text(nanoseconds)) == nanoseconds / 1e9


def test_a_call_s_duration_is_recorded_to_the_nanosecond() -> None:
    """The finish holds the duration rounded to whole nanoseconds, on either path."""
    provider = provider_for(peek)
    measured = 0.123456789123
    durations = []
    for keep in (False, True):  # written from parts; through an event (arguments kept)
        log = AuditLog(MemoryAuditStore(), record_arguments=keep)
        audit = CallAudit(log, requester_of(Asker()))
        call = ToolCall(id="c1", name="peek", raw_input={"key": "k"})
        audit.finished(_outcome_of(call, measured), provider, None)
        durations += [r.duration for r in log.read()]
    assert durations == [0.123456789, 0.123456789]


def test_the_write_ahead_log_is_checkpointed_by_the_store_s_own_thread(tmp_path: Path) -> None:
    """Past a few MiB appended, a thread of the store copies the log into the database file."""
    path = tmp_path / "audit.sqlite3"
    store = SQLiteAuditStore(path)
    content = json.dumps({"at": "2025-01-01T00:00:00.000000Z", "kind": "grant", "tool": "x" * 900})
    for _ in range(6):
        store.append([content] * 1000)  # about 6 MiB in all
    deadline = time.monotonic() + 60
    while path.stat().st_size < 4 << 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert path.stat().st_size >= 4 << 20  # the pages are in the database file, not only the log
    assert any(t.name == "nucleo-audit-checkpoint" for t in threading.enumerate())
    assert store.verify().ok
    store.close()
    assert store._checkpointer is None
    assert not Path(f"{path}-wal").exists()  # the last connection closed checkpointed the rest


call_steps = st.lists(
    st.one_of(
        st.tuples(st.just("start"), st.integers(0, 5)),
        st.tuples(st.just("finish"), st.integers(0, 5)),
        st.tuples(st.just("grant"), st.integers(0, 5)),
        st.tuples(st.just("read"), st.just(0)),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(call_steps, st.integers(min_value=1, max_value=4), st.booleans())
def test_call_records_are_stored_once_in_order_however_they_are_queued(
    steps: list[tuple[str, int]], batch_size: int, on_disk: bool
) -> None:
    """Starts, finishes (joined to their start or not), other records and reads, in any order."""
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteAuditStore(Path(folder) / "a.sqlite3") if on_disk else MemoryAuditStore()
        log = AuditLog(store, batch_size=batch_size, flush_interval=0.001)
        audit = CallAudit(log, requester_of(Asker()))
        provider = provider_for(peek)
        calls: dict[int, ToolCall] = {}
        running: set[int] = set()
        expected: list[tuple[str, str]] = []
        for step, number in steps:
            if step == "start" and number not in calls:
                calls[number] = ToolCall(id=f"c{number}", name="peek", raw_input={"key": "k"})
                audit.started(calls[number], provider, AUTO)
                running.add(number)
                expected.append(("call_start", f"c{number}"))
            elif step == "finish" and number in running:
                audit.finished(_outcome_of(calls[number]), provider, AUTO)
                running.discard(number)
                expected.append(("call_finish", f"c{number}"))
            elif step == "grant":
                log.record(AuditEvent(kind="grant", tool=f"t{number}"))
                expected.append(("grant", f"t{number}"))
            elif step == "read":
                assert [(r.kind, r.call_id or r.tool) for r in log.read()] == expected
        records = list(log.read())
        assert [(r.kind, r.call_id or r.tool) for r in records] == expected
        assert [r.sequence for r in records] == list(range(1, len(expected) + 1))
        _as_an_event_writes([r for r in records if r.kind != "grant"])
        assert log.verify().ok
        log.close()
