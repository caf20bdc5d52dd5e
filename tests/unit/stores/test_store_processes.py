"""The stores' guarantees between processes, on SQLite and on a real PostgreSQL server.

Several processes started together race for one approval, one claim, one audit chain and one
migration; each guarantee holds whoever wins.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from _store_kinds import BACKENDS, pending_approval, store_url

from nucleo_core.guard.audit import AuditQuery
from nucleo_core.stores import check_store, open_approvals, open_audit

PROCESS = Path(__file__).with_name("_store_process.py")


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh store of each backend."""
    return store_url(request, tmp_path, request.param)


def race(*commands: list[str]) -> list[str]:
    """Start every command, release them together, and return what each printed."""
    processes = [
        subprocess.Popen(
            [sys.executable, str(PROCESS), *command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for command in commands
    ]
    outputs: list[str] = []
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in processes:
        out, _ = process.communicate(timeout=300)
        assert process.returncode == 0, out
        outputs.append(out.strip())
    return outputs


def test_one_of_many_processes_deciding_an_approval_wins_and_the_others_are_told_by_whom(
    url: str,
) -> None:
    """Four deciders at once: one approval, and each loser names the winner."""
    open_approvals(url).add([pending_approval("a1")])
    outputs = race(*[["decide", url, "a1", f"ops-{n}"] for n in range(4)])
    winners = [n for n, out in enumerate(outputs) if out == "won"]
    assert len(winners) == 1
    assert {out for out in outputs if out != "won"} == {f"lost ops-{winners[0]}"}
    stored = open_approvals(url).get("a1")
    assert stored is not None
    assert (stored.status, stored.decided_by) == ("approved", f"ops-{winners[0]}")


def test_an_approved_call_is_claimed_by_one_process_only(url: str) -> None:
    """Four resumers claim one approved call at once: exactly one may run it."""
    approvals = open_approvals(url)
    approvals.add([pending_approval("a2")])
    approvals.approve("a2", by="ops")
    outputs = race(*[["claim", url, "a2"] for _ in range(4)])
    assert Counter(outputs) == {"won": 1, "lost": 3}


def test_processes_appending_at_once_make_one_chain_without_gaps(url: str) -> None:
    """Four writers' 40 records each land once, numbered 1..160, and the chain verifies."""
    race(*[["append", url, f"w{n}", "40"] for n in range(4)])
    store = open_audit(url, create=False)
    records = list(store.read(AuditQuery()))
    assert [r.sequence for r in records] == list(range(1, 161))
    assert Counter(r.tool for r in records) == {f"w{n}-{i}": 1 for n in range(4) for i in range(40)}
    report = store.verify()
    assert report.ok, report.problem


def test_processes_starting_together_migrate_a_new_database_once(
    request: pytest.FixtureRequest,
) -> None:
    """Four processes migrating one empty PostgreSQL database leave every concern current."""
    pg_url: str = request.getfixturevalue("pg_url")
    assert race(*[["migrate", pg_url] for _ in range(4)]) == ["done"] * 4
    assert {state.status for state in check_store(pg_url)} == {"current"}
