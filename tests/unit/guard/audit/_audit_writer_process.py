"""A process that writes audit records, for the crash and two-writer tests.

``python _audit_writer_process.py crash PATH``: records 5 batched records, 1 durable, 5 more
batched, prints ``ready`` and ends with ``os._exit`` (no flush, no close, no atexit).

``python _audit_writer_process.py append PATH NAME COUNT``: waits for a line on stdin (so
that two writers start together), then records COUNT records (every seventh durable) tagged
NAME, closes the log and prints ``done``.
"""

from __future__ import annotations

import os
import sys

from nucleo_core.guard.audit import AuditEvent, AuditLog, SQLiteAuditStore


def crash(path: str) -> None:
    # A writer that never wakes up on its own: only the durable record commits anything.
    log = AuditLog(SQLiteAuditStore(path), flush_interval=3600, batch_size=10_000)
    for number in range(5):
        log.record(AuditEvent(kind="grant", tool=f"before-{number}"))
    log.record(AuditEvent(kind="call_start", tool="durable"), durable=True)
    for number in range(5):
        log.record(AuditEvent(kind="grant", tool=f"after-{number}"))
    print("ready", flush=True)
    os._exit(0)


def append(path: str, name: str, count: int) -> None:
    sys.stdin.readline()
    log = AuditLog(SQLiteAuditStore(path, timeout=60), batch_size=5, flush_interval=0.001)
    for number in range(count):
        log.record(AuditEvent(kind="grant", tool=f"{name}-{number}"), durable=number % 7 == 0)
    log.close()
    print("done", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "crash":
        crash(sys.argv[2])
    else:
        append(sys.argv[2], sys.argv[3], int(sys.argv[4]))
