"""schemathesis runs the server's own OpenAPI schema against the live server, with the token.

Every operation is generated from the schema the server serves (``/api/openapi.json``, behind
the token) and sent to a real ``nucleo serve`` process. Every check runs but
``positive_data_acceptance``: an execute's ``input`` is validated against the called tool's
own published schema (``GET /api/tools/{id}`` shows it), which the static OpenAPI schema does
not carry, so a schema-valid body may rightly be refused 422. The run must find no server
error and no answer that breaks the schema; the count of generated cases is printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from _server_harness import PROJECT_ARGUMENTS, make_project, running_server

#: Cases per operation; the seed is fixed so that a failure is reproduced by its command.
MAX_EXAMPLES = 25
SEED = 15


def test_schemathesis_finds_no_server_error_and_no_schema_violation(tmp_path: Path) -> None:
    """Over the whole schema: 0 failures of any check, every operation tested."""
    project = make_project(tmp_path / "project")
    report = tmp_path / "schemathesis.json"
    # A short stream: schemathesis reads each answer to its end.
    with running_server(project, *PROJECT_ARGUMENTS, "--stream-seconds", "0.3") as server:
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
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    summary = json.loads(report.read_text(encoding="utf-8"))
    cases = summary["test_cases"]
    print(
        f"schemathesis {summary['schemathesis_version']}: {cases['generated']} cases generated, "
        f"{cases['with_failures']} with failures, {cases['errored']} errored "
        f"(seed {summary['seed']})"
    )
    assert summary["complete"] is True
    assert cases["generated"] > 0
    assert (cases["with_failures"], cases["unique_failures"], cases["errored"]) == (0, 0, 0)
    assert summary["errors"] == []
    tested = set(summary["valid_rates"])
    assert len(tested) == 12, tested  # every operation of the schema was exercised
