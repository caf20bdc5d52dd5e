"""One writer per durable conversation, between real processes on one SQLite file.

A writer process (`_writer_process.py`) holds conversation ``chat``; this test's process is the
second opener. Precisely:

- While a live process holds the conversation (in the middle of a turn), a second opener is
  refused with `ConversationBusy` naming the holder's pid, host and since when; the holder's
  live turn is untouched, and the holder finishes and records it normally.
- A holder that died (``SIGKILL`` mid-turn) holds nothing: the next opener takes the
  conversation over, with a warning naming the dead holder, and rolls its interrupted turn back
  as before. So does a holder whose pid lives on in another program (``exec``), and one whose
  forked child outlives it: the hold is the holder's lock, not its pid.
- Closing the conversation releases it while the process goes on; a process that exits
  without closing releases it too, leaving no record of an abnormal end.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from nucleo_core.conversations import (
    ABNORMAL_END,
    ConversationBusy,
    ConversationService,
    ConversationSnapshot,
)
from nucleo_core.conversations.sqlite_store import SQLiteConversationStore
from nucleo_core.hub.hub import ToolHub
from nucleo_core.models import ModelCatalog, ThinkerDeclaration
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.reactive import INTERRUPTED, TURN_IN_PROGRESS

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

SCRIPT = Path(__file__).with_name("_writer_process.py")
ITALY = "user: And of Italy?"
SPAIN = "user: And of Spain?"
NOTE = f"assistant: [The previous turn ended without an answer: {INTERRUPTED}]"
TAKEN_OVER = "ended without closing it"


@contextmanager
def writer(tmp_path: Path, mode: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    """Start a writer process in ``mode``; yield it and its ready file's content once it is ready.

    The process is killed on the way out if it is still running.
    """
    ready = tmp_path / f"{mode}.ready"
    process = subprocess.Popen(
        [
            sys.executable,
            str(SCRIPT),
            str(tmp_path / "chat.sqlite3"),
            mode,
            str(ready),
            go(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            if process.poll() is not None:
                _, err = process.communicate()
                pytest.fail(f"the {mode} writer ended before it was ready:\n{err}")
            assert time.monotonic() < deadline, f"the {mode} writer never got ready"
            time.sleep(0.02)
        yield process, json.loads(ready.read_text())
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=60)


def go(tmp_path: Path) -> str:
    """The file a waiting writer goes on at."""
    return str(tmp_path / "go")


def finish(process: subprocess.Popen[str], tmp_path: Path) -> dict[str, Any]:
    """Let a waiting writer go on; return what it printed when it ended."""
    Path(go(tmp_path)).write_text("go")
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    result: dict[str, Any] = json.loads(out) if out.strip() else {}
    return result


def kill(pid: int) -> None:
    """``SIGKILL`` ``pid``, if it still runs."""
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def stored(path: Path) -> tuple[list[str], ConversationSnapshot]:
    """The stored conversation, read without opening it for writing (as any reader may)."""
    store = SQLiteConversationStore(path)
    try:
        snapshot = store.load("chat")
    finally:
        store.close()
    assert snapshot is not None
    return [f"{m.role}: {m.text}" for m in snapshot.messages], snapshot


def writers(path: Path) -> list[tuple[str, int, str]]:
    """The store's writer records: who holds which conversation, as the store says."""
    store = SQLiteConversationStore(path)
    try:
        with store._transaction("read the writers", write=False) as db:
            rows = db.execute("SELECT conversation_id, pid, host FROM writers").fetchall()
    finally:
        store.close()
    return [tuple(row) for row in rows]


def chat_turn(path: Path, text: str) -> tuple[str, list[list[str]]]:
    """Run one chat turn in this process; the answer and the lines of each model request."""
    model = ScriptedModel(["Madrid."])
    with ConversationService(path) as service:
        chat = ChatThinker(
            ThinkerDeclaration("standard", 1_000),
            hub=ToolHub(),
            catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
            conversations=service,
            client=model,
        )
        answer = asyncio.run(chat.send(text, conversation_id="chat"))
    requests = [[f"{m.role}: {m.text}" for m in r.messages] for r in model.requests]
    return answer, requests


