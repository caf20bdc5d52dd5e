"""The MCP client's own capabilities against an SDK-written server that uses them.

``_mcp_servers/full_client_server.py`` lists a tool only to a client that declares the
capability it needs (roots, sampling, elicitation), as published servers do, and asks for each
through the SDK's resolvers. These tests run it as a real stdio subprocess, under both the
2026-07-28 protocol (``InputRequiredResult`` rounds) and the handshake-era one (server-to-client
requests) where the path differs, and check what a user relies on: every tool is listed;
roots are the project folder or the configured ones; sampling is refused unless configured and
then served by a model catalog entry (a real HTTP model server on 127.0.0.1); an elicitation is
answered by the configured answerer, its answer checked against the schema; ``disabled``
servers never start; a trusted ``destructiveHint`` raises risk; a server killed between calls
is back before the next one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from _installed_venv import clean_environment
from _mcp_harness import (
    SERVERS,
    Process,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    stdio,
)
from wire_server import Reply, wire_server

from nucleo_core.guard.audit.log import AuditLog
from nucleo_core.guard.audit.memory_store import MemoryAuditStore
from nucleo_core.hub import ToolHub
from nucleo_core.mcp import (
    CatalogSampler,
    ElicitationAnswer,
    MCPClientPool,
    MCPServerConfig,
    MCPServers,
    MCPToolSettings,
    SamplingRequest,
    SamplingResult,
    ScriptedAnswerer,
    discover_servers,
    servers_from_file,
)
from nucleo_core.models.catalog import ModelCatalog
from nucleo_core.tools.risk import Risk

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

SCRIPT = "full_client_server.py"
FULL = SERVERS / SCRIPT
#: Every tool the server has; a client without capabilities is shown only the first three.
EVERY_TOOL = ["echo", "wipe", "pid", "project_roots", "summarize", "sign_up"]
PROTOCOLS = pytest.mark.parametrize("protocol", ["auto", "legacy"])


def full(name: str = "full", **settings: Any) -> MCPServerConfig:
    """The full-client test server over stdio."""
    return stdio(name, SCRIPT, **settings)


def call(pool: MCPClientPool, server: str, tool: str, **arguments: Any) -> Any:
    """Call a tool that answers JSON; the decoded answer (the call must succeed)."""
    result = pool.call_sync(server, tool, arguments)
    assert not result.is_error, result.text
    return json.loads(result.text)


# -- capabilities ------------------------------------------------------------------------------


@PROTOCOLS
def test_every_tool_is_listed_where_a_client_declaring_nothing_is_shown_fewer(
    protocol: str,
) -> None:
    """The client declares roots, sampling and elicitation, so the server hides no tool."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def bare_listing() -> list[str]:
        parameters = StdioServerParameters(command=sys.executable, args=[str(FULL)])
        # The server's stderr goes to a real file: the SDK's default is the sys.stderr of the
        # moment it was imported, which a CLI test's CliRunner may have replaced then.
        with open(os.devnull, "w") as errlog:
            transport = stdio_client(parameters, errlog=errlog)
            async with Client(transport, mode=protocol) as client:  # type: ignore[arg-type]
                return [tool.name for tool in (await client.list_tools()).tools]

    assert asyncio.run(bare_listing()) == ["echo", "wipe", "pid"]
    with MCPClientPool([full(protocol=protocol)]) as pool:
        assert [tool["name"] for tool in pool.start("full")] == EVERY_TOOL


# -- roots -------------------------------------------------------------------------------------


