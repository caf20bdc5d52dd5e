"""One process of a durable chat, for the SIGKILL tests: ``python _chat_process.py DB MODE READY``.

It runs one `ChatThinker` turn on conversation ``chat`` of the SQLite file ``DB``, on a scripted
model, and prints one JSON line: the answer, the streamed events, and the lines of every
request the model received. ``MODE`` picks the turn and where, if anywhere, the process stops to
be killed; it writes the file ``READY`` when it got there, then sleeps until killed:

- ``first``: "What is the capital of France?", answered "Paris." (exits normally).
- ``after_answer``: "And of Italy?", answered "Rome."; then stops, between turns.
- ``in_model_call``: "And of Italy?"; stops inside the first model call.
- ``in_tool``: "And of Italy?"; the model calls ``slow_lookup``, which stops inside the tool.
- ``after_tool``: "And of Italy?"; ``lookup`` runs, then stops inside the second model call.
- ``resume``: "And of Spain?", answered "Madrid." (exits normally).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from nucleo_core import tool
from nucleo_core.conversations import ConversationService
from nucleo_core.hub.hub import ToolHub
from nucleo_core.models import ModelCatalog, ThinkerDeclaration
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.thinker import ContentEvent

QUESTIONS = {
    "first": "What is the capital of France?",
    "resume": "And of Spain?",
}
ANSWERS = {"first": "Paris.", "after_answer": "Rome.", "resume": "Madrid."}

_ready = Path(sys.argv[3]) if len(sys.argv) > 3 else None


def stop_here() -> None:
    """Tell the test this process got where it should be killed, and wait for the kill."""
    assert _ready is not None
    _ready.write_text("ready")
    while True:
        time.sleep(60)


@tool(read_only=True, risk="low")
def lookup(country: str) -> str:
    """Look a country's capital up."""
    return f"capital of {country}: on file"


@tool(read_only=True, risk="low")
def slow_lookup(country: str) -> str:
    """Look a country's capital up, slowly."""
    stop_here()
    return country


class Chat(ChatThinker):
    """The chat of these tests."""

    @classmethod
    def declare_default_tools(cls) -> tuple[object, ...]:
        return (lookup, slow_lookup)


def script(mode: str) -> Any:
    """The scripted model's answer function for ``mode``."""

    def answer(request: ModelRequest) -> ModelResponse | str:
        number = len(model.requests)
        if mode == "in_model_call":
            stop_here()
        if mode == "in_tool":
            return tool_use_response(("slow_lookup", {"country": "Italy"}))
        if mode == "after_tool":
            if number == 1:
                return tool_use_response(("lookup", {"country": "Italy"}))
            stop_here()
        return ANSWERS[mode]

    model = ScriptedModel(answer)
    return model


def lines(request: ModelRequest) -> list[str]:
    """The request's messages as ``role: text`` (tool blocks by kind)."""
    out = []
    for message in request.messages:
        text = message.text
        if message.tool_uses:
            text = f"{text}<use>"
        elif not text:
            text = "<result>"
        out.append(f"{message.role}: {text}")
    return out


def main() -> None:
    """Run the turn of ``MODE`` and print what happened."""
    path, mode = sys.argv[1], sys.argv[2]
    model = script(mode)
    events: list[ContentEvent] = []
    with ConversationService(path) as service:
        thinker = Chat(
            ThinkerDeclaration("standard", 1_000),
            hub=ToolHub(),
            catalog=ModelCatalog(grades={"standard": "anthropic:scripted"}),
            conversations=service,
            client=model,
        )
        thinker.listeners.append(events.append)
        answer = asyncio.run(
            thinker.send(QUESTIONS.get(mode, "And of Italy?"), conversation_id="chat")
        )
        print(
            json.dumps(
                {
                    "answer": answer,
                    "events": [[event.text, event.done] for event in events],
                    "requests": [lines(request) for request in model.requests],
                }
            ),
            flush=True,
        )
        if mode == "after_answer":
            stop_here()  # between two turns, the conversation still open


if __name__ == "__main__":
    main()
