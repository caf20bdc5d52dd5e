"""A writer of a durable conversation, for the one-writer tests.

Run as ``python _writer_process.py DB MODE READY [GO]``.

It works on conversation ``chat`` of the SQLite file ``DB`` and writes the file ``READY``
(a JSON object with its ``pid``) once it got where the test wants it, written whole by a rename.
``MODE`` says what it does:

- ``turn``: a `ChatThinker` turn "And of Italy?"; inside the model call it writes ``READY``
  and waits for the file ``GO`` to exist, then answers "Rome." and prints one JSON line (the
  answer and the lines of every request the model received).
- ``die_in_turn``: the same turn; inside the model call it writes ``READY`` and sleeps until
  it is killed.
- ``exec_in_turn``: the same turn; inside the model call it replaces itself (``os.execv``, so
  the same pid lives on) by a program that writes ``READY`` and sleeps until it is killed.
- ``fork_in_turn``: the same turn; inside the model call it forks a child that sleeps until it
  is killed, then writes ``READY`` (with the child's pid as ``child``) and sleeps until killed.
- ``open_and_close``: opens the conversation, adds a message, closes it (its service stays
  open), writes ``READY`` and waits for ``GO``.
- ``open_and_exit``: opens the conversation, adds a message, and exits without closing
  anything.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from nucleo_core.conversations import ConversationService
from nucleo_core.hub.hub import ToolHub
from nucleo_core.models import Message, ModelCatalog, ThinkerDeclaration
from nucleo_core.models.request import ModelRequest
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.chat import ChatThinker

#: What an exec'd holder becomes: a program that says it is there, then waits to be killed.
WAITER = (
    "import json, os, sys, time\n"
    "ready = sys.argv[1]\n"
    "with open(ready + '.tmp', 'w') as out:\n"
    "    json.dump({'pid': os.getpid()}, out)\n"
    "os.replace(ready + '.tmp', ready)\n"
    "while True:\n"
    "    time.sleep(60)\n"
)


def say_ready(ready: Path, **more: int) -> None:
    """Write ``ready`` whole: the test reads it as soon as it exists."""
    partial = ready.with_name(ready.name + ".tmp")
    partial.write_text(json.dumps({"pid": os.getpid(), **more}))
    os.replace(partial, ready)


def wait_for(go: Path) -> None:
    """Wait until the test creates ``go``."""
    while not go.exists():
        time.sleep(0.02)


def sleep_until_killed() -> None:
    """Wait for the test's ``SIGKILL``."""
    while True:
        time.sleep(60)


def lines(request: ModelRequest) -> list[str]:
    """The request's messages as ``role: text``."""
    return [f"{message.role}: {message.text}" for message in request.messages]


def turn(path: str, mode: str, ready: Path, go: Path | None) -> None:
    """Run one chat turn that stops, in its model call, as ``mode`` says."""

    def answer(request: ModelRequest) -> str:
        del request
        if mode == "turn":
            assert go is not None
            say_ready(ready)
            wait_for(go)
            return "Rome."
        if mode == "exec_in_turn":
            os.execv(sys.executable, [sys.executable, "-c", WAITER, str(ready)])
        if mode == "fork_in_turn":
            child = os.fork()
            if child == 0:
                sleep_until_killed()
            say_ready(ready, child=child)
        else:
            say_ready(ready)
        sleep_until_killed()
        raise AssertionError("unreachable")

    model = ScriptedModel(answer)
    with ConversationService(path) as service:
        chat = ChatThinker(
            ThinkerDeclaration("standard", 1_000),
            hub=ToolHub(),
            catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
            conversations=service,
            client=model,
        )
        said = asyncio.run(chat.send("And of Italy?", conversation_id="chat"))
    print(json.dumps({"answer": said, "requests": [lines(r) for r in model.requests]}))


def main() -> None:
    """Do what ``MODE`` says."""
    path, mode, ready = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    go = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    if mode == "open_and_close":
        assert go is not None
        with ConversationService(path) as service:
            context = service.open("chat", durable=True)
            context.append(Message.user("Kept, then closed."))
            service.close(context)
            say_ready(ready)
            wait_for(go)
    elif mode == "open_and_exit":
        service = ConversationService(path)
        service.open("chat", durable=True).append(Message.user("Kept, never closed."))
        say_ready(ready)
        # No close, no shutdown: the process ends with the conversation open.
    else:
        turn(path, mode, ready, go)


if __name__ == "__main__":
    main()