@PROTOCOLS
def test_roots_are_the_folder_of_the_configuration_that_declared_the_server(
    tmp_path: Path, protocol: str
) -> None:
    """Without configured roots, roots/list answers the project folder as a file:// URI."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "nucleo.toml").write_text(
        textwrap.dedent(
            f"""\
            [mcp.servers.full]
            command = {json.dumps(sys.executable)}
            args = [{json.dumps(str(FULL))}]
            protocol = "{protocol}"
            """
        )
    )
    (config,) = servers_from_file(project / "nucleo.toml")
    with MCPClientPool([config]) as pool:
        assert call(pool, "full", "project_roots") == [project.resolve().as_uri()]


def test_configured_roots_and_the_table_default_are_listed_as_file_uris(tmp_path: Path) -> None:
    """``roots`` per server wins over the table's ``roots``; relative paths are the project's."""
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [tool.nucleo.mcp]
            roots = ["shared", "/srv/data"]

            [tool.nucleo.mcp.servers.inherits]
            command = {json.dumps(sys.executable)}
            args = [{json.dumps(str(FULL))}]

            [tool.nucleo.mcp.servers.own]
            command = {json.dumps(sys.executable)}
            args = [{json.dumps(str(FULL))}]
            roots = ["src/app"]
            """
        )
    )
    configs = discover_servers(tmp_path)
    with MCPClientPool(configs) as pool:
        assert call(pool, "inherits", "project_roots") == [
            (tmp_path / "shared").resolve().as_uri(),
            "file:///srv/data",
        ]
        assert call(pool, "own", "project_roots") == [(tmp_path / "src/app").resolve().as_uri()]


# -- sampling ----------------------------------------------------------------------------------


@PROTOCOLS
def test_a_sampling_request_is_refused_unless_the_configuration_enables_it(
    protocol: str, caplog: pytest.LogCaptureFixture
) -> None:
    """By default a server's sampling request is refused, saying how to enable it, and logged."""
    served: list[SamplingRequest] = []

    def sampler(request: SamplingRequest) -> SamplingResult:
        served.append(request)
        return SamplingResult(text="never", model="none")

    with (
        caplog.at_level(logging.INFO, logger="nucleo.mcp"),
        MCPClientPool([full(protocol=protocol)], sampler=sampler) as pool,
    ):
        result = pool.call_sync("full", "summarize", {"text": "a long story"})
    assert result.is_error
    assert "nucleo refused the sampling request" in result.text
    assert "sampling is not enabled for this server" in result.text
    assert served == []  # the sampler was never asked
    assert any("sampling request refused" in r.getMessage() for r in caplog.records)


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "tiny",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14},
    }


@PROTOCOLS
def test_an_enabled_server_is_served_by_its_configured_model_within_its_token_cap(
    protocol: str,
) -> None:
    """``sampling = { model, max_tokens }`` serves requests on that catalog seat, capped."""
    with wire_server() as model_server:
        model_server.replies.append(Reply.json(_completion("Hero leaves, returns home.")))
        entry = f"openai-compatible:{model_server.url}/v1#tiny"
        catalog = ModelCatalog(grades={"fast": entry})
        config = full(protocol=protocol, sampling={"model": "fast", "max_tokens": 64})
        with MCPClientPool([config], sampler=CatalogSampler(catalog)) as pool:
            answer = call(pool, "full", "summarize", text="a long story")
        (request,) = model_server.requests
    assert answer == {"model": entry, "text": "Hero leaves, returns home."}
    body = request.json()
    assert body["model"] == "tiny"
    assert body["max_tokens"] == 64  # the server asked for 4000
    assert body["messages"] == [
        {"role": "system", "content": "Answer in five words."},
        {"role": "user", "content": "Summarize: a long story"},
    ]


def test_each_sampling_decision_is_recorded_in_the_audit_log() -> None:
    """A refused request is a ``deny`` permission record, a served one ``auto``, per server."""
    audit = AuditLog(MemoryAuditStore())

    def sampler(request: SamplingRequest) -> SamplingResult:
        return SamplingResult(text="short", model="scripted")

    configs = [full("closed"), full("open", sampling=True)]
    with MCPClientPool(configs, sampler=sampler, audit=audit) as pool:
        assert pool.call_sync("closed", "summarize", {"text": "x"}).is_error
        assert call(pool, "open", "summarize", text="x") == {"model": "scripted", "text": "short"}
    records = [(r.kind, r.source, r.decision) for r in audit.read()]
    audit.close()
    assert records == [
        ("permission", "mcp:closed:sampling", "deny"),
        ("permission", "mcp:open:sampling", "auto"),
    ]


