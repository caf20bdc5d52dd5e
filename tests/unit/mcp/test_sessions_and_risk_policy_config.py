"""The ``sessions`` and ``risk_policy`` keys of an MCP server's configuration, read and checked.

Read from each place a server is configured (``pyproject.toml``, ``nucleo.toml``, a nucleo
table over a ``.mcp.json`` entry) and from code; a bad value is an `MCPConfigError` naming the
key and what it allows. The provider carries the risk policy for the permission guard.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from nucleo_core import Risk
from nucleo_core.mcp import (
    MCPClientPool,
    MCPConfigError,
    MCPServerConfig,
    MCPToolProvider,
    discover_servers,
    servers_from_file,
)

DESCRIPTOR: dict[str, Any] = {
    "name": "recall",
    "description": "Recall.",
    "inputSchema": {"type": "object", "properties": {}},
}


def write(path: Path, text: str) -> Path:
    """Write dedented text to ``path``."""
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def provider_of(config: MCPServerConfig) -> MCPToolProvider:
    """The provider of one tool of ``config``'s server (never called: no session starts)."""
    pool = MCPClientPool([config])
    try:
        return MCPToolProvider.from_descriptor(config, DESCRIPTOR, pool)
    finally:
        pool.close()


def test_sessions_defaults_to_shared() -> None:
    """A server that says nothing shares one session between every conversation."""
    assert MCPServerConfig(name="s", command="srv").sessions == "shared"


def test_pyproject_declares_sessions_and_a_risk_policy(tmp_path: Path) -> None:
    """[tool.nucleo.mcp.servers.<id>] takes sessions and a risk_policy table, as written."""
    write(
        tmp_path / "pyproject.toml",
        """
        [tool.nucleo.mcp.servers.browser]
        command = "mcp-browser"
        sessions = "conversation"

        [tool.nucleo.mcp.servers.browser.risk_policy]
        low = "auto"
        medium = "notify"
        high = "confirm"
        """,
    )
    (browser,) = discover_servers(tmp_path)
    assert browser.sessions == "conversation"
    assert dict(browser.risk_policy or {}) == {
        "low": "auto",
        "medium": "notify",
        "high": "confirm",
    }


def test_nucleo_toml_declares_them_too(tmp_path: Path) -> None:
    """[mcp.servers.<id>] of a nucleo.toml takes the same keys, an inline table included."""
    file = write(
        tmp_path / "nucleo.toml",
        """
        [mcp.servers.scratch]
        command = "mcp-scratch-db"
        sessions = "shared"
        risk_policy = { high = "deny" }
        """,
    )
    (scratch,) = servers_from_file(file)
    assert scratch.sessions == "shared"
    assert dict(scratch.risk_policy or {}) == {"high": "deny"}


def test_a_nucleo_table_adds_them_to_a_server_of_the_mcp_json(tmp_path: Path) -> None:
    """A server another client configured in .mcp.json gets sessions and risk_policy from nucleo."""
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"memory": {"command": "mcp-memory", "args": ["--x"]}}}),
        encoding="utf-8",
    )
    write(
        tmp_path / "nucleo.toml",
        """
        [mcp.servers.memory]
        sessions = "conversation"
        risk_policy = { low = "auto", high = "confirm" }
        """,
    )
    (memory,) = discover_servers(tmp_path)
    assert (memory.command, memory.args) == ("mcp-memory", ("--x",))
    assert memory.sessions == "conversation"
    assert dict(memory.risk_policy or {}) == {"low": "auto", "high": "confirm"}


@pytest.mark.parametrize("value", ["per-conversation", "Conversation", "", 1, True, None])
def test_a_sessions_value_other_than_shared_or_conversation_is_refused(value: object) -> None:
    """Only "shared" or "conversation" is a sessions value; the error names the key and both."""
    with pytest.raises(MCPConfigError, match='sessions must be "shared" or "conversation"'):
        MCPServerConfig(name="s", command="srv", sessions=value)  # type: ignore[arg-type]  # the bad value is the point


