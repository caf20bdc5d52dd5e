"""The audit record: a run's events recorded, read back, verified, and tampering found."""

import shutil
import sqlite3
import tempfile
from pathlib import Path

from nucleo_core.guard.audit import (
    AuditEvent,
    AuditLog,
    AuditQuery,
    DeveloperDetails,
    Requester,
    SQLiteAuditStore,
    arguments_digest,
)

folder = Path(tempfile.mkdtemp())
path = folder / "audit.sqlite3"

# Who asked: built once per thinker run, shared by all of its events.
planner = Requester(thinker_class="app.Planner", thinker_id="p-1", conversation_id="conv-7")
arguments = {"to": "ana@example.com", "body": "Lunch at one?"}

log = AuditLog(SQLiteAuditStore(path))
log.record(AuditEvent(kind="grant", requester=planner, tool="send_mail", risk="high"))
log.record(
    AuditEvent(
        kind="permission",
        requester=planner,
        tool="send_mail",
        source="native:send_mail",
        risk="high",
        decision="confirm",
        rule="default: high -> confirm",
        call_id="call-1",
        arguments=arguments,
    )
)
# A call's start is committed before a confirm- or notify-level tool runs.
log.record(
    AuditEvent(kind="call_start", requester=planner, tool="send_mail", call_id="call-1"),
    durable=True,
)
try:
    raise ConnectionError("smtp://mailer:hunter2@mail.example.com refused")
except ConnectionError as exc:
    details = DeveloperDetails.from_exception(exc)
log.record(
    AuditEvent(
        kind="call_finish",
        requester=planner,
        tool="send_mail",
        call_id="call-1",
        outcome="tool_error",
        duration=0.042,
        reason="the tool failed",  # what the model is told
        developer=details,  # what the developer is told; never the model
    )
)
log.close()

store = SQLiteAuditStore(path, create=False)
for record in store.read():
    print(record.sequence, record.kind, record.tool, record.decision or record.outcome or "-")

(permission,) = store.read(AuditQuery(kinds=frozenset({"permission"})))
print("arguments kept:", permission.arguments)
print("digest matches:", permission.arguments_digest == arguments_digest(arguments))
files = b"".join(file.read_bytes() for file in folder.iterdir())  # the database and its log
print("secret in the files:", b"ana@example.com" in files)

(failure,) = store.read(AuditQuery(kinds=frozenset({"call_finish"})))
print("the model was told:", failure.reason)
print("the developer sees:", failure.developer.exception_type if failure.developer else None)

print(store.verify().ok)
with sqlite3.connect(path) as connection:  # someone edits the permission record
    connection.execute(
        "UPDATE audit_records SET content = replace(content, 'confirm', 'auto') WHERE sequence = 2"
    )
connection.close()
report = store.verify()
print(report.ok, report.first_bad_sequence, report.problem)
store.close()
shutil.rmtree(folder)
