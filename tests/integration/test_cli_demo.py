"""``nucleo demo``, ``nucleo run`` and ``nucleo chat`` as processes, from folders of their own.

The README's first Quickstart command is checked to be what this file runs: a fresh virtual
environment with nucleo-core installed from a wheel of this checkout, then ``nucleo demo``; the
demo's skill must come from the installed wheel.
The other commands run with this environment's interpreter (``python -m nucleo_core.cli``), from
a temporary working folder with no model configured, against a real OpenAI-compatible HTTP
server on 127.0.0.1 when they need a model (the real SDK path, no network).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _installed_venv import Venv, build_wheels
from docs_pages import REPO
from wire_server import Reply, wire_server

from nucleo_core.demo import STEPS

# What the command prints is wrapped to this width, as in the docs' console blocks.
DISPLAY = {"COLUMNS": "100", "NO_COLOR": "1"}


def environment(**extra: str) -> dict[str, str]:
    """This process's environment without keys or nucleo switches, plus ``extra``."""
    kept = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("NUCLEO_", "ANTHROPIC_", "OPENAI_"))
    }
    return {**kept, **DISPLAY, **extra}


def nucleo(
    *words: str, cwd: Path, stdin: str | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    """``python -m nucleo_core.cli WORDS`` with this interpreter, in ``cwd``."""
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *words],
        cwd=cwd,
        env=environment(**extra),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def step_labels(output: str) -> list[str]:
    return re.findall(r"^ *(Step \d - .+)$", output, re.MULTILINE)


ALL_STEPS = [f"Step {number} - {title}" for number, title in STEPS.items()]


