"""A durable conversation loses nothing committed when its process is killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nucleo_core.conversations import ConversationService
from nucleo_core.models.messages import Message

#: The writer: appends numbered turns and reports each one once `append` has returned.
WRITER = """
import sys
from nucleo_core.conversations import ConversationService
from nucleo_core.models.messages import Message

service = ConversationService(sys.argv[1])
context = service.open("crash", durable=True)
number = 0
while True:
    context.append(Message.user(f"turn {number}"))
    if number % 7 == 0:
        context.artifacts.keep(f"artifact {number}")
    print(number, flush=True)
    number += 1
"""

COMMITTED = 40


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_sigkill_between_turns_loses_nothing_committed(tmp_path: Path) -> None:
    """Every turn the killed writer reported committed is read back, in order, by a new process."""
    path = tmp_path / "conversations.sqlite3"
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)],
        stdout=subprocess.PIPE,
        text=True,
    ) as writer:
        assert writer.stdout is not None
        reported = -1
        for line in writer.stdout:
            reported = int(line)
            if reported >= COMMITTED:
                break
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    assert reported >= COMMITTED
    with ConversationService(path) as service:
        context = service.open("crash", durable=True)
        texts = [message.text for message in context.messages]
        assert len(texts) >= reported + 1
        assert texts == [f"turn {number}" for number in range(len(texts))]
        kept = [artifact.content for artifact in context.artifacts]
        assert kept[: reported // 7 + 1] == [f"artifact {n}" for n in range(0, reported + 1, 7)]
        context.append(Message.assistant("resumed"))
    with ConversationService(path) as service:
        assert service.open("crash", durable=True).messages[-1] == Message.assistant("resumed")
