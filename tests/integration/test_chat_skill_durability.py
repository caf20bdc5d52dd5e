"""A skill a durable chat loaded is still attached after the process that loaded it is gone.

Two processes share one SQLite file (each runs `_skill_chat_process.py`): the first loads the
``glossary`` skill (``allowed-tools: lookup``) through ``request_skill``; the second, whose hub
holds no skill at all, resumes the chat. The resumed turn's every call carries the skill's
instructions, its palette is narrowed to the skill's tools, and a call outside them is refused.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from nucleo_core.conversations import ConversationService

SCRIPT = Path(__file__).with_name("_skill_chat_process.py")
INSTRUCTIONS = "# Skill: glossary\n\nLook every term up before you use it."


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


def test_a_skill_loaded_by_one_process_rides_the_chat_in_the_next(tmp_path: Path) -> None:
    """After a restart the resumed chat sends the skill's instructions and keeps its limit."""
    path = tmp_path / "chat.sqlite3"
    loaded = run(path, "load")
    assert INSTRUCTIONS not in loaded["systems"][0]
    assert INSTRUCTIONS in loaded["systems"][1]  # from the call after the grant on

    resumed = run(path, "resume")
    assert all(INSTRUCTIONS in system for system in resumed["systems"])
    assert all("write_record" not in tools for tools in resumed["tools"])
    assert "lookup" in resumed["tools"][0]
    assert resumed["ran"] == ["lookup"]
    assert resumed["errors"] == [True, False]
    with ConversationService(path) as service:
        assert service.open("chat", durable=True).skills == ("glossary",)