def test_a_bad_sessions_value_in_a_file_names_the_file_and_the_server(tmp_path: Path) -> None:
    """Read from a file, the error says which file and which server table holds the bad value."""
    file = write(tmp_path / "nucleo.toml", '[mcp.servers.web]\ncommand = "w"\nsessions = "each"\n')
    with pytest.raises(MCPConfigError) as caught:
        servers_from_file(file)
    message = str(caught.value)
    assert str(file) in message
    assert "'web'" in message
    assert 'sessions must be "shared" or "conversation"' in message


def test_a_risk_policy_key_that_is_not_a_risk_level_is_refused_by_name(tmp_path: Path) -> None:
    """A level other than low, medium or high is named, with the levels and decisions allowed."""
    file = write(
        tmp_path / "nucleo.toml",
        '[mcp.servers.web]\ncommand = "w"\nrisk_policy = { critical = "deny" }\n',
    )
    with pytest.raises(MCPConfigError) as caught:
        servers_from_file(file)
    message = str(caught.value)
    assert "risk_policy.critical is not a risk level" in message
    assert "(low, medium, high)" in message
    assert "(auto, notify, confirm, deny)" in message


@pytest.mark.parametrize("decision", ["allow", "AUTO", "", 1, None])
def test_a_risk_policy_decision_that_is_not_one_of_the_four_is_refused(decision: object) -> None:
    """Each level maps to auto, notify, confirm or deny; another value names the level's key."""
    with pytest.raises(MCPConfigError, match=r"risk_policy\.high must be one of auto, notify"):
        MCPServerConfig(name="s", command="srv", risk_policy={"high": decision})  # type: ignore[dict-item]  # the bad value is the point


@pytest.mark.parametrize("policy", ["confirm", ["high", "confirm"], 3])
def test_a_risk_policy_that_is_not_a_table_is_refused(policy: object) -> None:
    """risk_policy must be a table of levels to decisions, and the error says so."""
    with pytest.raises(MCPConfigError, match="risk_policy must be a table mapping risk levels"):
        MCPServerConfig(name="s", command="srv", risk_policy=policy)  # type: ignore[arg-type]  # the bad value is the point


def test_the_risk_policy_is_stored_read_only_and_a_risk_may_name_a_level() -> None:
    """The stored policy cannot be changed afterwards, nor through the table it was built from."""
    given: dict[Any, str] = {Risk.HIGH: "confirm", "low": "auto"}
    config = MCPServerConfig(name="s", command="srv", risk_policy=given)
    given["medium"] = "deny"
    policy = config.risk_policy
    assert policy is not None
    assert dict(policy) == {"high": "confirm", "low": "auto"}
    with pytest.raises(TypeError):
        policy["low"] = "deny"  # type: ignore[index]  # read-only: the point of the test


def test_the_provider_carries_its_servers_risk_policy_for_the_guard() -> None:
    """Each tool of a server answers risk_policy with the server's, read-only; None when unset."""
    configured = MCPServerConfig(name="s", command="srv", risk_policy={"medium": "notify"})
    provider = provider_of(configured)
    assert provider.risk_policy is not None
    assert dict(provider.risk_policy) == {"medium": "notify"}
    with pytest.raises(TypeError):
        provider.risk_policy["medium"] = "auto"  # type: ignore[index]  # read-only: the point
    assert provider_of(MCPServerConfig(name="t", command="srv")).risk_policy is None


def test_the_provider_says_how_its_server_shares_sessions() -> None:
    """A provider's sessions is its server's setting, which routes its calls."""
    per = provider_of(MCPServerConfig(name="s", command="srv", sessions="conversation"))
    shared = provider_of(MCPServerConfig(name="t", command="srv"))
    assert (per.sessions, shared.sessions) == ("conversation", "shared")
