"""A run paused for approvals survives SIGKILL; another process decides, a third resumes.

Process A (`_approval_process.py pause`) runs a thinker whose answer calls ``search`` (low
risk: runs) and ``wire_money`` twice (high risk: confirm, no approver: the run pauses); A is
killed with ``SIGKILL`` once the store holds its approvals. Process B is the installed
``nucleo approvals`` script: it approves one call and rejects the other. Process C resumes.
The same with the two ``wire_money`` calls made by a sub-thinker the thinker delegated to.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from nucleo_core.conversations import ConversationService
from nucleo_core.guard.approval_store import SQLiteApprovalStore
from nucleo_core.guard.audit import AuditLog
from nucleo_core.models import ToolResultBlock

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

SCRIPT = Path(__file__).with_name("_approval_process.py")
NUCLEO = Path(sys.executable).with_name("nucleo")
USES = ["use_search", "use_acme", "use_mallory"]


def pause_and_kill(folder: Path, mode: str = "pause") -> list[Any]:
    """Run process A until its approvals are in the store, then SIGKILL it; the approvals."""
    store = SQLiteApprovalStore(folder / "approvals.sqlite3")
    with subprocess.Popen(
        [sys.executable, str(SCRIPT), str(folder), mode],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        deadline = time.monotonic() + 120
        while (folder / "approvals.sqlite3").exists() is False or len(store.list()) < 2:
            if process.poll() is not None:
                assert process.stderr is not None
                pytest.fail(f"process A ended before it paused:\n{process.stderr.read()}")
            assert time.monotonic() < deadline, "process A never paused"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    try:
        return store.list()
    finally:
        store.close()


def nucleo(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``nucleo ARGS``, reading the approvals next to FOLDER's conversations."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUCLEO_")}
    environment.update(
        {"NUCLEO_CONVERSATIONS": str(folder / "conversations.sqlite3"), "NO_COLOR": "1"}
    )
    return subprocess.run(
        [str(NUCLEO), *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def resume(folder: Path, mode: str = "resume") -> dict[str, Any]:
    """Run process C: resume the conversation; what it printed."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(folder), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def requests(folder: Path) -> list[list[dict[str, Any]]]:
    """Every request the scripted model received, in every process, in order."""
    lines = (folder / "requests.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def wired(folder: Path) -> list[str]:
    """Every wire_money call that ran."""
    path = folder / "wired.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def stored_messages(folder: Path) -> list[Any]:
    """The conversation as a fresh process reads it."""
    with ConversationService(folder / "conversations.sqlite3") as service:
        return list(service.open("conv", durable=True).messages)


def by_tool_arguments(records: list[Any], to: str) -> Any:
    return next(r for r in records if r.arguments["to"] == to)


def test_a_paused_run_survives_sigkill_and_resumes_with_one_approved_and_one_rejected(
    tmp_path: Path,
) -> None:
    """Across three processes, the approved call runs once, the rejected one tells its reason."""
    pending = pause_and_kill(tmp_path)
    assert {r.status_at() for r in pending} == {"pending"}
    assert {r.call_id for r in pending} == {"use_acme", "use_mallory"}
    acme, mallory = by_tool_arguments(pending, "acme"), by_tool_arguments(pending, "mallory")
    assert wired(tmp_path) == []  # nothing high-risk ran before the approval
    # Paused: the answer's tool uses are kept, and no results message yet.
    messages = stored_messages(tmp_path)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert [u.id for u in messages[-1].tool_uses] == USES

    listed = nucleo(tmp_path, "approvals", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {a["id"] for a in json.loads(listed.stdout)} == {acme.id, mallory.id}
    approved = nucleo(tmp_path, "approvals", "approve", acme.id)
    assert approved.returncode == 0, approved.stderr
    rejected = nucleo(tmp_path, "approvals", "reject", mallory.id, "--reason", "unknown payee")
    assert rejected.returncode == 0, rejected.stderr
    again = nucleo(tmp_path, "approvals", "approve", mallory.id)
    assert again.returncode == 2
    assert "already decided: it was rejected" in again.stderr

    assert resume(tmp_path) == {"answer": "Done."}
    assert wired(tmp_path) == ["acme 120"]  # ran once, with the arguments approved
    last = requests(tmp_path)[-1]  # what the model read when it answered "Done."
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    results = last[-1]["results"]
    assert [r["id"] for r in results] == USES  # one results message, paired, in order
    assert results[0] == {
        "id": "use_search",
        "content": "2 invoices match 'acme'",
        "is_error": False,
    }
    assert results[1] == {"id": "use_acme", "content": "wired 120 to acme", "is_error": False}
    assert results[2]["is_error"] is True
    assert "unknown payee" in results[2]["content"]
    messages = stored_messages(tmp_path)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    stored_results = [b for b in messages[2].content if isinstance(b, ToolResultBlock)]
    assert [b.tool_use_id for b in stored_results] == USES

    # Resumed twice: nothing runs again.
    second = resume(tmp_path)
    assert second["error"] == "NotPaused"
    assert wired(tmp_path) == ["acme 120"]

    with AuditLog.open(tmp_path / "audit.sqlite3") as audit:
        records = [r for r in audit.read() if r.call_id in ("use_acme", "use_mallory")]
        assert audit.verify().ok
    kinds = [(r.kind, r.call_id, r.outcome) for r in records]
    assert ("approval_request", "use_acme", None) in kinds  # committed before A was killed
    assert ("approval_request", "use_mallory", None) in kinds
    assert ("approval_decision", "use_acme", "approved") in kinds
    assert ("approval_decision", "use_mallory", "rejected") in kinds
    assert ("call_finish", "use_acme", "ok") in kinds
    assert ("call_finish", "use_mallory", "refused") in kinds
    assert [k for k in kinds if k[0] == "call_start"] == [("call_start", "use_acme", None)]


def test_an_expired_approval_is_rejected_as_expired_on_resume(tmp_path: Path) -> None:
    """Approvals that expired undecided cannot be approved; the resumed model reads why."""
    pending = pause_and_kill(tmp_path, "pause-expiring")
    assert {r.status_at() for r in pending} == {"expired"}
    late = nucleo(tmp_path, "approvals", "approve", pending[0].id)
    assert late.returncode == 2
    assert "expired" in late.stderr

    assert resume(tmp_path) == {"answer": "Done."}
    assert wired(tmp_path) == []
    results = requests(tmp_path)[-1][-1]["results"]
    assert [r["id"] for r in results] == USES
    assert results[0]["is_error"] is False
    for result in results[1:]:
        assert result["is_error"] is True
        assert "expired" in result["content"]


SUB_THINKER_CLASS = "nucleo_core.thinking.sub_thinker.SubThinker"


def test_a_sub_thinker_s_approvals_survive_sigkill_and_its_run_goes_on_when_the_root_resumes(
    tmp_path: Path,
) -> None:
    """A sub-thinker's approvals pause the root; decided by the CLI, its run ends on resume."""
    pending = pause_and_kill(tmp_path, "pause-delegating")
    assert {r.call_id for r in pending} == {"use_acme", "use_mallory"}
    assert {r.thinker for r in pending} == {SUB_THINKER_CLASS}
    assert {r.conversation_id for r in pending} == {"conv"}  # what `nucleo resume` takes
    for record in pending:
        root, asker = record.requested_by.split(" > ")
        assert root.startswith("__main__.Treasurer#")
        assert asker.startswith(SUB_THINKER_CLASS + "#")
    acme, mallory = by_tool_arguments(pending, "acme"), by_tool_arguments(pending, "mallory")
    assert wired(tmp_path) == []
    messages = stored_messages(tmp_path)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert [u.id for u in messages[-1].tool_uses] == ["use_search", "use_sub"]
    with ConversationService(tmp_path / "conversations.sqlite3") as service:
        (child,) = [cid for cid in service.list_ids() if cid != "conv"]  # kept at its pause

    listed = nucleo(tmp_path, "approvals")
    assert listed.returncode == 0, listed.stderr
    assert f"(thinker {SUB_THINKER_CLASS})" in listed.stdout
    assert "asked by:     __main__.Treasurer#" in listed.stdout
    assert nucleo(tmp_path, "approvals", "approve", acme.id).returncode == 0
    rejected = nucleo(tmp_path, "approvals", "reject", mallory.id, "--reason", "unknown payee")
    assert rejected.returncode == 0, rejected.stderr
    assert "nucleo resume conv" in rejected.stdout

    assert resume(tmp_path, "resume-delegating") == {"answer": "Done."}
    assert wired(tmp_path) == ["acme 120"]  # ran once, inside the sub-thinker
    seen = requests(tmp_path)
    sub_last = [r for r in seen if r[0]["text"] == "Pay the two suppliers."][-1]
    assert [m["role"] for m in sub_last] == ["user", "assistant", "user"]
    sub_results = sub_last[-1]["results"]
    assert [r["id"] for r in sub_results] == ["use_acme", "use_mallory"]
    assert sub_results[0] == {"id": "use_acme", "content": "wired 120 to acme", "is_error": False}
    assert sub_results[1]["is_error"] is True
    assert "unknown payee" in sub_results[1]["content"]
    root_last = seen[-1]
    assert root_last[0]["text"] == "Pay the acme invoices."
    root_results = root_last[-1]["results"]
    assert [r["id"] for r in root_results] == ["use_search", "use_sub"]
    assert root_results[1]["is_error"] is False
    assert "use_acme: wired 120 to acme" in root_results[1]["content"]
    assert "unknown payee" in root_results[1]["content"]
    messages = stored_messages(tmp_path)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    with ConversationService(tmp_path / "conversations.sqlite3") as service:
        assert not service.exists(child)  # the sub-thinker's conversation ended with its run
        assert service.list_ids() == ["conv"]

    assert resume(tmp_path, "resume-delegating")["error"] == "NotPaused"
    assert wired(tmp_path) == ["acme 120"]
    with AuditLog.open(tmp_path / "audit.sqlite3") as audit:
        records = [r for r in audit.read() if r.call_id in ("use_acme", "use_mallory")]
        assert audit.verify().ok
    kinds = [(r.kind, r.call_id, r.outcome) for r in records]
    assert ("approval_decision", "use_acme", "approved") in kinds
    assert ("approval_decision", "use_mallory", "rejected") in kinds
    assert [k for k in kinds if k[0] == "call_start"] == [("call_start", "use_acme", None)]
