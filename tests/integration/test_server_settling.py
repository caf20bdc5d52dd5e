"""`nucleo serve --settle-seconds 0`: a call approved elsewhere runs only when it is read."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _server_harness import (
    PROJECT_ARGUMENTS,
    Server,
    make_project,
    running_server,
    server_environment,
)

from nucleo_core.server import ServerSettings
from nucleo_core.server.errors import ServerConfigError


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    project = make_project(tmp_path_factory.mktemp("unsettled"))
    with running_server(project, *PROJECT_ARGUMENTS, "--settle-seconds", "0") as running:
        yield running


def refunds(server: Server) -> list[str]:
    path = server.project / "refunds.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_without_the_settler_an_approved_execution_runs_once_when_it_is_read(
    server: Server,
) -> None:
    answer = server.request(
        "POST", "/api/tools/refund/execute", {"input": {"ticket_id": 4, "amount": 404}}
    )
    assert answer.status == 202
    pending = answer.body
    decided = subprocess.run(
        [Path(sys.executable).parent / "nucleo", "approvals", "approve", pending["approval_id"]],
        cwd=server.project,
        env=server_environment(server.project),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert decided.returncode == 0, decided.stderr
    # An audit read takes the server a round trip: had a settler been running at a 0 s period,
    # the call would have run by now; with none, it waits to be read.
    assert server.request("GET", "/api/audit?limit=1").status == 200
    assert "4 404" not in refunds(server)

    ran = server.request("GET", pending["execution_url"])
    assert (ran.status, ran.body["status"]) == (200, "ok")
    assert server.request("GET", pending["execution_url"]).body == ran.body
    assert refunds(server).count("4 404") == 1


def test_a_negative_settle_period_is_refused_with_what_to_give() -> None:
    with pytest.raises(ServerConfigError, match="settle_seconds is -1"):
        ServerSettings(settle_seconds=-1)
