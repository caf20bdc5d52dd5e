"""The audit record's property over random runs.

Whatever the batching, durable records, flushes and reopenings, every event is recorded once,
in order, and the chain is intact.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _audit_strategies import event_fields, events
from hypothesis import given, settings
from hypothesis import strategies as st

from nucleo_core.guard.audit import (
    AuditEvent,
    AuditLog,
    MemoryAuditStore,
    SQLiteAuditStore,
    canonical_json,
)

operations = st.lists(
    st.one_of(
        st.tuples(st.just("record"), events(), st.booleans()),
        st.tuples(st.just("flush")),
        st.tuples(st.just("reopen")),
    ),
    max_size=40,
)


@settings(max_examples=60)
@given(
    operations,
    st.integers(min_value=1, max_value=8),
    st.booleans(),
)
def test_every_event_is_recorded_once_in_order_with_the_chain_intact(
    steps: list[tuple[object, ...]], batch_size: int, record_arguments: bool
) -> None:
    """Random runs of records (some durable), flushes and reopenings of the SQLite file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.sqlite3"

        def opened() -> AuditLog:
            return AuditLog(
                SQLiteAuditStore(path),
                batch_size=batch_size,
                flush_interval=0.001,
                record_arguments=record_arguments,
            )

        log = opened()
        recorded: list[AuditEvent] = []
        for step in steps:
            if step[0] == "record":
                event, durable = step[1], step[2]
                assert isinstance(event, AuditEvent)
                log.record(event, durable=bool(durable))
                recorded.append(event)
            elif step[0] == "flush":
                log.flush()
            else:
                log.close()
                log = opened()
        records = list(log.read())
        report = log.verify()
        log.close()
    assert [record.sequence for record in records] == list(range(1, len(recorded) + 1))
    for event, record in zip(recorded, records, strict=True):
        assert event_fields(event) == {name: getattr(record, name) for name in event_fields(event)}
        if event.arguments is None:
            assert record.arguments_digest is None
            assert record.arguments_json is None
        else:
            assert record.arguments_digest is not None
            kept = canonical_json(event.arguments) if record_arguments else None
            assert record.arguments_json == kept
    assert report.ok, report
    assert report.records == len(recorded)


@settings(max_examples=60)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("record"), events(), st.booleans()),
            st.tuples(st.just("flush")),
            st.tuples(st.just("read")),
        ),
        max_size=40,
    ),
    st.integers(min_value=1, max_value=8),
    st.none() | st.integers(min_value=1, max_value=12),
)
def test_a_memory_log_keeps_every_event_once_in_order_within_its_bound(
    steps: list[tuple[object, ...]], batch_size: int, max_records: int | None
) -> None:
    """A memory log (batches stored by the caller) reads back its latest events, chained."""
    log = AuditLog(MemoryAuditStore(max_records=max_records), batch_size=batch_size)
    recorded: list[AuditEvent] = []
    for step in steps:
        if step[0] == "record":
            event, durable = step[1], step[2]
            assert isinstance(event, AuditEvent)
            log.record(event, durable=bool(durable))
            recorded.append(event)
        elif step[0] == "flush":
            log.flush()
        else:  # a read in the middle sees every record made so far
            assert len(list(log.read())) == min(len(recorded), max_records or len(recorded))
    kept = recorded if max_records is None else recorded[max(0, len(recorded) - max_records) :]
    records = list(log.read())
    report = log.verify()
    first = len(recorded) - len(kept) + 1
    assert [record.sequence for record in records] == list(range(first, len(recorded) + 1))
    for event, record in zip(kept, records, strict=True):
        assert event_fields(event) == {name: getattr(record, name) for name in event_fields(event)}
    assert report.ok, report
    assert (report.records, report.head_sequence) == (len(kept), len(recorded))
