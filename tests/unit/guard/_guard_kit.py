"""Tools, thinkers and providers shared by the guard's unit tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nucleo_core import FunctionToolProvider, ThinkerBase, Tool, ToolProvider, tool
from nucleo_core.tools.provider import RawInput

__all__ = [
    "DELETE",
    "LOOKUP",
    "UNDECLARED",
    "WRITE",
    "Auditor",
    "Reviewer",
    "ServerTool",
    "StrictReviewer",
]


@tool(read_only=True, risk="low")
def lookup(query: str) -> str:
    """Look a term up."""
    return query


@tool(risk="medium")
def write_note(text: str) -> str:
    """Write a note."""
    return text


@tool(risk="high")
def delete_note(key: str) -> str:
    """Delete a note."""
    return key


@tool
def dispatch_agent(task: str) -> str:
    """Start a run (declares no risk, so it counts as high)."""
    return task


LOOKUP = FunctionToolProvider(lookup)
WRITE = FunctionToolProvider(write_note)
DELETE = FunctionToolProvider(delete_note)
UNDECLARED = FunctionToolProvider(dispatch_agent)


class Reviewer(ThinkerBase):
    """A thinker class rules name."""


class StrictReviewer(Reviewer):
    """A subclass: a rule naming Reviewer covers it."""


class Auditor(ThinkerBase):
    """An unrelated thinker class."""


class ServerTool(ToolProvider):
    """A tool as an MCP server publishes it: source ``mcp:<server>:<tool>`` and a risk_policy.

    Only what the policy reads is real here (name, source, risk, ``risk_policy``); it is never
    run. `test_guard_mcp_policy` also checks the real ``MCPToolProvider``.
    """

    __slots__ = ("_name", "_risk", "_server", "risk_policy")

    def __init__(
        self, server: str, name: str, *, risk: str | None, risk_policy: object = None
    ) -> None:
        from nucleo_core import Risk

        self._server = server
        self._name = name
        self._risk = None if risk is None else Risk(risk)
        self.risk_policy = risk_policy

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return "A server's tool."

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object"}

    @property
    def risk(self) -> Any:
        from nucleo_core import Risk

        return self._risk or Risk.HIGH

    @property
    def risk_declared(self) -> bool:
        return self._risk is not None

    @property
    def source(self) -> str:
        return f"mcp:{self._server}:{self._name}"

    def parse_input(self, raw: RawInput) -> Any:
        raise NotImplementedError("never called by the policy")

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        raise NotImplementedError("never called by the policy")