# -- elicitation -------------------------------------------------------------------------------


@PROTOCOLS
def test_an_elicitation_is_answered_by_the_scripted_answerer(protocol: str) -> None:
    """Accept sends the checked content, decline sends no content; the request is recorded."""
    answerer = ScriptedAnswerer(
        [ElicitationAnswer.accept({"name": "Ada", "seats": 2}), ElicitationAnswer.decline()]
    )
    with MCPClientPool([full(protocol=protocol)], elicitation=answerer) as pool:
        accepted = call(pool, "full", "sign_up")
        declined = call(pool, "full", "sign_up")
    assert accepted == {"action": "accept", "data": {"name": "Ada", "seats": 2}}
    assert declined == {"action": "decline", "data": None}
    first = answerer.requests[0]
    assert (first.server, first.mode, first.message) == (
        "full",
        "form",
        "How many seats, and in whose name?",
    )
    assert set(first.schema["properties"]) == {"name", "seats"}


@PROTOCOLS
def test_an_answer_that_does_not_fit_the_schema_is_never_sent(
    protocol: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The server is told cancel; the log names the field and the reason, never the value."""
    answerer = ScriptedAnswerer(
        [
            ElicitationAnswer.accept({"name": "Ada", "seats": "SECRET-many"}),
            ElicitationAnswer.accept({"name": "Ada", "seats": 99}),
            ElicitationAnswer.accept({"seats": 1}),
        ]
    )
    with (
        caplog.at_level(logging.INFO, logger="nucleo.mcp"),
        MCPClientPool([full(protocol=protocol)], elicitation=answerer) as pool,
    ):
        outcomes = [call(pool, "full", "sign_up") for _ in range(3)]
    assert outcomes == [{"action": "cancel", "data": None}] * 3
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "seats: must be of type integer" in logged
    assert "seats: must be <= 10" in logged
    assert "name: required" in logged
    assert "SECRET" not in logged


def test_without_an_answerer_every_elicitation_is_declined() -> None:
    """No answerer means no consent: the server reads decline."""
    with MCPClientPool([full()]) as pool:
        assert call(pool, "full", "sign_up") == {"action": "decline", "data": None}


# -- disabled ----------------------------------------------------------------------------------


def test_disabled_servers_in_mcp_json_and_nucleo_tables_are_never_started(tmp_path: Path) -> None:
    """``"disabled": true`` (.mcp.json) and ``disabled = true`` keep a server from starting."""
    marks = {name: tmp_path / f"{name}.pid" for name in ("json_off", "toml_off", "on")}
    servers = {
        name: {"command": sys.executable, "args": [str(FULL), str(mark)]}
        for name, mark in marks.items()
    }
    servers["json_off"]["disabled"] = True
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (tmp_path / "nucleo.toml").write_text("[mcp.servers.toml_off]\ndisabled = true\n")
    configs = {config.name: config for config in discover_servers(tmp_path)}
    assert {name: config.disabled for name, config in configs.items()} == {
        "json_off": True,
        "toml_off": True,
        "on": False,
    }
    hub = ToolHub()
    bound = MCPServers(configs.values()).connect_to_hub(hub)
    try:
        # The enabled server wrote its pid file once it ran: by then every start had begun.
        assert bound.pool.status("on").state == "ready"
        assert marks["on"].exists()
        assert not marks["json_off"].exists()
        assert not marks["toml_off"].exists()
        assert bound.pool.status("json_off").state == "disabled"
        assert bound.pool.status("toml_off").state == "disabled"
        assert bound.problems == ()
        result = bound.pool.call_sync("json_off", "echo", {"text": "x"})
        assert result.is_error
        assert "disabled = true" in result.text
    finally:
        hub.close()


def nucleo(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m nucleo_core.cli ARGS`` in ``cwd``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=clean_environment({"NO_COLOR": "1", "COLUMNS": "200"}),
        timeout=120,
        check=False,
    )


def test_nucleo_mcp_lists_a_disabled_server_as_disabled(tmp_path: Path) -> None:
    """``nucleo mcp --json`` shows a disabled server's status as disabled, never started."""
    mark = tmp_path / "off.pid"
    entry = {"command": sys.executable, "args": [str(FULL), str(mark)], "disabled": True}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"off": entry}}))
    result = nucleo(tmp_path, "mcp", "--json")
    assert result.returncode == 0, result.stderr
    (summary,) = json.loads(result.stdout)
    assert (summary["name"], summary["status"], summary["disabled"]) == ("off", "disabled", True)
    assert summary["tools"] is None
    assert not mark.exists()
    table = nucleo(tmp_path, "mcp")
    assert table.returncode == 0, table.stderr
    assert "disabled" in table.stdout


