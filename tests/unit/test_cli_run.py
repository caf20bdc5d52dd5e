"""``nucleo run``, ``nucleo chat`` and ``nucleo demo``, through click's test runner.

A scripted model answers (``override_client``), so no key and no network is needed: the thinker
classes are the ones a user writes, in a module of a temporary folder, built and run exactly as
the commands build and run them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from nucleo_core.cli.app import nucleo
from nucleo_core.cli.sources import FILE_MODULE_PREFIX
from nucleo_core.demo import STEPS, play_the_model
from nucleo_core.errors import ModelConnectionError, ReadOnlyViolation
from nucleo_core.models import AnswerSize, ModelRequest
from nucleo_core.testing import Scripted, ScriptedModel, override_client, tool_use_response

PIN = "anthropic:pinned-model"

DESK = '''\
"""Thinkers of every kind the commands meet."""

from pydantic import BaseModel

from nucleo_core import AnswerSize, ThinkerBase, ThinkerDeclaration
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.toolless import ToollessThinker


class Trip(BaseModel):
    city: str
    days: int = 2


class Advice(BaseModel):
    go: bool
    reason: str


class Greeter(SingleObjectiveThinker[str, str]):
    """Declares no seat: the standard grade, a medium answer."""


class Advisor(SingleObjectiveThinker[Trip, Advice]):
    """A typed thinker with a seat of its own."""

    declaration = ThinkerDeclaration("fast", AnswerSize.SHORT)


class Oneshot(ToollessThinker[str, str]):
    """Streams nothing: its answer is printed when the run ends."""


class Chatter(ChatThinker):
    """A durable chat."""


class Misdeclared(SingleObjectiveThinker[str, str]):
    declaration = "fast"


class Needy(SingleObjectiveThinker[str, str]):
    def __init__(self, declaration, *, budget, **options):
        super().__init__(declaration, **options)


class Palette(ThinkerBase):
    """Declares tools, runs no model."""
'''


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working folder holding desk.py, with no model configured; imports are undone after."""
    (tmp_path / "desk.py").write_text(DESK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NUCLEO_CONVERSATIONS", str(tmp_path / "conversations.sqlite3"))
    monkeypatch.setenv("NUCLEO_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    for name in [name for name in sys.modules if name.startswith(FILE_MODULE_PREFIX)]:
        del sys.modules[name]


def invoke(*words: str, model: ScriptedModel | None = None, stdin: str | None = None) -> Result:
    """Run ``nucleo WORDS`` in this process, answered by ``model`` when one is given."""
    runner = CliRunner()
    environment = {"COLUMNS": "100", "NO_COLOR": "1"}
    if model is None:
        return runner.invoke(nucleo, list(words), input=stdin, env=environment)
    with override_client(model):
        return runner.invoke(nucleo, list(words), input=stdin, env=environment)


def configure(folder: Path, **grades: str) -> None:
    """Write a nucleo.toml mapping grades to entries in ``folder``."""
    lines = "".join(f'{grade} = "{entry}"\n' for grade, entry in grades.items())
    (folder / "nucleo.toml").write_text(f"[models.grades]\n{lines}", encoding="utf-8")


# -- nucleo run ---------------------------------------------------------------------------------


def test_run_prints_the_answer_the_thinker_streams(desk: Path) -> None:
    """A string thinker is given INPUT as its objective, and its answer is printed."""
    model = ScriptedModel(["Hello, Ada."])
    result = invoke("run", "desk.py:Greeter", "Hi, I am Ada", "--model", PIN, model=model)

    assert result.exit_code == 0, result.output
    assert result.stdout == "Hello, Ada.\n"
    (request,) = model.requests
    assert request.messages[0].text == "Hi, I am Ada"
    assert request.model == "pinned-model"


def test_run_reads_a_typed_input_as_json_and_prints_the_typed_answer_as_json(desk: Path) -> None:
    """INPUT is parsed as the thinker's pydantic input type; a typed answer prints as JSON."""
    model = ScriptedModel(['{"go": true, "reason": "Sunny."}'])
    result = invoke("run", "desk:Advisor", '{"city": "Lisbon"}', "--model", PIN, model=model)

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"go": True, "reason": "Sunny."}
    assert json.loads(model.requests[0].messages[0].text) == {"city": "Lisbon", "days": 2}


def test_run_seats_the_thinker_on_the_grade_its_declaration_attribute_names(desk: Path) -> None:
    """The class's declaration attribute picks the grade and the answer budget."""
    configure(desk, fast="anthropic:fast-model", standard="anthropic:standard-model")
    model = ScriptedModel(['{"go": false, "reason": "Rain."}'])
    result = invoke("run", "desk:Advisor", '{"city": "Porto"}', model=model)

    assert result.exit_code == 0, result.output
    assert model.requests[0].model == "fast-model"
    assert model.requests[0].max_tokens == AnswerSize.SHORT.tokens


def test_run_seats_a_thinker_without_a_declaration_on_the_standard_grade(desk: Path) -> None:
    """With no declaration attribute, the thinker is seated on the standard grade, medium size."""
    configure(desk, fast="anthropic:fast-model", standard="anthropic:standard-model")
    model = ScriptedModel(["Hi."])
    result = invoke("run", "desk:Greeter", "Hello", model=model)

    assert result.exit_code == 0, result.output
    assert model.requests[0].model == "standard-model"
    assert model.requests[0].max_tokens == AnswerSize.MEDIUM.tokens


def test_run_prints_the_answer_of_a_thinker_that_streams_nothing(desk: Path) -> None:
    """A ToollessThinker emits no content event; its answer is printed once the run ends."""
    result = invoke("run", "desk:Oneshot", "Hello", "--model", PIN, model=ScriptedModel(["Hi."]))

    assert result.exit_code == 0, result.output
    assert result.stdout == "Hi.\n"


def test_run_json_prints_the_answer_the_model_and_the_transcript(desk: Path) -> None:
    """--json prints one object, nothing streamed: thinker, model, answer and transcript."""
    model = ScriptedModel(['{"go": true, "reason": "Sunny."}'])
    result = invoke(
        "run", "desk:Advisor", '{"city": "Lisbon"}', "--model", PIN, "--json", model=model
    )

    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert list(printed) == ["thinker", "model", "answer", "transcript"]
    assert printed["thinker"] == "desk.Advisor"
    assert printed["model"] == PIN
    assert printed["answer"] == {"go": True, "reason": "Sunny."}
    assert printed["transcript"].startswith('[user] {"city":"Lisbon","days":2}')


def test_run_lists_what_is_wrong_with_an_input_that_does_not_fit(desk: Path) -> None:
    """An input that does not fit the input type is refused before any model is asked."""
    model = ScriptedModel([])
    result = invoke("run", "desk:Advisor", '{"town": "Lisbon"}', "--model", PIN, model=model)

    assert result.exit_code == 2
    assert "Error: the input is read as JSON of the thinker's input type Trip" in result.output
    assert "  - city: Field required" in result.output
    assert model.requests == []


def test_run_without_a_model_says_how_to_configure_one(desk: Path) -> None:
    """No --model and no configured grade: one Error line, exit code 2, no traceback."""
    result = invoke("run", "desk:Greeter", "Hello")

    assert result.exit_code == 2
    assert result.output.startswith("Error: No model is assigned to grade 'standard'.")
    assert "Traceback" not in result.output


def test_run_refuses_a_thinker_base_that_has_no_model_loop(desk: Path) -> None:
    """A ThinkerBase that is not a Thinker can be inspected with catalog, not run."""
    result = invoke("run", "desk:Palette", "Hello", "--model", PIN)

    assert result.exit_code == 2
    assert "'desk:Palette' cannot be run: it is a ThinkerBase but not a Thinker" in result.output


def test_run_sends_a_chat_thinker_to_nucleo_chat(desk: Path) -> None:
    """A ChatThinker keeps every turn, so it is chatted with, not run once."""
    model = ScriptedModel([])
    result = invoke("run", "desk:Chatter", "Hello", "--model", PIN, model=model)

    assert result.exit_code == 2
    assert "'desk:Chatter' is a ChatThinker: chat with it with `nucleo chat`" in result.output
    assert model.requests == []


def test_run_refuses_a_declaration_attribute_that_is_not_a_thinker_declaration(
    desk: Path,
) -> None:
    """A declaration attribute of another type is named, with how to write it."""
    result = invoke("run", "desk:Misdeclared", "Hello", "--model", PIN)

    assert result.exit_code == 2
    assert "Misdeclared.declaration is str, not a ThinkerDeclaration" in result.output


def test_run_names_the_parameter_a_constructor_misses(desk: Path) -> None:
    """A thinker whose constructor needs more than the command gives is refused, saying what."""
    # A model is supplied, so that no key is asked for: the constructor is what is wrong.
    result = invoke("run", "desk:Needy", "Hello", "--model", PIN, model=ScriptedModel([]))

    assert result.exit_code == 2
    assert "cannot build 'desk:Needy'" in result.output
    assert "budget" in result.output


def test_run_says_when_the_model_server_cannot_be_reached(desk: Path) -> None:
    """A connection failure names the server and how to start it, on one Error line."""
    pin = "openai-compatible:http://127.0.0.1:9/v1#llama3.2"
    down = ModelConnectionError("connection refused", provider="openai-compatible")
    result = invoke("run", "desk:Greeter", "Hello", "--model", pin, model=ScriptedModel([down]))

    assert result.exit_code == 2
    assert "Error: cannot reach the server at http://127.0.0.1:9/v1" in result.output
    assert "ollama serve" in result.output


def test_run_reports_a_thinker_that_never_answers(desk: Path) -> None:
    """A model that only ever calls tools ends the run at the turn cap, on one Error line."""
    model = ScriptedModel(lambda request: tool_use_response(("nowhere", {})))
    result = invoke("run", "desk:Greeter", "Hello", "--model", PIN, model=model)

    assert result.exit_code == 2
    assert "Error: desk:Greeter: Greeter reached 12 turns without a final answer" in result.output


# -- nucleo chat --------------------------------------------------------------------------------


def conversation_id(result: Result) -> str:
    """The id the chat printed when it started."""
    found = re.search(r"^Conversation (\S+) \(", result.stderr, re.MULTILINE)
    assert found is not None, result.stderr
    return found.group(1)


def test_chat_sends_each_line_and_prints_each_answer(desk: Path) -> None:
    """Each non-blank line is one message; each answer is streamed to stdout in order."""
    model = ScriptedModel(["Hello! What is the weather like where you are?", "Fine, thanks."])
    result = invoke("chat", "desk:Chatter", "--model", PIN, model=model, stdin="hi\n\n  \nhow?\n")

    assert result.exit_code == 0, result.output
    assert result.stdout == "Hello! What is the weather like where you are?\nFine, thanks.\n"
    assert [request.messages[-1].text for request in model.requests] == ["hi", "how?"]


def test_chat_prints_the_conversation_id_and_how_to_resume_it_on_stderr(desk: Path) -> None:
    """The id is printed when the chat starts, and the command to resume it when it ends."""
    result = invoke("chat", "desk:Chatter", "--model", PIN, model=ScriptedModel([]), stdin="")

    assert result.exit_code == 0, result.output
    identifier = conversation_id(result)
    assert f"Conversation {identifier} (new), with {PIN}." in result.stderr
    assert f"nucleo chat desk:Chatter --conversation {identifier}" in result.stderr
    assert result.stdout == ""


def test_chat_ends_at_exit_and_sends_nothing_after_it(desk: Path) -> None:
    """/exit ends the chat: the lines after it are never sent."""
    model = ScriptedModel(["One.", "Two."])
    result = invoke("chat", "desk:Chatter", "--model", PIN, model=model, stdin="a\n/exit\nb\n")

    assert result.exit_code == 0, result.output
    assert result.stdout == "One.\n"
    assert len(model.requests) == 1


def test_chat_resumes_a_conversation_by_its_id(desk: Path) -> None:
    """--conversation ID continues the stored conversation: the model reads the earlier turns."""
    first = invoke(
        "chat", "desk:Chatter", "--model", PIN, model=ScriptedModel(["Hi Ada."]), stdin="I am Ada\n"
    )
    identifier = conversation_id(first)
    model = ScriptedModel(["You are Ada."])
    second = invoke(
        "chat",
        "desk:Chatter",
        "--model",
        PIN,
        "--conversation",
        identifier,
        model=model,
        stdin="Who am I?\n",
    )

    assert second.exit_code == 0, second.output
    assert f"Conversation {identifier} (resumed)" in second.stderr
    texts = [message.text for message in model.requests[0].messages]
    assert texts == ["I am Ada", "Hi Ada.", "Who am I?"]


def test_chat_refuses_a_thinker_that_is_not_a_chat_thinker(desk: Path) -> None:
    """Only a ChatThinker keeps a durable conversation; another thinker is refused."""
    result = invoke("chat", "desk:Greeter", "--model", PIN)

    assert result.exit_code == 2
    assert "'desk:Greeter' is not a chat thinker" in result.output


def test_chat_keeps_the_conversation_when_the_model_fails(desk: Path) -> None:
    """A failed turn ends the chat with one Error line that says how to resume it."""
    down = ModelConnectionError("refused", provider="anthropic")
    result = invoke(
        "chat", "desk:Chatter", "--model", PIN, model=ScriptedModel([down]), stdin="hi\n"
    )

    assert result.exit_code == 2
    identifier = conversation_id(result)
    assert "Error: cannot reach anthropic" in result.stderr
    assert f"The conversation is kept: nucleo chat desk:Chatter --conversation {identifier}" in (
        result.stderr
    )


# -- nucleo demo --------------------------------------------------------------------------------


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder: no model is configured there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def step_lines(output: str) -> list[str]:
    """The step labels the demo printed, in order."""
    return re.findall(r"^ *(Step \d - .+)$", output, re.MULTILINE)


def test_demo_tells_each_of_its_steps_in_order_on_the_scripted_model(empty: Path) -> None:
    """With no model configured a script plays the model, and every step is told, in order."""
    result = invoke("demo")

    assert result.exit_code == 0, result.output
    assert result.output.startswith("nucleo demo, on the scripted model: no model is configured")
    assert step_lines(result.output) == [f"Step {n} - {title}" for n, title in STEPS.items()]
    assert result.output.endswith("All eight steps were shown.\n")


def test_demo_says_what_was_admitted_refused_and_pulled_in(empty: Path) -> None:
    """The admitted tools, the refusing rule with its reason and the skill are named."""
    output = " ".join(invoke("demo").output.split())  # unwrapped

    assert "request_tools admits forecast, sunset" in output
    assert (
        "request_tools refuses send_invitations: the rule 'a person approves high-risk tools' "
        "says: send_invitations is declared high risk, so a person must approve it" in output
    )
    assert "request_skill attaches picnic-planning" in output
    assert "forecast and sunset were called in one turn and ran side by side" in output
    assert f"send_invitations is refused at the call: {ReadOnlyViolation('send_invitations')}" in (
        output
    )


def test_demo_ends_with_each_thinker_s_transcript(empty: Path) -> None:
    """The last step prints every transcript: every message, tool use and result."""
    output = invoke("demo").output
    transcripts = output[output.index("Step 8 - the transcript") :]

    assert "\n  PicnicPlanner\n    [user] Plan a picnic in Lisbon" in transcripts
    assert "\n  PlanReviewer\n    [user] Review this picnic plan" in transcripts
    assert "tool_use toolu_demo_5_1 forecast" in transcripts
    assert "(error): Tool 'send_invitations' is not declared read-only" in transcripts


def test_demo_json_prints_the_steps_the_events_the_answers_and_the_transcripts(
    empty: Path,
) -> None:
    """--json prints one object for machines, with every step shown."""
    result = invoke("demo", "--json")

    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    keys = ["model", "scripted", "steps", "events", "answers", "stopped", "transcripts"]
    assert list(printed) == keys
    assert (printed["model"], printed["scripted"]) == ("scripted", True)
    assert printed["stopped"] == {}  # the script answers: no thinker stopped short
    assert printed["steps"] == [1, 2, 3, 4, 5, 6, 7, 8]
    shown = {event["step"]: event["title"] for event in printed["events"] if event["step"]}
    assert shown == dict(STEPS)
    assert set(printed["answers"]) == {"PicnicPlanner", "PlanReviewer"}
    assert "17:30-19:30" in printed["answers"]["PicnicPlanner"]
    assert set(printed["transcripts"]) == {"PicnicPlanner", "PlanReviewer", "PicnicHost"}


def test_demo_tells_the_same_story_every_run(empty: Path) -> None:
    """Two runs in one process print the same bytes but the pending approval's fresh id."""
    assert _fresh_ids_masked(invoke("demo").output) == _fresh_ids_masked(invoke("demo").output)


def _fresh_ids_masked(told: str) -> str:
    """The demo's story with the pending approval's id (fresh each run) masked."""
    return re.sub(r"approval [0-9a-f]{32}:", "approval ID:", told)


def test_demo_runs_on_the_model_configured_for_the_standard_grade(empty: Path) -> None:
    """With a standard grade configured the thinkers are seated on it, not on the script."""
    configure(empty, standard="anthropic:configured-model")
    model = ScriptedModel(play_the_model)
    result = invoke("demo", model=model)

    assert result.exit_code == 0, result.output
    assert result.output.startswith("nucleo demo, on anthropic:configured-model.\n")
    assert {request.model for request in model.requests} == {"configured-model"}
    assert result.output.endswith("All eight steps were shown.\n")


def answering(text: str) -> Callable[[ModelRequest], Scripted]:
    """A model that answers every request with ``text`` and never calls a tool."""
    return lambda request: text


def test_demo_on_a_model_that_takes_another_way_says_which_steps_it_did_not_show(
    empty: Path,
) -> None:
    """A real model need not follow the story: the steps it skipped are named at the end."""
    model = ScriptedModel(answering("A picnic in Lisbon, 17:00-19:00."))
    result = invoke("demo", "--model", PIN, model=model)

    assert result.exit_code == 0, result.output
    assert step_lines(result.output) == ["Step 8 - the transcript"]
    assert result.output.endswith(
        "Steps shown: 8. Not shown: 1, 2, 3, 4, 5, 6, 7 (the model took another way).\n"
    )


def test_demo_with_a_malformed_model_prints_one_error_line(empty: Path) -> None:
    """A --model that names no provider is refused before anything runs."""
    result = invoke("demo", "--model", "mistral:large")

    assert result.exit_code == 2
    assert result.output.startswith("Error: Model id 'mistral:large' names no known provider.")
    assert result.output.count("\n") == 1


def test_demo_says_when_the_model_fails(empty: Path) -> None:
    """A model that cannot be reached ends the demo with one Error line, exit code 2."""
    pin = "openai-compatible:http://127.0.0.1:9/v1#llama3.2"
    down = ModelConnectionError("refused", provider="openai-compatible")
    result = invoke("demo", "--model", pin, model=ScriptedModel([down]))

    assert result.exit_code == 2
    assert "Error: cannot reach the server at http://127.0.0.1:9/v1" in result.output


def test_the_command_line_imports_the_demo_only_when_it_runs() -> None:
    """Importing nucleo_core, or the command line, leaves the demo package unimported."""
    probe = "import sys, nucleo_core.cli.app; print('nucleo_core.demo' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "False\n"


def test_every_event_kind_of_the_demo_is_printed_with_an_indent(empty: Path) -> None:
    """No event of the scripted story is left out of the printed narration."""
    printed = json.loads(invoke("demo", "--json").stdout)
    output = _fresh_ids_masked(" ".join(invoke("demo").output.split()))
    told: list[Any] = [event for event in printed["events"] if event["step"] != max(STEPS)]
    for event in told:
        assert _fresh_ids_masked(" ".join(event["text"].split())) in output


BREAKER = '''\
"""A thinker whose one tool fails with a secret in its message."""

from nucleo_core import tool
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


@tool(read_only=True, risk="low")
def explode(code: str) -> str:
    """Fail, saying a secret."""
    raise RuntimeError(f"the database password is hunter2 ({code})")


class Breaker(SingleObjectiveThinker[str, str]):
    @classmethod
    def declare_default_tools(cls):
        return [explode]
'''


def test_a_failing_tool_is_one_warning_line_on_stderr_never_a_traceback(desk: Path) -> None:
    """The executor's log of a failed call reaches the terminal as one line, without details."""
    (desk / "breaker.py").write_text(BREAKER, encoding="utf-8")
    model = ScriptedModel([tool_use_response(("explode", {"code": "7"})), "It failed."])
    result = invoke("run", "breaker:Breaker", "Go", "--model", PIN, model=model)

    assert result.exit_code == 0, result.output
    assert result.stdout == "It failed.\n"
    (line,) = [said for said in result.stderr.splitlines() if "explode" in said]
    assert line.startswith("Warning: tool 'explode' (call ")
    assert "failed: RuntimeError" in line
    assert "nucleo audit --json" in line
    assert "Traceback" not in result.stderr
    assert "hunter2" not in result.output


def test_a_run_s_calls_are_on_the_project_s_audit_record(desk: Path) -> None:
    """`nucleo run` writes the project's record: the failed call, its developer details there."""
    from nucleo_core.guard.audit import AuditLog

    (desk / "breaker.py").write_text(BREAKER, encoding="utf-8")
    model = ScriptedModel([tool_use_response(("explode", {"code": "7"})), "It failed."])
    result = invoke("run", "breaker:Breaker", "Go", "--model", PIN, model=model)
    assert result.exit_code == 0, result.output

    with AuditLog.open(start=desk) as log:
        records = [r for r in log.read() if r.tool == "explode"]
        assert log.verify().ok
    kinds = [str(r.kind) for r in records]
    assert kinds[0].endswith("call_start")
    assert kinds[-1].endswith("call_finish")
    (finished,) = [r for r in records if str(r.kind).endswith("call_finish")]
    assert finished.outcome == "tool_error"
    assert finished.developer is not None
    assert "hunter2" in finished.developer.message
    assert "Traceback" in (finished.developer.traceback or "")
    shown = invoke("audit", "--json")
    assert shown.exit_code == 0, shown.output
    assert "explode" in shown.stdout
