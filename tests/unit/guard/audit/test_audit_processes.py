"""The audit record across real processes: crashes and concurrent writers.

A crash keeps every committed batch (and loses at most the batch not yet committed, never a
notify- or confirm-level call's start), and two processes appending to one file keep one
chain.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from nucleo_core.guard.audit import SQLiteAuditStore

WRITER = Path(__file__).with_name("_audit_writer_process.py")


def test_a_crash_keeps_the_durable_record_and_what_came_before_it(tmp_path: Path) -> None:
    """A process ending in os._exit keeps every record up to its last durable one, chained."""
    path = tmp_path / "audit.sqlite3"
    done = subprocess.run(
        [sys.executable, str(WRITER), "crash", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ready\n"
    store = SQLiteAuditStore(path, create=False)
    tools = [record.tool for record in store.read()]
    report = store.verify()
    store.close()
    assert tools == [*(f"before-{n}" for n in range(5)), "durable"]
    assert report.ok, report


def test_a_sigkill_loses_only_the_uncommitted_batch_never_a_notify_call_s_start(
    tmp_path: Path,
) -> None:
    """Killed after auto calls, a notify start and more auto calls: all up to the start stay."""
    path = tmp_path / "audit.sqlite3"
    writer = subprocess.Popen(
        [sys.executable, str(WRITER), "calls", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "ready\n"
    finally:
        writer.send_signal(signal.SIGKILL)
        _, stderr = writer.communicate(timeout=120)
    assert writer.returncode == -signal.SIGKILL, stderr
    store = SQLiteAuditStore(path, create=False)
    records = list(store.read())
    report = store.verify()
    store.close()
    assert report.ok, report
    expected = [(kind, f"look-{n}") for n in range(3) for kind in ("call_start", "call_finish")]
    # The three auto calls were batched, and committed with the notify-level start; the two
    # auto calls after it were in the batch the kill lost.
    assert [(r.kind, r.call_id) for r in records] == [*expected, ("call_start", "mail-0")]
    assert records[-1].decision == "notify"


def test_two_processes_appending_to_one_file_keep_one_valid_chain(tmp_path: Path) -> None:
    """Records of two concurrent writers interleave, each once, each writer's in its order."""
    path = tmp_path / "audit.sqlite3"
    SQLiteAuditStore(path).close()  # created once, before the race to write
    writers = [
        subprocess.Popen(
            [sys.executable, str(WRITER), "append", str(path), name, "150"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    outputs = [writer.communicate("go\n", timeout=120) for writer in writers]
    for writer, (stdout, stderr) in zip(writers, outputs, strict=True):
        assert writer.returncode == 0, stderr
        assert stdout == "done\n"
    store = SQLiteAuditStore(path, create=False)
    records = list(store.read())
    report = store.verify()
    store.close()
    assert report.ok, report
    assert [record.sequence for record in records] == list(range(1, 301))
    for name in ("a", "b"):
        mine = [r.tool for r in records if (r.tool or "").startswith(f"{name}-")]
        assert mine == [f"{name}-{n}" for n in range(150)]
