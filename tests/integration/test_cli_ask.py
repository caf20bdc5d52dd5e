"""``nucleo ask``: one question, one answer, through the real console entry point and SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from wire_server import Reply, wire_server


def _nucleo(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        if env is None or name not in env:
            environment.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "llama3.2",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
    }


def test_ask_prints_the_answer_of_an_openai_compatible_server(tmp_path: Path) -> None:
    """A pinned openai-compatible entry is asked through the SDK and its answer printed."""
    with wire_server() as server:
        server.replies.append(Reply.json(_completion("Paris.")))
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        result = _nucleo("ask", "Capital of France?", "--model", entry, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Paris.\n"
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    body = request.json()
    assert body["model"] == "llama3.2"
    assert body["messages"][-1] == {"role": "user", "content": "Capital of France?"}


def test_ask_uses_the_grade_configured_in_pyproject(tmp_path: Path) -> None:
    """Without --model the grade's entry from [tool.nucleo.models] answers."""
    with wire_server() as server:
        server.replies.append(Reply.json(_completion("42")))
        (tmp_path / "pyproject.toml").write_text(
            f'[tool.nucleo.models.grades]\nfast = "openai-compatible:{server.url}/v1#tiny"\n',
            encoding="utf-8",
        )
        result = _nucleo("ask", "Answer?", "--grade", "fast", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "42\n"
    assert server.requests[0].json()["model"] == "tiny"


def test_ask_without_a_server_says_it_cannot_reach_it(tmp_path: Path) -> None:
    """A server that is not running is named, with how to start it; exit code 2."""
    with wire_server() as server:
        url = server.url  # the port is closed once the server stops
    result = _nucleo("ask", "hi", "--model", f"openai-compatible:{url}/v1#llama3.2", cwd=tmp_path)
    assert result.returncode == 2
    assert f"cannot reach the server at {url}/v1" in result.stderr
    assert "ollama serve" in result.stderr
    assert "Traceback" not in result.stderr


def test_ask_without_a_key_names_the_variable_to_set(tmp_path: Path) -> None:
    """An anthropic entry with no ANTHROPIC_API_KEY says which variable to set; exit code 2."""
    result = _nucleo("ask", "hi", "--model", "anthropic:claude-sonnet-4-5", cwd=tmp_path)
    assert result.returncode == 2
    assert "ANTHROPIC_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_ask_without_any_model_explains_how_to_configure_one(tmp_path: Path) -> None:
    """No --model and no configured grade: the message says where to configure it."""
    result = _nucleo("ask", "hi", cwd=tmp_path)
    assert result.returncode == 2
    assert "[tool.nucleo.models.grades]" in result.stderr
    assert "--model" in result.stderr or "pin a model" in result.stderr


def test_ask_json_prints_the_model_the_answer_why_it_stopped_and_the_tokens(
    tmp_path: Path,
) -> None:
    """`ask --json` prints one object with stable keys, as every other listing's --json does."""
    with wire_server() as server:
        server.replies.append(Reply.json(_completion("Paris.")))
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        result = _nucleo("ask", "Capital of France?", "--model", entry, "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "model": entry,
        "answer": "Paris.",
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 9,
            "output_tokens": 3,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
        },
        "corrections": 0,
        "escalations": 0,
    }


def test_ask_json_reports_a_failure_as_an_error_line_not_json(tmp_path: Path) -> None:
    """A failure under --json is one `Error:` line on stderr, exit code 2, nothing on stdout."""
    result = _nucleo("ask", "hi", "--model", "mistral:large", "--json", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: Model id 'mistral:large' names no known provider.")


def _cut_off(text: str) -> dict[str, Any]:
    reply = _completion(text)
    reply["choices"][0]["finish_reason"] = "length"
    return reply


def _late() -> Reply:
    """A reply held back until the client gave up on it."""
    return Reply(body=b"{}", headers={"content-type": "application/json"}, delay=0.3)


def test_ask_timeout_and_retries_bound_each_attempt_and_log_each_retry(tmp_path: Path) -> None:
    """--timeout ends each attempt, --retries counts them, and each retry is told on stderr."""
    with wire_server() as server:
        server.replies.extend([_late(), _late()])
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        result = _nucleo(
            "ask", "hi", "--model", entry, "--timeout", "0.1", "--retries", "1", cwd=tmp_path
        )
    assert result.returncode == 2
    assert len(server.requests) == 2
    assert result.stderr.count("retry 1 of 1") == 1
    assert result.stderr.splitlines()[-1].startswith("Error: ")


def test_ask_deadline_ends_a_stalled_exchange(tmp_path: Path) -> None:
    """--deadline ends an exchange the server stalls, with an Error line naming the deadline."""
    with wire_server() as server:
        server.replies.append(
            Reply(body=b"{}", headers={"content-type": "application/json"}, delay=60.0)
        )
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        result = _nucleo("ask", "hi", "--model", entry, "--deadline", "2", cwd=tmp_path)
    assert result.returncode == 2
    assert "deadline of 2 s" in result.stderr
    assert "did not answer in time" in result.stderr


def test_ask_max_output_tokens_caps_the_escalation_of_a_cut_off_answer(tmp_path: Path) -> None:
    """A cut-off answer doubles the budget only up to --max-output-tokens, then is printed."""
    with wire_server() as server:
        server.replies.extend([Reply.json(_cut_off("Once upon")), Reply.json(_cut_off("Once"))])
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        result = _nucleo(
            "ask",
            "Tell a story.",
            "--model",
            entry,
            "--max-tokens",
            "16",
            "--max-output-tokens",
            "32",
            cwd=tmp_path,
        )
    assert result.returncode == 0, result.stderr
    assert [request.json()["max_tokens"] for request in server.requests] == [16, 32]
    assert result.stdout == "Once\n"


def test_ask_reads_timeout_and_retries_from_the_model_entry(tmp_path: Path) -> None:
    """The entry's configured ``timeout`` and ``retries`` bound ``nucleo ask`` with no option."""
    with wire_server() as server:
        server.replies.extend([_late(), _late()])
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        (tmp_path / "nucleo.toml").write_text(
            f'[models.grades]\nstandard = "{entry}"\n'
            f'[models.entries."{entry}"]\ntimeout = 0.1\nretries = 0\n',
            encoding="utf-8",
        )
        result = _nucleo("ask", "hi", cwd=tmp_path)
    assert result.returncode == 2
    assert "timed out" in result.stderr
    assert len(server.requests) == 1


def test_ask_says_what_a_server_refused_in_short(tmp_path: Path) -> None:
    """A 500 validation report reaches the user as the refused field and reason, sent once."""
    report = (
        "[{'type': 'string_type', 'loc': ('messages', 1, 'content'), 'msg': 'Input should be "
        "a valid string', 'input': None}]"
    )
    with wire_server() as server:
        server.replies.append(Reply.json({"error": {"message": report}}, status=500))
        entry = f"openai-compatible:{server.url}/v1#llama3.2"
        result = _nucleo("ask", "hi", "--model", entry, "--retries", "2", cwd=tmp_path)
    assert result.returncode == 2
    assert "messages.1.content: Input should be a valid string" in result.stderr
    assert "'input'" not in result.stderr
    assert len(server.requests) == 1
