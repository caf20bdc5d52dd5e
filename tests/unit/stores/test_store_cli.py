"""The ``nucleo`` commands on a shared store: ``--store``, ``nucleo store migrate/check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _store_kinds import pending_approval
from click.testing import CliRunner, Result

from nucleo_core.cli.app import nucleo
from nucleo_core.guard.audit import AuditEvent, AuditLog
from nucleo_core.stores import open_approvals, open_audit


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(nucleo, list(args), env={"NO_COLOR": "1", **(env or {})})


@pytest.fixture(autouse=True)
def _no_store_url_from_outside(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NUCLEO_STORE_URL", raising=False)
    monkeypatch.delenv("NUCLEO_APPROVALS", raising=False)
    monkeypatch.delenv("NUCLEO_AUDIT", raising=False)
    monkeypatch.chdir(tmp_path)


def test_migrate_then_check_reports_every_concern_current(pg_url: str) -> None:
    """`nucleo store migrate` creates the three concerns' tables; `check` then exits 0."""
    before = run("store", "check", "--store", pg_url)
    assert before.exit_code == 1
    assert "conversations: version 0 of 2, absent (run `nucleo store migrate`)" in before.output
    migrated = run("store", "migrate", "--store", pg_url)
    assert migrated.exit_code == 0, migrated.output
    assert "audit: migrated from version 0 to 1" in migrated.output
    assert "conversations: migrated from version 0 to 2" in migrated.output
    again = run("store", "migrate", "--store", pg_url)
    assert "approvals: at version 1, nothing to do" in again.output
    checked = run("store", "check", "--json", env={"NUCLEO_STORE_URL": pg_url})
    assert checked.exit_code == 0, checked.output
    states = json.loads(checked.stdout)["components"]
    assert {state["status"] for state in states} == {"current"}


def test_a_bad_store_url_is_one_error_line_saying_what_to_write() -> None:
    """An unknown scheme exits 2 with the forms a store URL takes, no traceback."""
    result = run("store", "check", "--store", "mongodb://db/app")
    assert result.exit_code == 2
    assert "unknown scheme 'mongodb'" in result.output
    assert "postgresql://user@host/database" in result.output
    assert "Traceback" not in result.output


def test_approvals_are_listed_and_decided_once_on_the_shared_store(pg_url: str) -> None:
    """`nucleo approvals --store` lists the pending one; a second decision names the first."""
    open_approvals(pg_url).add([pending_approval("ap1")])
    listed = run("approvals", "--store", pg_url, "--json")
    assert [entry["id"] for entry in json.loads(listed.stdout)] == ["ap1"]
    approved = run("approvals", "approve", "ap1", "--store", pg_url, "--by", "alice")
    assert approved.exit_code == 0, approved.output
    again = run("approvals", "reject", "ap1", "--reason", "no", "--store", pg_url, "--by", "bob")
    assert again.exit_code == 2
    assert "already decided" in again.output
    assert "by alice" in again.output


def test_audit_verify_reads_the_shared_store(pg_url: str) -> None:
    """`nucleo audit verify --store` checks the PostgreSQL chain and `nucleo audit` reads it."""
    log = AuditLog(open_audit(pg_url))
    for number in range(3):
        log.record(AuditEvent(kind="grant", tool=f"tool-{number}"))
    log.close()
    verified = run("audit", "--store", pg_url, "verify")
    assert verified.exit_code == 0, verified.output
    assert "intact: 3 records" in verified.output
    shown = run("audit", "--store", pg_url, "--json")
    assert [json.loads(line)["tool"] for line in shown.stdout.splitlines()] == [
        "tool-0",
        "tool-1",
        "tool-2",
    ]
