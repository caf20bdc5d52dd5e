"""A process that races others on one store, for the cross-process store tests.

``python _store_process.py decide URL ID NAME``: waits for a line on stdin (so that every racer
starts together), then approves approval ID as NAME; prints ``won`` or ``lost BY``.

``python _store_process.py claim URL ID``: likewise, then claims ID; prints ``won`` or ``lost``.

``python _store_process.py append URL NAME COUNT``: likewise, then appends COUNT audit records
tagged NAME through an `AuditLog` (every fifth durable), closes it and prints ``done``.

``python _store_process.py migrate URL``: likewise, then migrates the store; prints ``done``.
"""

from __future__ import annotations

import sys

from nucleo_core.guard.approval_store import ApprovalAlreadyDecided
from nucleo_core.guard.audit import AuditEvent, AuditLog
from nucleo_core.stores import migrate_store, open_approvals, open_audit


def main(argv: list[str]) -> None:
    command, url, *rest = argv
    sys.stdin.readline()
    if command == "decide":
        approval_id, name = rest
        try:
            open_approvals(url).approve(approval_id, by=name)
        except ApprovalAlreadyDecided as exc:
            print(f"lost {exc.record.decided_by}", flush=True)
        else:
            print("won", flush=True)
    elif command == "claim":
        (approval_id,) = rest
        print("won" if open_approvals(url).claim(approval_id) else "lost", flush=True)
    elif command == "append":
        name, count = rest
        log = AuditLog(open_audit(url), flush_interval=3600, batch_size=7)
        for number in range(int(count)):
            log.record(AuditEvent(kind="grant", tool=f"{name}-{number}"), durable=number % 5 == 0)
        log.close()
        print("done", flush=True)
    elif command == "migrate":
        migrate_store(url)
        print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
