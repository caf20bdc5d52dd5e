"""``nucleo audit`` and ``nucleo audit verify``, run through the installed console script.

The records are written by the library (`AuditLog`) into a project folder's
``.nucleo/audit.sqlite3``, as an application would; the ``nucleo`` script next to this
interpreter reads them from that folder, as an operator would.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from nucleo_core.guard.audit import (
    AuditEvent,
    AuditLog,
    DeveloperDetails,
    Requester,
    SQLiteAuditStore,
)

NUCLEO = Path(sys.executable).with_name("nucleo")
PLANNER = Requester(thinker_class="app.Planner", thinker_id="p1", conversation_id="c1")
HELPER = Requester(
    thinker_class="app.Helper", thinker_id="h1", conversation_id="c1", parents=("app.Planner#p1",)
)


def nucleo(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``nucleo ARGS`` in ``cwd``, wide and without colour."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUCLEO_")}
    environment.update({"COLUMNS": "200", "NO_COLOR": "1", **env})
    return subprocess.run(
        [str(NUCLEO), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder whose audit record holds one run's records."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n", encoding="utf-8")
    log = AuditLog.open(start=tmp_path)
    log.record(AuditEvent(kind="grant", requester=PLANNER, tool="forecast", risk="low"))
    log.record(
        AuditEvent(
            kind="permission",
            requester=PLANNER,
            tool="forecast",
            risk="low",
            decision="auto",
            rule="default: low -> auto",
            arguments={"city": "Lisbon"},
        )
    )
    log.record(AuditEvent(kind="refusal", requester=HELPER, skill="deploy", reason="not allowed"))
    try:
        raise RuntimeError("token=hunter2")
    except RuntimeError as exc:
        details = DeveloperDetails.from_exception(exc)
    log.record(
        AuditEvent(
            kind="call_finish",
            requester=HELPER,
            tool="send_mail",
            outcome="tool_error",
            duration=0.25,
            reason="the tool failed",
            developer=details,
        )
    )
    log.close()
    assert (tmp_path / ".nucleo" / "audit.sqlite3").is_file()
    return tmp_path


def test_audit_prints_the_project_s_records_as_a_table(project: Path) -> None:
    """`nucleo audit` lists every record of the project's file: who, what, outcome, rule."""
    done = nucleo(project, "audit")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "#",
        "Time",
        "(UTC)",
        "Kind",
        "Thinker",
        "Tool",
        "Outcome",
        "Rule",
        "Reason",
    ]
    assert lines[2].startswith("1 ")
    for shown in ("grant", "Planner#p1", "forecast (low)"):
        assert shown in lines[2]
    assert "default: low -> auto" in lines[3]
    assert "skill deploy" in lines[4]
    assert "not allowed" in lines[4]
    assert "tool_error 250.0 ms" in lines[5]
    assert lines[-1] == "4 records."
    assert "hunter2" not in done.stdout  # the table shows no developer details


