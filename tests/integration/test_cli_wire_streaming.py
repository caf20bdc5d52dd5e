"""``nucleo chat`` and ``nucleo run`` stream the model's text, through the installed console script.

The script runs a thinker of a project folder seated on an ``openai-compatible`` entry of a
scripted server on 127.0.0.1, through the real ``openai`` SDK: the request is a stream, and the
reply's text is printed once, as it arrives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from wire_server import Reply, WireServer, wire_server

NUCLEO = Path(sys.executable).with_name("nucleo")

DESK = '''\
from nucleo_core import SingleObjectiveThinker
from nucleo_core.thinking.chat import ChatThinker


class Desk(SingleObjectiveThinker[str, str]):
    """A thinker with no tools of its own."""


class DeskChat(ChatThinker):
    """A chat with no tools of its own."""
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder holding the thinkers' module, with no plugins."""
    (tmp_path / "desk.py").write_text(DESK, encoding="utf-8")
    (tmp_path / "plugins").mkdir()
    return tmp_path


def nucleo(project: Path, *arguments: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run the installed ``nucleo`` script in ``project``, no plugin and no key in sight."""
    assert NUCLEO.is_file(), f"the nucleo console script is not installed beside {sys.executable}"
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("NUCLEO_") and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    environment.update(
        {
            "NUCLEO_PLUGINS_PATH": str(project / "plugins"),
            "NUCLEO_CONVERSATIONS": str(project / "conversations.sqlite3"),
            "PYTHONPATH": str(project),
            "NO_COLOR": "1",
        }
    )
    return subprocess.run(
        [str(NUCLEO), *arguments],
        cwd=project,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "smollm2",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def streamed(*pieces: str) -> Reply:
    """A streamed answer of ``pieces``, then its usage."""
    chunks = [chunk({"content": piece}) for piece in pieces]
    usage = {**chunk({}), "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}
    events = [*chunks, chunk({}, "stop"), usage]
    return Reply.sse([(None, data) for data in events] + [(None, "[DONE]")])


@pytest.fixture
def server() -> Any:
    with wire_server() as started:
        yield started


def test_nucleo_chat_prints_a_streamed_reply_once(project: Path, server: WireServer) -> None:
    """Each chat message is a streamed request; its reply is printed once, whole, on its line."""
    server.replies.append(streamed("Paris ", "is the ", "capital."))
    server.replies.append(streamed("Rome."))
    entry = f"openai-compatible:{server.url}/v1#smollm2"

    result = nucleo(
        project, "chat", "desk.py:DeskChat", "--model", entry, stdin="France?\nItaly?\n"
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Paris is the capital.\nRome.\n"
    bodies = [request.json() for request in server.requests]
    assert [body["stream"] for body in bodies] == [True, True]
    assert bodies[1]["messages"][-1] == {"role": "user", "content": "Italy?"}
    assert "Resume this conversation with" in result.stderr


def test_nucleo_run_prints_a_streamed_answer_once(project: Path, server: WireServer) -> None:
    """`nucleo run` streams a text answer and prints it once, ending its line."""
    server.replies.append(streamed("Forty", "-two."))
    entry = f"openai-compatible:{server.url}/v1#smollm2"

    result = nucleo(project, "run", "desk.py:Desk", "Answer?", "--model", entry)

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Forty-two.\n"
    (request,) = server.requests
    assert request.json()["stream"] is True
