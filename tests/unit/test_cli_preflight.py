"""What a command says, at once, when a model's SDK or key is missing; one wording for every SDK.

Each command runs as a process of its own (a small driver script calling the console entry
point), so that what it imported can be read from ``sys.modules`` afterwards. An SDK is made
"not installed" the way Python itself spells it: ``sys.modules[name] = None`` makes every
``import name`` fail, and ``importlib.util.find_spec(name)`` answer ``None``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest

from nucleo_core._extras import EXTRAS, missing_sdk
from nucleo_core.mcp.errors import MISSING_SDK

REPO = Path(__file__).resolve().parents[2]

#: Runs ``nucleo ARGS``, then prints which provider SDKs the process imported, as JSON.
DRIVER = textwrap.dedent(
    """
    import json, sys

    for name in sys.argv[1].split(",") if sys.argv[1] else []:
        sys.modules[name] = None  # as if that SDK were not installed
    from nucleo_core.cli import main

    try:
        main(sys.argv[2:])
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    imported = [name for name in ("anthropic", "openai") if sys.modules.get(name) is not None]
    print(json.dumps({"exit": code, "imported": imported}), file=sys.stderr)
    """
)


def nucleo(tmp_path: Path, *words: str, hidden: str = "", **env: str) -> tuple[dict[str, Any], str]:
    """Run ``nucleo WORDS`` in ``tmp_path`` with no keys set; what it reported, and its Error."""
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "OPENAI_", "NUCLEO_"))
    }
    environment.update({"NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1", "COLUMNS": "100", **env})
    done = subprocess.run(
        [sys.executable, str(driver), hidden, *words],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    *errors, report = done.stderr.splitlines()
    return json.loads(report), "\n".join(errors)


def test_the_extras_named_in_messages_are_the_extras_pyproject_pins() -> None:
    """Each SDK's requirement in the install hint is exactly what its nucleo-core extra pins."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for name, sdk in EXTRAS.items():
        assert extras[name] == [sdk.requirement], name


def test_every_missing_sdk_is_told_in_the_same_words() -> None:
    """The MCP layer's message is the shared one, naming the requirement and the checkout extra."""
    assert missing_sdk("mcp") == MISSING_SDK
    for name, sdk in EXTRAS.items():
        message = missing_sdk(name)
        assert message.startswith(f"{sdk.label} is not installed, so ")
        assert f"python3 -m pip install '{sdk.requirement}'" in message
        assert f"python3 -m pip install '.[{name}]'" in message
        assert "nucleo-core[" not in message  # no index serves nucleo-core


def test_ask_without_a_key_says_so_before_importing_the_sdk(tmp_path: Path) -> None:
    """No ANTHROPIC_API_KEY is reported with the variable to set, `anthropic` left unimported."""
    report, error = nucleo(tmp_path, "ask", "hi", "--model", "anthropic:claude-sonnet-4-5")
    assert report == {"exit": 2, "imported": []}
    assert error.startswith("Error: no API key for anthropic:claude-sonnet-4-5: ")
    assert "set the ANTHROPIC_API_KEY environment variable" in error
    assert "--model" in error
    assert "api_key=" not in error  # a Python hint means nothing to a command-line user
    assert "AnthropicClient" not in error


def test_ask_openai_without_a_key_names_its_variable_before_importing_the_sdk(
    tmp_path: Path,
) -> None:
    """An openai: entry without OPENAI_API_KEY names that variable; `openai` is not imported."""
    report, error = nucleo(tmp_path, "ask", "hi", "--model", "openai:gpt-4.1")
    assert report == {"exit": 2, "imported": []}
    assert "set the OPENAI_API_KEY environment variable" in error


def test_a_local_server_needs_no_key(tmp_path: Path) -> None:
    """An openai-compatible entry is not refused for a missing key: it goes on to the server."""
    report, error = nucleo(
        tmp_path, "ask", "hi", "--model", "openai-compatible:http://127.0.0.1:9/v1#llama3.2"
    )
    assert report["exit"] == 2
    assert "cannot reach the server at http://127.0.0.1:9/v1" in error


@pytest.mark.parametrize(
    ("entry", "extra"),
    [("anthropic:claude-sonnet-4-5", "anthropic"), ("openai:gpt-4.1", "openai")],
)
def test_ask_with_the_sdk_missing_says_how_to_install_it(
    tmp_path: Path, entry: str, extra: str
) -> None:
    """Without the provider's SDK, ask prints the shared install hint, even with a key set."""
    report, error = nucleo(
        tmp_path,
        "ask",
        "hi",
        "--model",
        entry,
        hidden=extra,
        ANTHROPIC_API_KEY="set",
        OPENAI_API_KEY="set",
    )
    assert report == {"exit": 2, "imported": []}
    assert error == f"Error: {missing_sdk(extra)}"


def test_demo_on_a_model_without_a_key_prints_only_the_error(tmp_path: Path) -> None:
    """`nucleo demo --model X` checks the model before its banner: one Error line, nothing else."""
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "OPENAI_", "NUCLEO_"))
    }
    done = subprocess.run(
        [sys.executable, str(driver), "", "demo", "--model", "anthropic:claude-sonnet-4-5"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout == ""
    error, report = done.stderr.splitlines()
    assert json.loads(report) == {"exit": 2, "imported": []}
    assert error.startswith("Error: no API key for anthropic:claude-sonnet-4-5")


@pytest.mark.parametrize(("module", "extra"), [("anthropic", "anthropic"), ("openai", "openai")])
def test_the_adapters_say_a_missing_sdk_in_the_shared_words(module: str, extra: str) -> None:
    """Building a client without its SDK raises ModelNotConfigured with the shared message."""
    client = "AnthropicClient" if module == "anthropic" else "OpenAIChatClient"
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules[{module!r}] = None
        from nucleo_core.errors import ModelNotConfigured
        from nucleo_core.models.{module} import {client}
        try:
            {client}(api_key="set")
        except ModelNotConfigured as exc:
            print(exc)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == missing_sdk(extra) + "\n"
