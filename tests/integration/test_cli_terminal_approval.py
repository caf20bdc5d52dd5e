"""``nucleo run`` asks on the terminal for a confirm-level call, through a pseudo-terminal.

The installed ``nucleo`` script runs a thinker of a project whose ``pyproject.toml`` declares
``[tool.nucleo.guard]`` (so the run is guarded); its stdin is a pseudo-terminal, so the run
shows the call (tool, risk, source, arguments pretty-printed) and reads yes or no there.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")

NUCLEO = Path(sys.executable).with_name("nucleo")
DESK = '''\
from pathlib import Path

from nucleo_core import SingleObjectiveThinker, tool
from nucleo_core.models import ModelResponse, StopReason, TextBlock, ToolResultBlock, ToolUseBlock
from nucleo_core.testing import ScriptedModel

HERE = Path(__file__).parent


@tool(risk="high")
def wire_money(to: str, amount: int) -> str:
    """Wire money."""
    with (HERE / "wired.txt").open("a") as wired:
        wired.write(f"{to} {amount}\\n")
    return f"wired {amount} to {to}"


def answer(request):
    results = [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
    if results:
        text = "Refused: " + results[0].content if results[0].is_error else "Paid."
        return ModelResponse(content=(TextBlock(text=text),), stop_reason=StopReason.END_TURN)
    use = ToolUseBlock(id="w", name="wire_money", input={"to": "acme", "amount": 120})
    return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)


class Treasurer(SingleObjectiveThinker[str, str]):
    """Wires money (high risk: confirm)."""

    def __init__(self, declaration, **arguments):
        super().__init__(declaration, client=ScriptedModel(answer), **arguments)

    @classmethod
    def declare_default_tools(cls):
        return [wire_money]
'''


def run_on_a_terminal(project: Path, reply: str) -> str:
    """Run ``nucleo run`` with a pseudo-terminal; answer the question with ``reply``."""
    controller, terminal = os.openpty()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUCLEO_")}
    environment.update(
        {
            "ANTHROPIC_API_KEY": "not-used",  # the scripted model answers; the seat is checked
            "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1",
            "NUCLEO_CONVERSATIONS": str(project / "conversations.sqlite3"),
            "NO_COLOR": "1",
            "COLUMNS": "120",
        }
    )
    process = subprocess.Popen(
        [str(NUCLEO), "run", "desk.py:Treasurer", "Pay acme.", "--model", "anthropic:any"],
        cwd=project,
        env=environment,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
    )
    os.close(terminal)
    seen = b""
    answered = False
    deadline = time.monotonic() + 120
    try:
        while True:
            assert time.monotonic() < deadline, f"nucleo run did not finish:\n{seen.decode()}"
            ready, _, _ = select.select([controller], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal closed: the process ended
                break
            if not chunk:
                break
            seen += chunk
            if not answered and b"Run it?" in seen:
                os.write(controller, reply.encode() + b"\n")
                answered = True
    finally:
        os.close(controller)
        process.wait(timeout=60)
    assert process.returncode == 0, seen.decode(errors="replace")
    assert answered, seen.decode(errors="replace")
    return seen.decode(errors="replace").replace("\r\n", "\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder declaring a guard table, with the thinker module."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "desk"\nversion = "0.1.0"\n\n[tool.nucleo.guard]\nrules = []\n',
        encoding="utf-8",
    )
    (tmp_path / "desk.py").write_text(DESK, encoding="utf-8")
    return tmp_path


def test_nucleo_run_shows_the_call_and_runs_it_once_approved_at_the_terminal(
    project: Path,
) -> None:
    """Answered yes, the call runs; the question showed tool, risk, source and arguments."""
    out = run_on_a_terminal(project, "y")
    assert "The model wants to call wire_money" in out
    assert "risk:      high" in out
    assert "source:    native:wire_money" in out
    assert '"amount": 120,' in out  # pretty-printed, one key a line
    assert '"to": "acme"' in out
    assert "Paid." in out
    assert (project / "wired.txt").read_text(encoding="utf-8") == "acme 120\n"


def test_nucleo_run_refuses_the_call_when_the_terminal_says_no(project: Path) -> None:
    """Answered no, the call does not run and the model reads that it was not approved."""
    out = run_on_a_terminal(project, "n")
    assert "Refused: Calling 'wire_money' was not approved" in out
    assert not (project / "wired.txt").exists()
