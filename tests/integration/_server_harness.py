"""The server tests' harness: a test project, ``nucleo serve`` as a real process, and a client.

`running_server` starts ``python -m nucleo_core.cli serve`` in the project folder on a free
port of 127.0.0.1 and yields once a request to ``/api/health`` succeeds (never after a fixed
sleep); it stops the process it started, by its handle, when the block ends. Installed
plugins are switched off in the server's environment, so what it serves is the project's
alone, whatever happens to be installed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any

#: How long a server may take to answer its first health check (a loaded machine).
READY_WITHIN = 120.0

PROJECT_FILES: Mapping[str, str] = {
    "nucleo.toml": """\
[[guard.rules]]
name = "no-drops"
tool = "drop_*"
decision = "deny"
reason = "tables are dropped by a person"

[[guard.rules]]
name = "not-over-http"
thinker = "nucleo_core.server.executions.ApiCaller"
tool = "close_ticket"
decision = "deny"
reason = "tickets are closed in the helpdesk, not over HTTP"
""",
    "desk_tools.py": '''\
"""The test project's tools: one per decision of the default policy, and a deny rule's."""

from pathlib import Path

from pydantic import BaseModel

from nucleo_core import tool


class Ticket(BaseModel):
    """A ticket."""

    id: int
    title: str


@tool(read_only=True, risk="low")
def lookup_ticket(ticket_id: int) -> Ticket:
    """Look a ticket up by its number."""
    return Ticket(id=ticket_id, title=f"ticket {ticket_id}")


@tool(risk="medium")
def notify_team(message: str) -> str:
    """Tell the team something."""
    return f"told the team ({len(message)} characters)"


@tool(risk="high")
def refund(ticket_id: int, amount: int) -> str:
    """Refund a customer: each refund that runs is a line of refunds.txt."""
    with Path("refunds.txt").open("a", encoding="utf-8") as log:
        log.write(f"{ticket_id} {amount}\\n")
    return f"refunded {amount} on ticket {ticket_id}"


@tool(risk="high")
def drop_table(table: str) -> str:
    """Drop a table (denied by the project's rule no-drops)."""
    Path("dropped.txt").write_text(table, encoding="utf-8")
    return "dropped"


@tool(risk="low")
def close_ticket(ticket_id: int) -> str:
    """Close a ticket (low risk, but the project keeps it from HTTP callers)."""
    return f"closed {ticket_id}"


@tool(read_only=True, risk="low")
def explode(code: str) -> str:
    """Fail with a message that must never reach a client."""
    raise RuntimeError(f"the database password is hunter2 ({code})")
''',
    "desk_agents.py": '''\
"""The test project's thinker class."""

from nucleo_core import ThinkerBase, ToolSelector

import desk_tools


class Desk(ThinkerBase):
    """Always looks tickets up; may ask to notify the team."""

    @classmethod
    def declare_default_tools(cls):
        return [desk_tools.lookup_ticket]

    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_tool(desk_tools.notify_team)
''',
}

#: The arguments that serve the test project's tools and its thinker class.
PROJECT_ARGUMENTS = ("--from", "desk_tools.py", "--thinker", "desk_agents:Desk")


def make_project(folder: Path) -> Path:
    """Write the test project into ``folder``; return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in PROJECT_FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def server_environment(project: Path, **extra: str) -> dict[str, str]:
    """The environment of a server in ``project``: none of the caller's NUCLEO_* settings."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUCLEO_")}
    environment.update(
        {
            "NUCLEO_CONVERSATIONS": str(project / ".nucleo" / "conversations.sqlite3"),
            "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1",
            "NO_COLOR": "1",
        }
    )
    environment.update(extra)
    return environment


def nucleo_serve(
    project: Path, *arguments: str, environment: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``nucleo serve ARGUMENTS`` to its end (for the starts that must be refused)."""
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", "serve", *arguments],
        cwd=project,
        env=dict(environment) if environment is not None else server_environment(project),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@dataclass(frozen=True)
class Answer:
    """One HTTP answer: its status, its headers and its body (JSON when it is JSON)."""

    status: int
    headers: Message
    body: Any


@dataclass(frozen=True)
class Server:
    """A running ``nucleo serve`` and what a client needs to talk to it."""

    url: str
    project: Path
    token: str
    stderr: Path

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: str | None = "",
        headers: Mapping[str, str] | None = None,
        data: bytes | None = None,
    ) -> Answer:
        """Send one request; ``token=""`` bears the server's token, ``None`` bears none."""
        sent = dict(headers or {})
        bearer = self.token if token == "" else token
        if bearer is not None:
            sent["Authorization"] = f"Bearer {bearer}"
        if body is not None:
            data = json.dumps(body).encode("utf-8")
        if data is not None:
            sent.setdefault("Content-Type", "application/json")
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return _answer(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:
            with error:
                return _answer(error.code, error.headers, error.read())

    def open_stream(self, path: str, headers: Mapping[str, str] | None = None) -> Any:
        """Open a streamed GET (the audit stream); the caller reads and closes it."""
        sent = {"Authorization": f"Bearer {self.token}", **(headers or {})}
        request = urllib.request.Request(self.url + path, headers=sent)
        return urllib.request.urlopen(request, timeout=120)


def _answer(status: int, headers: Message, raw: bytes) -> Answer:
    body: Any = raw.decode("utf-8", errors="replace")
    if headers.get_content_type() == "application/json":
        body = json.loads(raw)
    return Answer(status, headers, body)


def free_port() -> int:
    """A port of 127.0.0.1 free now (another process may take it: `running_server` retries)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_server(
    project: Path, *arguments: str, environment: Mapping[str, str] | None = None
) -> Iterator[Server]:
    """Start ``nucleo serve ARGUMENTS`` in ``project``; yield it once it answers; stop it."""
    env = dict(environment) if environment is not None else server_environment(project)
    stderr = project / f"server-{time.monotonic_ns()}.log"
    for _attempt in range(3):
        port = free_port()
        with stderr.open("w", encoding="utf-8") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "nucleo_core.cli", "serve", "--port", str(port), *arguments],
                cwd=project,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        try:
            url = f"http://127.0.0.1:{port}"
            if _wait_until_ready(process, url, stderr):
                token = env.get("NUCLEO_API_TOKEN") or (
                    (project / ".nucleo" / "api-token").read_text(encoding="utf-8").strip()
                )
                yield Server(url=url, project=project, token=token, stderr=stderr)
                return
        finally:
            _stop(process)
        # The port was taken between the probe and the start: try another one.
    raise AssertionError(f"the server never listened:\n{stderr.read_text(encoding='utf-8')}")


def _wait_until_ready(process: subprocess.Popen[bytes], url: str, stderr: Path) -> bool:
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = stderr.read_text(encoding="utf-8")
            if "address already in use" in said.lower():
                return False
            raise AssertionError(f"the server exited ({process.returncode}):\n{said}")
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=5) as response:
                if response.status == 200:
                    return True
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.05)  # polling for readiness, not waiting for it
    raise AssertionError(f"the server did not answer within {READY_WITHIN:g} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
