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

from nucleo_core.guard.audit import AuditEvent, AuditLog, SQLiteAuditStore, canonical_json

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
