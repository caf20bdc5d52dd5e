"""The permission policy from pyproject.toml, and an MCP server's risk_policy."""

from pathlib import Path

from nucleo_core import FunctionToolProvider, tool
from nucleo_core.guard import discover_guard_config
from nucleo_core.mcp.config import servers_from_file
from nucleo_core.mcp.provider import MCPToolProvider

PROJECT = Path(__file__).parent / "guard_project"


@tool(risk="medium")
def reply_to_ticket(ticket: int, text: str) -> str:
    """Reply to a ticket."""
    return text


@tool(risk="high")
def delete_ticket(ticket: int) -> str:
    """Delete a ticket."""
    return str(ticket)


config = discover_guard_config(PROJECT)
policy = config.policy
print(f"{len(policy.rules)} rules, hooks within {config.hook_timeout:g} s")
for function in (reply_to_ticket, delete_ticket):
    decided = policy.decide(None, FunctionToolProvider(function))
    print(f"{decided.decision.value:8} {decided.decided_by}")

# The server's tools carry its risk_policy; the policy reads it for the levels it names.
(tickets,) = servers_from_file(PROJECT / "pyproject.toml")
descriptor = {"name": "close_ticket", "inputSchema": {"type": "object"}}
close_ticket = MCPToolProvider.from_descriptor(
    tickets, descriptor, caller=None
)  # never called here
decided = policy.decide(None, close_ticket)
print(f"{close_ticket.source}: {decided.decision.value} by {decided.decided_by}")
