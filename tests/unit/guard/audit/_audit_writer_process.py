"""A process that writes audit records, for the crash and two-writer tests.

``python _audit_writer_process.py crash PATH``: records 5 batched records, 1 durable, 5 more
batched, prints ``ready`` and ends with ``os._exit`` (no flush, no close, no atexit).

``python _audit_writer_process.py calls PATH``: through the call door's `CallAudit`, 3 auto
calls (start and finish, batched), the start of a notify-level call (committed first), 2
more auto calls, then prints ``ready`` and waits to be killed (SIGKILL).

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


def calls(path: str) -> None:
    from nucleo_core import tool
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.hub._audit import requester_of
    from nucleo_core.models import ToolResultBlock
    from nucleo_core.plugins.decision import Decision
    from nucleo_core.thinking._execution_audit import CallAudit
    from nucleo_core.thinking._execution_report import CallOutcome, CallStatus
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.providers import provider_for

    @tool(name="look", read_only=True, risk="low")
    def look(key: str) -> str:
        """Look."""
        return key

    @tool(name="mail", risk="medium")
    def mail(to: str) -> str:
        """Mail."""
        return to

    log = AuditLog(SQLiteAuditStore(path), flush_interval=3600, batch_size=10_000)
    audit = CallAudit(log, requester_of(None))
    auto = PermissionDecision(decision=Decision("auto"), reason="", decided_by="default")
    notify = PermissionDecision(decision=Decision("notify"), reason="", decided_by="default")

    def auto_call(number: int) -> None:
        call = ToolCall(id=f"look-{number}", name="look", raw_input={"key": str(number)})
        audit.started(call, provider_for(look), auto)
        result = ToolResultBlock(tool_use_id=call.id, content=str(number))
        outcome = CallOutcome(call=call, status=CallStatus.OK, result=result, duration=0.001)
        audit.finished(outcome, provider_for(look), auto)

    for number in range(3):
        auto_call(number)
    mailing = ToolCall(id="mail-0", name="mail", raw_input={"to": "ana"})
    audit.started(mailing, provider_for(mail), notify)
    for number in range(3, 5):
        auto_call(number)
    print("ready", flush=True)
    sys.stdin.readline()  # killed before a line ever comes


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
    elif sys.argv[1] == "calls":
        calls(sys.argv[2])
    else:
        append(sys.argv[2], sys.argv[3], int(sys.argv[4]))
