"""``nucleo run`` and ``nucleo chat`` with the MCP servers configured for the project.

The project folder's ``nucleo.toml`` configures the SDK-written test server (a real process);
a scripted model (``override_client``) calls its ``echo`` tool. The thinker's palette holds the
server's tools, the call reaches the server, and no server process outlives the command.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _mcp_harness import MAIN, children, no_child_left_behind  # noqa: F401  # a fixture
from click.testing import CliRunner, Result

from nucleo_core.cli.app import nucleo
from nucleo_core.cli.sources import FILE_MODULE_PREFIX
from nucleo_core.models import ModelRequest, ToolResultBlock
from nucleo_core.testing import ScriptedModel, override_client, tool_use_response

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

PIN = "anthropic:pinned-model"
DESK = '''\
from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


class Helper(SingleObjectiveThinker[str, str]):
    """Sees every system-wide tool: the MCP server's among them."""


class Chatter(ChatThinker):
    """A durable chat."""
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project folder with a thinker module and the test MCP server configured."""
    (tmp_path / "mcp_desk.py").write_text(DESK, encoding="utf-8")
    (tmp_path / "nucleo.toml").write_text(
        "[mcp.servers.main]\n"
        f"command = {str(sys.executable)!r}\n"
        f"args = [{str(MAIN)!r}, 'stdio', 'main']\n"
        'risk = "low"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NUCLEO_CONVERSATIONS", str(tmp_path / "conversations.sqlite3"))
    monkeypatch.setenv("NUCLEO_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    for name in [name for name in sys.modules if name.startswith(FILE_MODULE_PREFIX)]:
        del sys.modules[name]
    sys.modules.pop("mcp_desk", None)  # the next test's folder holds another one


def invoke(model: ScriptedModel, *words: str, stdin: str | None = None) -> Result:
    with override_client(model):
        return CliRunner().invoke(
            nucleo, list(words), input=stdin, env={"COLUMNS": "100", "NO_COLOR": "1"}
        )


def tool_results(request: ModelRequest) -> list[ToolResultBlock]:
    return [
        block
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def test_run_gives_the_thinker_the_configured_servers_tools_and_stops_them(
    project: Path,
) -> None:
    model = ScriptedModel([tool_use_response(("echo", {"text": "via mcp"})), "Done."])
    result = invoke(model, "run", "mcp_desk:Helper", "Echo something", "--model", PIN)

    assert result.exit_code == 0, result.output
    assert result.stdout == "Done.\n"
    first, second = model.requests
    assert {"echo", "pid", "forecast"} <= {spec.name for spec in first.tools}
    (answered,) = tool_results(second)
    assert (answered.content, answered.is_error) == ("via mcp", False)
    assert children() == {}  # the hub was closed: the server stopped with the command


def test_an_is_error_result_reaches_the_model_as_an_error_result(project: Path) -> None:
    model = ScriptedModel([tool_use_response(("fail", {"reason": "no"})), "Understood."])
    result = invoke(model, "run", "mcp_desk:Helper", "Try it", "--model", PIN)

    assert result.exit_code == 0, result.output
    (answered,) = tool_results(model.requests[1])
    assert answered.is_error
    assert "cannot do that: no" in answered.content


def test_chat_gives_the_thinker_the_configured_servers_tools(project: Path) -> None:
    model = ScriptedModel([tool_use_response(("echo", {"text": "in chat"})), "Echoed."])
    result = invoke(model, "chat", "mcp_desk:Chatter", "--model", PIN, stdin="echo please\n")

    assert result.exit_code == 0, result.output
    assert "Echoed." in result.stdout
    (answered,) = tool_results(model.requests[1])
    assert answered.content == "in chat"
    assert children() == {}


def test_a_server_that_does_not_start_is_a_warning_and_the_run_goes_on(project: Path) -> None:
    (project / "nucleo.toml").write_text(
        '[mcp.servers.ghost]\ncommand = "no-such-mcp-server-command"\n', encoding="utf-8"
    )
    result = invoke(ScriptedModel(["Fine."]), "run", "mcp_desk:Helper", "Hi", "--model", PIN)

    assert result.exit_code == 0, result.output
    assert result.stdout == "Fine.\n"
    assert "Warning: MCP server 'ghost' is unavailable" in result.stderr
    assert "'no-such-mcp-server-command' was not found" in result.stderr


def test_a_configuration_that_cannot_be_read_is_a_warning(project: Path) -> None:
    (project / "nucleo.toml").write_text("[mcp.servers.a]\nargs = []\n", encoding="utf-8")
    result = invoke(ScriptedModel(["Fine."]), "run", "mcp_desk:Helper", "Hi", "--model", PIN)

    assert result.exit_code == 0, result.output
    assert "Warning: the MCP servers are not connected:" in result.stderr
    assert "exactly one of command" in result.stderr