def test_audit_json_prints_one_object_a_line_developer_details_included(project: Path) -> None:
    """--json prints JSON lines with every field; a failure's developer details are there."""
    done = nucleo(project, "audit", "--json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [record["sequence"] for record in records] == [1, 2, 3, 4]
    assert records[1]["arguments"] is None
    assert len(records[1]["arguments_digest"]) == 64
    assert records[3]["developer"]["message"] == "token=hunter2"
    assert records[3]["parents"] == ["app.Planner#p1"]


def test_audit_filters_by_kind_tool_thinker_and_time(project: Path) -> None:
    """--kind, --tool, --thinker and --since narrow what is printed."""

    def sequences(*args: str) -> list[int]:
        done = nucleo(project, "audit", "--json", *args)
        assert done.returncode == 0, done.stderr
        return [json.loads(line)["sequence"] for line in done.stdout.splitlines()]

    assert sequences("--kind", "grant", "--kind", "refusal") == [1, 3]
    assert sequences("--tool", "send_*") == [4]
    assert sequences("--thinker", "Helper") == [3, 4]
    assert sequences("--thinker", "app.Planner") == [1, 2, 3, 4]
    assert sequences("--since", "1h") == [1, 2, 3, 4]
    assert sequences("--since", "2999-01-01T00:00") == []


def test_audit_follow_prints_records_as_they_are_made(project: Path) -> None:
    """--follow prints the records there are, then each new one, until interrupted."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUCLEO_")}
    follower = subprocess.Popen(
        [str(NUCLEO), "audit", "--follow", "--json", "--kind", "call_start"],
        cwd=project,
        env={**environment, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        log = AuditLog.open(start=project)
        log.record(AuditEvent(kind="call_start", requester=PLANNER, tool="late"), durable=True)
        assert follower.stdout is not None
        line = follower.stdout.readline()  # blocks until the follower printed it
        assert json.loads(line)["tool"] == "late"
        log.close()
    finally:
        follower.terminate()
        follower.communicate(timeout=60)


def test_audit_verify_exits_0_for_an_intact_record(project: Path) -> None:
    """`nucleo audit verify` says the record is intact, and how long, with exit code 0."""
    done = nucleo(project, "audit", "verify")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("The audit record is intact: 4 records, head 4 (")


@pytest.mark.parametrize(
    ("statement", "first_bad"),
    [
        (
            "UPDATE audit_records SET content = replace(content, 'auto', 'deny') "
            "WHERE sequence = 2",
            2,
        ),
        ("DELETE FROM audit_records WHERE sequence = 3", 3),
        ("DELETE FROM audit_records WHERE sequence = 4", 4),
    ],
    ids=["edited", "deleted", "last deleted"],
)
def test_audit_verify_exits_1_naming_the_first_broken_record(
    project: Path, statement: str, first_bad: int
) -> None:
    """An edited or deleted record makes verify exit 1 and name it; --json says the same."""
    path = project / ".nucleo" / "audit.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute(statement)
    connection.close()
    done = nucleo(project, "audit", "verify")
    assert done.returncode == 1, done.stdout
    assert done.stdout.splitlines()[0] == f"The audit record is broken at record {first_bad}."
    verified = nucleo(project, "audit", "verify", "--json")
    assert verified.returncode == 1
    report = json.loads(verified.stdout)
    assert report["ok"] is False
    assert report["first_bad_sequence"] == first_bad


def test_a_missing_record_is_an_error_and_no_file_is_created(tmp_path: Path) -> None:
    """Reading or verifying where nothing was recorded exits 2 and creates nothing."""
    for args in (("audit",), ("audit", "verify")):
        done = nucleo(tmp_path, *args)
        assert done.returncode == 2
        assert "no audit record at" in done.stderr
    assert not (tmp_path / ".nucleo").exists()


def test_path_and_the_environment_variable_name_the_file(project: Path, tmp_path: Path) -> None:
    """--path, and else $NUCLEO_AUDIT, choose the file instead of the project's."""
    elsewhere = tmp_path / "elsewhere.sqlite3"
    log = AuditLog(SQLiteAuditStore(elsewhere))
    log.record(AuditEvent(kind="revocation", tool="forecast"))
    log.close()
    by_option = nucleo(project, "audit", "--json", "--path", str(elsewhere))
    by_variable = nucleo(project, "audit", "--json", NUCLEO_AUDIT=str(elsewhere))
    for done in (by_option, by_variable):
        assert done.returncode == 0, done.stderr
        assert [json.loads(line)["kind"] for line in done.stdout.splitlines()] == ["revocation"]


def test_a_malformed_since_or_kind_is_an_error_saying_what_is_expected(project: Path) -> None:
    """--since and --kind values that mean nothing exit 2 saying what to give."""
    since = nucleo(project, "audit", "--since", "yesterday")
    assert since.returncode == 2
    assert "ISO 8601" in since.stderr
    kind = nucleo(project, "audit", "--kind", "calls")
    assert kind.returncode == 2
    assert "call_start" in kind.stderr
