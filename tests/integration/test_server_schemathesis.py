"""schemathesis runs the server's own OpenAPI schema against the live server, with the token.

Every operation is generated from the schema the server serves (``/api/openapi.json``, behind
the token) and sent to a real ``nucleo serve`` process, in two passes: one over every
operation as the schema alone allows, and one where the ids a path takes are real (a pending
approval, a served tool), so that deciding an approval and reading an execution are reached
too, not only their 404s. Every check runs but ``positive_data_acceptance``: an execute's
``input`` is validated against the called tool's own published schema (``GET
/api/tools/{id}`` shows it), which the static OpenAPI schema does not carry, so a schema-valid
body may rightly be refused 422. Neither pass may find a server error or an answer that breaks
the schema; the count of generated cases is printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from _server_harness import PROJECT_ARGUMENTS, Server, make_project, running_server

#: Cases per operation; the seed is fixed so that a failure is reproduced by its command.
MAX_EXAMPLES = 25
SEED = 15
OPERATIONS = 12


def schemathesis(server: Server, folder: Path, name: str) -> dict[str, Any]:
    """Run schemathesis from ``folder`` (its schemathesis.toml, if any); its JSON report."""
    report = folder / f"{name}.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{server.url}/api/openapi.json",
            "--header",
            f"Authorization: Bearer {server.token}",
            "--checks",
            "all",
            "--exclude-checks",
            "positive_data_acceptance",
            "--max-examples",
            str(MAX_EXAMPLES),
            "--seed",
            str(SEED),
            "--workers",
            "1",
            "--generation-database",
            "none",
            "--request-timeout",
            "60",
            "--no-color",
            "--report",
            "json",
            "--report-json-path",
            str(report),
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    summary: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    cases = summary["test_cases"]
    print(
        f"schemathesis {summary['schemathesis_version']}, {name}: {cases['generated']} cases "
        f"generated, {cases['with_failures']} with failures, {cases['errored']} errored (seed "
        f"{summary['seed']}); operations reached only with unknown ids: "
        f"{summary['warnings']['missing_test_data'] or 'none'}"
    )
    return summary


def passed(summary: dict[str, Any]) -> None:
    cases = summary["test_cases"]
    assert summary["complete"] is True
    assert cases["generated"] > 0
    assert (cases["with_failures"], cases["unique_failures"], cases["errored"]) == (0, 0, 0)
    assert summary["errors"] == []
    assert len(summary["valid_rates"]) == OPERATIONS  # every operation was exercised


def test_schemathesis_finds_no_server_error_and_no_schema_violation(tmp_path: Path) -> None:
    """Over the whole schema, with unknown ids and then real ones: 0 failures of any check."""
    project = make_project(tmp_path / "project")
    plain = tmp_path / "plain"
    plain.mkdir()
    seeded = tmp_path / "seeded"
    seeded.mkdir()
    # A short stream: schemathesis reads each answer to its end.
    with running_server(project, *PROJECT_ARGUMENTS, "--stream-seconds", "0.3") as server:
        first = schemathesis(server, plain, "plain")
        pending = server.request(
            "POST", "/api/tools/refund/execute", {"input": {"ticket_id": 1, "amount": 2}}
        )
        assert pending.status == 202
        (seeded / "schemathesis.toml").write_text(
            "[[operations]]\n"
            'include-path-regex = "^/api/(approvals|executions)/"\n'
            f'parameters = {{ approval_id = "{pending.body["approval_id"]}" }}\n\n'
            "[[operations]]\n"
            'include-path-regex = "^/api/tools/[{]tool_id[}]"\n'
            'parameters = { tool_id = "native:refund" }\n',
            encoding="utf-8",
        )
        second = schemathesis(server, seeded, "real ids")
    passed(first)
    passed(second)
    assert second["warnings"]["missing_test_data"] == []
    total = first["test_cases"]["generated"] + second["test_cases"]["generated"]
    print(f"schemathesis: {total} cases generated in all, 0 failures")