def test_a_second_opener_is_refused_naming_the_live_holder_who_then_finishes_its_turn(
    tmp_path: Path,
) -> None:
    """A conversation a live process is writing refuses a second opener, naming the holder."""
    path = tmp_path / "chat.sqlite3"
    before = datetime.now(UTC)
    with writer(tmp_path, "turn") as (process, ready):
        assert ready["pid"] == process.pid
        with ConversationService(path) as service, pytest.raises(ConversationBusy) as refused:
            service.open("chat", durable=True)
        busy = refused.value
        assert (busy.conversation_id, busy.pid, busy.host) == (
            "chat",
            process.pid,
            socket.gethostname(),
        )
        assert busy.since is not None
        assert before <= busy.since <= datetime.now(UTC)
        assert not busy.this_process
        message = str(busy)
        since = busy.since.isoformat(timespec="seconds")
        holder = f"(pid {process.pid} on host {busy.host}, since {since})"
        assert f"conversation chat is open for writing in another process {holder}" in message
        assert "wait until that process ends its turn" in message

        # A chat turn here is refused before it touches anything: no model call, no rollback.
        model = ScriptedModel(["Madrid."])
        with ConversationService(path) as service:
            chat = ChatThinker(
                ThinkerDeclaration("standard", 1_000),
                hub=ToolHub(),
                catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
                conversations=service,
                client=model,
            )
            with pytest.raises(ConversationBusy):
                asyncio.run(chat.send("And of Spain?", conversation_id="chat"))
        assert model.requests == []
        lines, snapshot = stored(path)
        assert lines == [ITALY]
        assert snapshot.markers == ()
        assert snapshot.metadata[TURN_IN_PROGRESS] == {"started_at": 0}

        finished = finish(process, tmp_path)
    assert finished == {"answer": "Rome.", "requests": [[ITALY]]}
    lines, snapshot = stored(path)
    assert lines == [ITALY, "assistant: Rome."]
    assert snapshot.markers == ()
    assert snapshot.metadata[TURN_IN_PROGRESS] is None
    assert writers(path) == []  # the holder released it as it ended
    assert chat_turn(path, "And of Spain?") == ("Madrid.", [[ITALY, "assistant: Rome.", SPAIN]])


@pytest.mark.parametrize("mode", ["die_in_turn", "exec_in_turn", "fork_in_turn"])
def test_a_holder_gone_mid_turn_is_taken_over_and_its_turn_rolled_back(
    tmp_path: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A holder gone mid-turn holds nothing: the next opener takes over and rolls back its turn.

    Gone: killed, or its pid now runs another program, or killed while a child it forked lives.
    """
    path = tmp_path / "chat.sqlite3"
    with writer(tmp_path, mode) as (process, ready):
        holder = process.pid
        assert ready["pid"] == holder  # exec keeps the pid
        lingering = ready.get("child")
        try:
            if mode == "exec_in_turn":
                os.kill(holder, 0)  # the holder's pid is alive, running another program
            else:
                os.kill(holder, signal.SIGKILL)
                process.wait(timeout=60)
            if lingering is not None:
                os.kill(lingering, 0)  # the holder's forked child is alive
            assert writers(path) == [("chat", holder, socket.gethostname())]
            assert stored(path)[0] == [ITALY]

            with caplog.at_level(logging.WARNING, logger="nucleo.conversations"):
                answer, requests = chat_turn(path, "And of Spain?")
        finally:
            if lingering is not None:
                kill(lingering)
    assert (answer, requests) == ("Madrid.", [[ITALY, NOTE, SPAIN]])
    [taken] = [r.getMessage() for r in caplog.records if TAKEN_OVER in r.getMessage()]
    assert f"previous writer (pid {holder} on host {socket.gethostname()}" in taken
    lines, snapshot = stored(path)
    assert lines == [ITALY, SPAIN, "assistant: Madrid."]
    assert [(m.kind, m.reason, m.position) for m in snapshot.markers] == [
        (ABNORMAL_END, INTERRUPTED, 1)
    ]
    assert writers(path) == []


def test_closing_the_conversation_lets_the_next_opener_in_while_the_holder_lives_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A conversation its holder closed can be opened elsewhere while the holder still runs."""
    path = tmp_path / "chat.sqlite3"
    with writer(tmp_path, "open_and_close") as (process, _):
        assert writers(path) == []
        with (
            caplog.at_level(logging.WARNING, logger="nucleo.conversations"),
            ConversationService(path) as service,
        ):
            context = service.open("chat", durable=True)
            assert writers(path) == [("chat", os.getpid(), socket.gethostname())]
            assert [m.text for m in context.messages] == ["Kept, then closed."]
        assert process.poll() is None
        finish(process, tmp_path)
    assert not [r for r in caplog.records if TAKEN_OVER in r.getMessage()]


def test_a_process_that_exits_without_closing_releases_its_conversations(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A process that ends with a conversation still open releases it, leaving no stale record."""
    path = tmp_path / "chat.sqlite3"
    with writer(tmp_path, "open_and_exit") as (process, _):
        assert process.wait(timeout=120) == 0
    assert writers(path) == []
    with caplog.at_level(logging.WARNING, logger="nucleo.conversations"):
        assert chat_turn(path, "And of Spain?") == (
            "Madrid.",
            [["user: Kept, never closed.", SPAIN]],
        )
    assert not [r for r in caplog.records if TAKEN_OVER in r.getMessage()]