def completion(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    """An OpenAI chat completion holding ``message``."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "llama3.2",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
    }


def text_reply(text: str) -> Reply:
    return Reply.json(completion({"role": "assistant", "content": text}, "stop"))


def tool_call_reply(name: str, arguments: dict[str, Any]) -> Reply:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return Reply.json(completion(message, "tool_calls"))


# -- the README's first command ------------------------------------------------------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with nucleo-core installed from this checkout; its bin.

    nucleo-core is installed from a wheel built from the checkout, as ``pip install .`` does;
    its dependencies are the suite's own, linked (tests reach no package index; `.ci/run` runs
    the command as written, with the network its install step has).
    """
    wheels = build_wheels([REPO], tmp_path_factory.mktemp("quickstart-wheel"))
    root = tmp_path_factory.mktemp("quickstart") / "venv"
    return Venv.with_wheels(root, list(wheels.values())).python.parent


def test_the_readme_s_first_quickstart_command_ends_in_nucleo_demo() -> None:
    """The first command of the README's Quickstart installs nucleo and runs the demo."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quickstart = readme[readme.index("## Quickstart") :]
    first = re.search(r"```bash\n(.+?)\n```", quickstart, re.DOTALL)
    assert first is not None
    assert first.group(1) == "python3 -m pip install . && nucleo demo"


def test_the_installed_demo_runs_every_step_from_an_empty_folder(
    installed: Path, tmp_path: Path
) -> None:
    """`nucleo demo` of a fresh install, in a folder with no configuration, shows every step."""
    done = subprocess.run(
        [installed / "nucleo", "demo"],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert step_labels(done.stdout) == ALL_STEPS
    assert done.stdout.endswith("All eight steps were shown.\n")


# -- python -m nucleo_core.cli -------------------------------------------------------------------


def test_python_m_nucleo_core_cli_demo_runs_with_no_configuration(tmp_path: Path) -> None:
    """From a folder with no model configured, the demo runs on the script and exits 0."""
    done = nucleo("demo", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("nucleo demo, on the scripted model")
    assert step_labels(done.stdout) == ALL_STEPS


def test_the_demo_approves_one_confirm_level_call_and_leaves_one_pending(tmp_path: Path) -> None:
    """The scripted approver's call runs; the other pauses the run, listed with how to decide."""
    done = nucleo("demo", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    told = " ".join(done.stdout.split())  # unwrapped
    approved = told[told.index(f"Step 6 - {STEPS[6]}") : told.index(f"Step 7 - {STEPS[7]}")]
    assert 'send_invitations(to="the team") is risk high' in approved
    assert "the scripted approver approves invitations to the team, and the call runs" in approved
    assert "send_invitations returns: Invitations sent to the team." in approved
    assert 'send_invitations(to="the families") needs an approval too' in approved
    pending = told[told.index(f"Step 7 - {STEPS[7]}") : told.index(f"Step 8 - {STEPS[8]}")]
    assert "the run pauses: 1 call(s) wait for an approval" in pending
    found = re.search(
        r"approval ([0-9a-f]{32}): send_invitations \(native:send_invitations\), risk high, "
        r'arguments \{"message": "You are invited: [^"]+", "to": "the families"\}',
        pending,
    )
    assert found is not None, pending
    assert "`nucleo approvals` lists it, `nucleo approvals approve ID`" in pending
    assert "`nucleo resume picnic-invitations` continues the run" in pending
    assert "Invitations sent to the families" not in told  # it never ran
    assert not any(tmp_path.iterdir())  # the demo keeps nothing on disk


def test_demo_on_a_server_that_is_not_running_exits_2_naming_it(tmp_path: Path) -> None:
    """A --model whose server is down gives one Error line naming it, exit code 2."""
    with wire_server() as server:
        url = server.url  # the port is closed once the server stops
    done = nucleo("demo", "--model", f"openai-compatible:{url}/v1#llama3.2", cwd=tmp_path)

    assert done.returncode == 2
    assert f"Error: cannot reach the server at {url}/v1" in done.stderr
    assert "Traceback" not in done.stderr


def test_demo_on_a_real_model_server_shows_the_steps_its_model_takes(tmp_path: Path) -> None:
    """Through the real SDK, a model that asks for tools then answers shows steps 1, 2 and 8."""
    wanted = {"tools": ["forecast", "sunset", "send_invitations"]}
    with wire_server() as server:
        server.replies.extend(
            [
                tool_call_reply("request_tools", wanted),
                text_reply("Picnic in Lisbon tomorrow, 17:30-19:30; no invitations sent."),
                text_reply("The plan holds up."),
                text_reply("I will not send any invitation."),
            ]
        )
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        done = nucleo("demo", "--model", entry, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"nucleo demo, on {entry}.")
    assert step_labels(done.stdout) == [ALL_STEPS[0], ALL_STEPS[1], ALL_STEPS[7]]
    assert done.stdout.endswith("Not shown: 3, 4, 5, 6, 7 (the model took another way).\n")
    offered = {tool["function"]["name"] for tool in server.requests[0].json()["tools"]}
    assert {"request_tools", "request_skill"} <= offered


def test_demo_on_a_model_that_never_answers_tells_the_rest_and_what_was_not_shown(
    tmp_path: Path,
) -> None:
    """A planner stopped by its turn limit is told; the reviewer and summary follow, exit 0."""
    from nucleo_core.demo import PicnicPlanner

    again = tool_call_reply("request_tools", {"tools": ["forecast"]})
    with wire_server() as server:
        server.replies.extend([again] * PicnicPlanner.max_iterations)
        server.replies.append(text_reply("There is no plan to review."))
        server.replies.append(text_reply("There is no plan to send invitations for."))
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        done = nucleo("demo", "--model", entry, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert f"reached {PicnicPlanner.max_iterations} turns without a final answer" in done.stdout
    assert "PlanReviewer, a SingleObjectiveThinker" in done.stdout
    assert "PicnicHost, a SingleObjectiveThinker" in done.stdout
    assert ALL_STEPS[7] in step_labels(done.stdout)
    assert "Stopped without an answer: PicnicPlanner" in done.stdout
    assert "Not shown: " in done.stdout.splitlines()[-1]
    assert len(server.requests) == PicnicPlanner.max_iterations + 2


THINKERS = '''\
"""A thinker and a chat of a user's own."""

from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


class Greeter(SingleObjectiveThinker[str, str]):
    """Greets whoever it is told about."""


class Chatter(ChatThinker):
    """Chats."""
'''


def test_run_runs_a_thinker_of_a_module_in_the_working_folder(tmp_path: Path) -> None:
    """`nucleo run module:Class INPUT` imports the class from the folder and prints its answer."""
    (tmp_path / "desk.py").write_text(THINKERS, encoding="utf-8")
    with wire_server() as server:
        server.replies.append(text_reply("Hello, Ada."))
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        done = nucleo("run", "desk:Greeter", "Greet Ada.", "--model", entry, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello, Ada.\n"
    body = server.requests[0].json()
    assert body["model"] == "llama3.2"
    assert body["messages"][-1] == {"role": "user", "content": "Greet Ada."}


def test_chat_reads_messages_from_stdin_and_keeps_the_conversation(tmp_path: Path) -> None:
    """`nucleo chat` sends each stdin line and stores the conversation where it is told to."""
    (tmp_path / "desk.py").write_text(THINKERS, encoding="utf-8")
    store = tmp_path / "conversations.sqlite3"
    with wire_server() as server:
        server.replies.extend([text_reply("Hi!"), text_reply("Bye!")])
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        done = nucleo(
            "chat",
            "desk:Chatter",
            "--model",
            entry,
            cwd=tmp_path,
            stdin="hello\ngoodbye\n",
            NUCLEO_CONVERSATIONS=str(store),
        )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hi!\nBye!\n"
    assert re.search(r"^Conversation [0-9a-f]{32} \(new\)", done.stderr, re.MULTILINE)
    assert store.is_file()
    last = server.requests[-1].json()["messages"]
    assert [message["content"] for message in last] == ["hello", "Hi!", "goodbye"]
