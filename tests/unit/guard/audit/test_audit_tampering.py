"""Tampering with the audit record, and what reaches its file.

Editing, deleting or reordering a record in the SQLite file is found by verify, naming the first
bad record; and no argument value reaches the file unless the log records arguments.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from nucleo_core.guard.audit import (
    AuditEvent,
    AuditLog,
    MemoryAuditStore,
    Requester,
    SQLiteAuditStore,
)
from nucleo_core.guard.audit.verify import StoredRow

WHO = Requester(thinker_class="app.Planner", thinker_id="p1", conversation_id="c1")


def written(path: Path, count: int = 6) -> Path:
    """A log of ``count`` records (tools t1..tN) in ``path``, closed."""
    log = AuditLog(SQLiteAuditStore(path))
    for number in range(1, count + 1):
        log.record(AuditEvent(kind="call_start", requester=WHO, tool=f"t{number}"))
    log.close()
    return path


def tamper(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()


def edit_the_tool_of_record_3(path: Path) -> None:
    tamper(
        path, "UPDATE audit_records SET content = replace(content, 't3', 't9') WHERE sequence = 3"
    )


EDITS: dict[str, tuple[Callable[[Path], None], int, str]] = {
    "edited content": (edit_the_tool_of_record_3, 3, "edited"),
    "edited digest": (
        lambda path: tamper(
            path,
            "UPDATE audit_records SET digest = replace(digest, substr(digest, 1, 1), "
            "'x') WHERE sequence = 2",
        ),
        2,
        "edited",
    ),
    "deleted in the middle": (
        lambda path: tamper(path, "DELETE FROM audit_records WHERE sequence = 4"),
        4,
        "missing",
    ),
    "deleted first": (
        lambda path: tamper(path, "DELETE FROM audit_records WHERE sequence = 1"),
        1,
        "missing",
    ),
    "deleted last": (
        lambda path: tamper(path, "DELETE FROM audit_records WHERE sequence = 6"),
        6,
        "missing",
    ),
    "reordered": (
        lambda path: tamper(
            path,
            "UPDATE audit_records SET sequence = -1 WHERE sequence = 2",
            "UPDATE audit_records SET sequence = 2 WHERE sequence = 5",
            "UPDATE audit_records SET sequence = 5 WHERE sequence = -1",
        ),
        2,
        "",
    ),
    "head moved back": (
        lambda path: tamper(path, "UPDATE audit_head SET sequence = 4"),
        5,
        "past",
    ),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_verify_names_the_first_record_broken_in_the_file(tmp_path: Path, case: str) -> None:
    """Each tampering of the SQLite file is found at the record it broke first."""
    path = written(tmp_path / "audit.sqlite3")
    edit, first_bad, word = EDITS[case]
    store = SQLiteAuditStore(path, create=False)
    assert store.verify().ok
    edit(path)
    report = store.verify()
    store.close()
    assert not report.ok
    assert report.first_bad_sequence == first_bad
    assert word in (report.problem or "")


def test_verify_finds_tampering_in_the_memory_store_too() -> None:
    """The memory store's rows, edited, deleted or swapped, fail verify the same way."""
    store = MemoryAuditStore()
    log = AuditLog(store)
    for number in range(4):
        log.record(AuditEvent(kind="grant", tool=f"t{number}"))
    log.flush()
    row = store.rows[1]
    store.rows[1] = StoredRow(
        row.sequence, row.content.replace("t1", "t7"), row.prev_digest, row.digest
    )
    assert log.verify().first_bad_sequence == 2
    store.rows[1] = row
    store.rows[1], store.rows[2] = store.rows[2], store.rows[1]
    assert log.verify().first_bad_sequence == 2
    del store.rows[1:3]
    assert log.verify().first_bad_sequence == 2
    log.close()


SECRET = "sk-live-7f3a9c"


def _file_bytes(path: Path) -> bytes:
    return b"".join(
        file.read_bytes() for file in path.parent.iterdir() if file.name.startswith(path.name)
    )


@pytest.mark.parametrize("record_arguments", [False, True])
def test_no_argument_value_reaches_the_file_unless_arguments_are_recorded(
    tmp_path: Path, record_arguments: bool
) -> None:
    """A secret argument is in no byte of the file (nor its journal) unless configured."""
    path = tmp_path / "audit.sqlite3"
    log = AuditLog(SQLiteAuditStore(path), record_arguments=record_arguments)
    for kind in ("permission", "approval_request", "call_start"):
        log.record(
            AuditEvent(
                kind=kind,  # type: ignore[arg-type]  # one of the kinds above
                requester=WHO,
                tool="charge",
                decision="confirm" if kind == "permission" else None,
                arguments={"api_key": SECRET, "nested": [{"card": "4111-1111"}]},
            ),
            durable=kind == "call_start",
        )
    log.record(AuditEvent(kind="call_finish", tool="charge", outcome="ok"))
    log.flush()  # the write-ahead log still holds the pages: both files are read below
    data = _file_bytes(path)
    log.close()
    data += _file_bytes(path)
    assert (SECRET.encode() in data) is record_arguments
    assert (b"4111-1111" in data) is record_arguments
