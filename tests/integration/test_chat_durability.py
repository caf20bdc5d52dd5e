"""A durable chat survives its process being killed, between turns or in the middle of one.

Three processes share one SQLite file (each runs `_chat_process.py`): the first answers a
question; the second starts another turn and is killed with ``SIGKILL`` at a known point; the
third resumes the conversation. Precisely:

- Nothing the first turn did is lost, in the store or in what the resumed model reads.
- Killed **between turns** (the second turn had answered): the second turn is kept whole and the
  resumed model reads it as it was, with no marker.
- Killed **mid-turn** (in a model call, in a tool, or after a tool ran): the interrupted
  question stays, its partial work (tool uses, results) is gone, and an `ABNORMAL_END` marker
  with the reason `INTERRUPTED` sits right after it; the resumed model reads the question, then
  that note, then the new question. No question hangs unanswered.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from nucleo_core.conversations import ABNORMAL_END, ConversationService
from nucleo_core.hub.hub import ToolHub
from nucleo_core.models import Message, ModelCatalog, ThinkerDeclaration
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.reactive import INTERRUPTED, TURN_IN_PROGRESS

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

SCRIPT = Path(__file__).with_name("_chat_process.py")
NOTE = f"assistant: [The previous turn ended without an answer: {INTERRUPTED}]"
FIRST = ["user: What is the capital of France?", "assistant: Paris."]
SECOND = "user: And of Italy?"
THIRD = "user: And of Spain?"
#: What the killed process had stored, past the first turn, at each kill point.
AT_KILL = {
    "after_answer": [SECOND, "assistant: Rome."],
    "in_model_call": [SECOND],
    "in_tool": [SECOND, "assistant: <use>"],
    "after_tool": [SECOND, "assistant: <use>", "user: <result>"],
}


def run(path: Path, mode: str) -> dict[str, Any]:
    """Run one process of the chat to its end; return what it printed."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(path), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def run_and_kill(path: Path, mode: str, ready: Path) -> None:
    """Run one process of the chat until it reaches its kill point, and ``SIGKILL`` it there."""
    with subprocess.Popen(
        [sys.executable, str(SCRIPT), str(path), mode, str(ready)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        deadline = time.monotonic() + 120
        while not ready.exists():
            if process.poll() is not None:
                assert process.stderr is not None
                message = process.stderr.read()
                pytest.fail(f"the {mode} process ended before its kill point:\n{message}")
            assert time.monotonic() < deadline, f"the {mode} process never reached its kill point"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def stored(path: Path) -> tuple[list[str], Any]:
    """The stored conversation's lines and snapshot, read as a fresh process would."""
    with ConversationService(path) as service:
        snapshot = service.open("chat", durable=True).snapshot()
    out = []
    for message in snapshot.messages:
        text = message.text
        if message.tool_uses:
            text = f"{text}<use>"
        elif not text:
            text = "<result>"
        out.append(f"{message.role}: {text}")
    return out, snapshot


@pytest.mark.parametrize("kill_point", list(AT_KILL))
def test_a_chat_resumes_after_a_sigkill_with_nothing_lost_and_nothing_unanswered(
    tmp_path: Path, kill_point: str
) -> None:
    """Killed at ``kill_point``, a chat resumes with its first turn whole and nothing dangling."""
    path = tmp_path / "chat.sqlite3"
    first = run(path, "first")
    assert first["answer"] == "Paris."
    assert "".join(text for text, _ in first["events"]) == "Paris."
    assert first["events"][-1] == ["Paris.", True]

    run_and_kill(path, kill_point, tmp_path / "ready")
    lines, snapshot = stored(path)
    assert lines == FIRST + AT_KILL[kill_point]  # committed before the kill, nothing more
    assert snapshot.markers == ()
    interrupted = kill_point != "after_answer"
    assert (snapshot.metadata[TURN_IN_PROGRESS] is not None) == interrupted

    resumed = run(path, "resume")
    assert resumed["answer"] == "Madrid."
    [request] = resumed["requests"]
    second = [SECOND, NOTE] if interrupted else AT_KILL[kill_point]
    assert request == [*FIRST, *second, THIRD]

    lines, snapshot = stored(path)
    assert lines == [*FIRST, *([SECOND] if interrupted else second), THIRD, "assistant: Madrid."]
    expected = [(ABNORMAL_END, INTERRUPTED, 3)] if interrupted else []
    assert [(m.kind, m.reason, m.position) for m in snapshot.markers] == expected
    assert snapshot.metadata[TURN_IN_PROGRESS] is None


def test_a_chat_makes_a_temporary_conversation_durable(tmp_path: Path) -> None:
    """A conversation open here as temporary becomes durable, with what it held, on a chat turn."""
    path = tmp_path / "chat.sqlite3"
    with ConversationService(path) as service:
        scratch = service.open("chat")
        scratch.extend([Message.user("Remember 42."), Message.assistant("Noted.")])
        model = ScriptedModel(["It was 42."])
        chat = ChatThinker(
            ThinkerDeclaration("standard", 1_000),
            hub=ToolHub(),
            catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
            conversations=service,
            client=model,
        )
        assert asyncio.run(chat.send("What was it?", conversation_id="chat")) == "It was 42."
        assert scratch.durable
    lines, _ = stored(path)
    assert lines == [
        "user: Remember 42.",
        "assistant: Noted.",
        "user: What was it?",
        "assistant: It was 42.",
    ]


def test_a_chat_run_is_durable_even_when_asked_for_a_temporary_one(tmp_path: Path) -> None:
    """`ChatThinker.run` keeps the conversation whatever ``durable`` says."""
    path = tmp_path / "chat.sqlite3"
    with ConversationService(path) as service:
        chat = ChatThinker(
            ThinkerDeclaration("standard", 1_000),
            hub=ToolHub(),
            catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
            conversations=service,
            client=ScriptedModel(["Kept."]),
        )
        kept = asyncio.run(chat.run("Keep this.", conversation_id="chat", durable=False))
        assert kept == "Kept."
    assert stored(path)[0] == ["user: Keep this.", "assistant: Kept."]
