"""Approvals decided over HTTP let a thinker run paused in another process go on.

Process A (`_approval_process.py pause`, shared with test_approval_durability) runs a thinker
that calls ``search`` (low: runs) and ``wire_money`` twice (high: confirm, no approver: the run
pauses, its approvals in the store). The API, served by a second process over the same files,
lists both, approves one and rejects the other; A is gone by then; process C resumes the run.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _server_harness import running_server, server_environment

from nucleo_core.guard.approval_store import SQLiteApprovalStore
from nucleo_core.guard.audit import AuditLog

SCRIPT = Path(__file__).with_name("_approval_process.py")


def paused_run(folder: Path) -> subprocess.Popen[str]:
    """Start process A; return it once its approvals are in the store."""
    store = SQLiteApprovalStore(folder / "approvals.sqlite3")
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(folder), "pause"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    try:
        while not (folder / "approvals.sqlite3").exists() or len(store.list()) < 2:
            if process.poll() is not None:
                assert process.stderr is not None
                pytest.fail(f"process A ended before it paused:\n{process.stderr.read()}")
            assert time.monotonic() < deadline, "process A never paused"
            time.sleep(0.02)  # polling the store, not waiting for time
    finally:
        store.close()
    return process


def stop(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.wait(timeout=30)
    if process.stderr is not None:
        process.stderr.close()


def wired(folder: Path) -> list[str]:
    path = folder / "wired.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_approvals_decided_over_http_resume_a_paused_run_in_another_process(
    tmp_path: Path,
) -> None:
    """Approve one call and reject the other over HTTP; the resumed run ran one, told the other."""
    process_a = paused_run(tmp_path)
    environment = server_environment(
        tmp_path,
        NUCLEO_CONVERSATIONS=str(tmp_path / "conversations.sqlite3"),
        NUCLEO_AUDIT=str(tmp_path / "audit.sqlite3"),
    )
    try:
        with running_server(tmp_path, environment=environment) as server:
            listed = server.request("GET", "/api/approvals")
            assert listed.status == 200
            approvals = {a["arguments"]["to"]: a for a in listed.body["approvals"]}
            assert set(approvals) == {"acme", "mallory"}
            acme, mallory = approvals["acme"], approvals["mallory"]
            assert acme["kind"] == "thinker_run"
            assert acme["resume_command"] == "nucleo resume conv"
            assert acme["tool"] == "wire_money"
            stop(process_a)  # the run's own process is gone: the store is what is left

            approved = server.request(
                "POST", f"/api/approvals/{acme['id']}", {"decision": "approve"}
            )
            assert approved.status == 200
            assert approved.body["approval"]["status"] == "approved"
            assert approved.body["execution"] is None  # it runs when the run is resumed
            rejected = server.request(
                "POST",
                f"/api/approvals/{mallory['id']}",
                {"decision": "reject", "reason": "unknown payee"},
            )
            assert rejected.status == 200
            assert rejected.body["approval"]["status"] == "rejected"
            assert wired(tmp_path) == []  # deciding runs nothing
            identity = "api-token:" + hashlib.sha256(server.token.encode()).hexdigest()[:12]
    finally:
        if process_a.poll() is None:
            stop(process_a)

    resumed = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "resume"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == {"answer": "Done."}
    assert wired(tmp_path) == ["acme 120"]  # the approved call ran, once

    store = SQLiteApprovalStore(tmp_path / "approvals.sqlite3")
    try:
        decided = {r.arguments["to"]: r for r in store.list()}
    finally:
        store.close()
    assert decided["acme"].decided_by == identity
    assert decided["mallory"].decided_by == identity
    assert decided["mallory"].reason == "unknown payee"
    with AuditLog.open(tmp_path / "audit.sqlite3") as audit:
        decisions = [r for r in audit.read() if r.kind == "approval_decision"]
        assert audit.verify().ok
    by_the_api = {
        (r.call_id, r.outcome)
        for r in decisions
        if r.requester is not None and r.requester.thinker_id == identity
    }
    assert by_the_api == {("use_acme", "approved"), ("use_mallory", "rejected")}
