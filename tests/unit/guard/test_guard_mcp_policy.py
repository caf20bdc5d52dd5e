"""Unit tests of an MCP server's ``risk_policy`` in the permission policy."""

from __future__ import annotations

from typing import Any

import pytest
from _guard_kit import ServerTool

from nucleo_core.guard import Decision, PermissionPolicy, PermissionRule
from nucleo_core.mcp.config import MCPServerConfig
from nucleo_core.mcp.provider import MCPToolProvider

POLICY = PermissionPolicy()


def test_the_servers_map_decides_the_levels_it_names() -> None:
    """risk_policy {"medium": "confirm"} confirms a medium tool of that server."""
    tool = ServerTool("files", "write_file", risk="medium", risk_policy={"medium": "confirm"})
    decided = POLICY.decide(None, tool)
    assert (decided.decision, decided.decided_by) == (Decision.CONFIRM, "mcp:files:risk_policy")
    assert decided.reason == (
        "'write_file' is declared medium risk; server 'files''s risk_policy for medium risk is "
        "confirm"
    )


def test_levels_the_map_leaves_out_keep_the_default() -> None:
    """A map naming only high leaves a low tool of the server at auto, by the default."""
    tool = ServerTool("files", "read_file", risk="low", risk_policy={"high": "deny"})
    decided = POLICY.decide(None, tool)
    assert (decided.decision, decided.decided_by) == (Decision.AUTO, "default:risk=low")


def test_an_undeclared_tool_of_the_server_takes_the_maps_high() -> None:
    """A server tool declaring no risk counts as high, so the map's high applies."""
    tool = ServerTool("files", "purge", risk=None, risk_policy={"high": "deny"})
    assert POLICY.decide(None, tool).decision is Decision.DENY


@pytest.mark.parametrize(
    ("risk_policy", "problem"),
    [
        ({"high": "allow"}, 'risk_policy.high must be one of "auto"'),
        ({"severe": "deny"}, "risk_policy: unknown risk level"),
        (["deny"], "risk_policy must map risk levels to decisions, not list"),
        ({"low": 1}, 'risk_policy.low must be one of "auto"'),
    ],
)
def test_a_malformed_map_denies_with_a_reason(risk_policy: Any, problem: str) -> None:
    """A broken map denies every tool of the server; the detail, not the model, says what."""
    tool = ServerTool("files", "read_file", risk="low", risk_policy=risk_policy)
    decided = POLICY.decide(None, tool, {"path": "/etc/secret"})
    assert (decided.decision, decided.decided_by) == (Decision.DENY, "mcp:files:risk_policy")
    assert decided.reason == (
        "Calling 'read_file' is denied: the permission policy of its server is misconfigured; "
        "choose another tool, or do the task without it."
    )
    assert problem in decided.detail
    assert "secret" not in decided.reason + decided.detail


def test_rules_override_the_servers_map() -> None:
    """A rule for the server's source decides over its map."""
    policy = PermissionPolicy([PermissionRule(source="mcp:files:*", decision="notify")])
    tool = ServerTool("files", "delete_file", risk="high", risk_policy={"high": "deny"})
    decided = policy.decide(None, tool)
    assert (decided.decision, decided.decided_by) == (Decision.NOTIFY, "rule:0")


def test_a_malformed_map_denies_even_where_a_rule_would_allow() -> None:
    """A broken configuration never runs a tool of that server, whatever a rule says."""
    policy = PermissionPolicy([PermissionRule(source="mcp:files:*", decision="auto")])
    tool = ServerTool("files", "read_file", risk="low", risk_policy={"low": "yes"})
    assert policy.decide(None, tool).decision is Decision.DENY


class _NeverCalled:
    async def call_tool(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the policy never calls a tool")


def test_the_real_mcp_provider_carries_its_servers_map_to_the_policy() -> None:
    """An MCPToolProvider built from a server configured with a risk_policy is decided by it."""
    config = MCPServerConfig(
        name="tickets",
        command="tickets-server",
        risk="medium",
        risk_policy={"medium": "confirm"},
    )
    descriptor = {"name": "close_ticket", "inputSchema": {"type": "object"}}
    provider = MCPToolProvider.from_descriptor(config, descriptor, _NeverCalled())
    assert provider.source == "mcp:tickets:close_ticket"
    decided = POLICY.decide(None, provider)
    assert (decided.decision, decided.decided_by) == (Decision.CONFIRM, "mcp:tickets:risk_policy")