def test_nucleo_catalog_shows_the_mcp_tools_nucleo_run_binds(tmp_path: Path) -> None:
    """``nucleo catalog THINKER`` binds the project's MCP servers: their tools are offered."""
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [tool.nucleo.mcp.servers.full]
            command = {json.dumps(sys.executable)}
            args = [{json.dumps(str(FULL))}]
            """
        )
    )
    (tmp_path / "thinkers.py").write_text(
        "from nucleo_core import ThinkerBase\n\n\nclass Plain(ThinkerBase):\n    pass\n"
    )
    result = nucleo(tmp_path, "catalog", "thinkers.py:Plain", "--json")
    assert result.returncode == 0, result.stderr
    palette = {tool["name"]: tool for tool in json.loads(result.stdout)["palette"]}
    assert set(EVERY_TOOL) <= set(palette)
    assert palette["echo"]["source"] == "mcp:full:echo"


# -- annotations -------------------------------------------------------------------------------


def test_a_trusted_destructive_hint_raises_risk_unless_the_tool_declares_its_own() -> None:
    """trust_annotations: destructiveHint makes a tool high risk over the server's risk."""
    configs = [
        full("trusted", risk="low", trust_annotations=True, prefix="t"),
        full(
            "declared",
            risk="low",
            trust_annotations=True,
            tools={"wipe": MCPToolSettings(risk=Risk.MEDIUM)},
            prefix="d",
        ),
        full("untrusted", risk="low", prefix="u"),
    ]
    with MCPServers(configs) as servers:
        risks = {
            name: {p.tool: p.risk for p in servers.start(name) if p.tool in ("wipe", "echo")}
            for name in ("trusted", "declared", "untrusted")
        }
    assert risks == {
        "trusted": {"echo": Risk.LOW, "wipe": Risk.HIGH},
        "declared": {"echo": Risk.LOW, "wipe": Risk.MEDIUM},
        "untrusted": {"echo": Risk.LOW, "wipe": Risk.LOW},
    }


# -- a server that dies between calls ----------------------------------------------------------


def test_a_server_killed_between_calls_is_restarted_before_the_next_call() -> None:
    """The process's exit is noticed at once: a new one is ready before any call is made."""
    with MCPClientPool([full(max_restarts=2)]) as pool:
        first = pool.call_sync("full", "pid", {})
        assert not first.is_error
        process = Process.of(int(first.text))
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait_gone()
        deadline = time.monotonic() + 60
        while not (pool.status("full").restarts == 1 and pool.status("full").state == "ready"):
            assert time.monotonic() < deadline, pool.status("full")
            time.sleep(0.02)
        second = pool.call_sync("full", "pid", {})
    assert not second.is_error
    assert second.text != first.text
