"""Third-party names cannot take a thinker down: reserved names and clashes are reported at bind.

A real MCP server publishes tools named like nucleo's own (``request_tools``, ``sub_thinker``,
``get_artifact_field``), like a thinker's default tool and like a tool pack's. Each is reported
against the server with its fix (a ``prefix``) and skipped; the thinkers on that hub take their
turns as before. Pins leak 7 of the issue "Governance holds on every path".
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from _mcp_harness import (
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    stdio,
)

from nucleo_core import PluginHost, ThinkerBase, ToolHub, tool
from nucleo_core.errors import ReservedToolName
from nucleo_core.mcp import MCPServers

pytestmark = pytest.mark.usefixtures("no_child_left_behind")


@tool(name="lookup", read_only=True, risk="low")
def lookup(key: str) -> str:
    """Look a key up, natively."""
    return key


class Desk(ThinkerBase):
    """A thinker whose default tool is named ``lookup``."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [lookup]


class LateDesk(ThinkerBase):
    """The same default, resolved only after the server was bound."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [lookup]


def test_reserved_names_are_reported_against_the_server_and_skipped() -> None:
    """request_tools, sub_thinker and get_artifact_field are refused with the prefix fix."""
    hub = ToolHub()
    with MCPServers([stdio("odd", "reserved_names.py")]).connect_to_hub(hub) as servers:
        reserved = [p for p in servers.problems if p.kind == "reserved"]
        assert sorted(p.tool or "" for p in reserved) == [
            "get_artifact_field",
            "request_tools",
            "sub_thinker",
        ]
        assert all(p.server == "odd" for p in reserved)
        assert 'prefix = "odd"' in reserved[0].message
        names = {p.name for p in hub.system_wide_tools()}
        assert not names & {"request_tools", "sub_thinker", "get_artifact_field"}
        assert "weather" in names


def test_a_thinker_on_that_hub_takes_its_turn_with_its_own_tools() -> None:
    """No ToolCollisionError at the first turn; the thinker's lookup stays its own."""
    hub = ToolHub()
    hub.default_tools(Desk)  # Desk's defaults are known when the server binds
    with MCPServers([stdio("odd", "reserved_names.py")]).connect_to_hub(hub) as servers:
        clash = [p for p in servers.problems if p.kind == "collision"]
        assert [p.tool for p in clash] == ["lookup"]
        assert "native:lookup" in clash[0].message
        assert "Desk" in clash[0].message
        registry = Desk(hub=hub).reconcile_tool_registry()
        assert registry.get("lookup") is not None
        assert registry.get("lookup").source == "native:lookup"  # type: ignore[union-attr]
        assert registry.get("request_tools") is None


def test_a_default_tool_resolved_after_the_bind_keeps_its_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A clash the bind could not see is caught at the palette: reported once, never fatal."""
    hub = ToolHub()
    with MCPServers([stdio("odd", "reserved_names.py")]).connect_to_hub(hub):
        with caplog.at_level(logging.WARNING, logger="nucleo.hub"):
            thinker = LateDesk(hub=hub)
            first = thinker.reconcile_tool_registry()
            thinker.reconcile_tool_registry()
        assert first.get("lookup").source == "native:lookup"  # type: ignore[union-attr]
        warnings = [r.getMessage() for r in caplog.records if "is not offered to" in r.message]
        assert len(warnings) == 1
        assert "mcp:odd:lookup" in warnings[0]
        assert "LateDesk" in warnings[0]


def test_registering_a_reserved_name_in_code_raises_with_the_fix() -> None:
    """The hub refuses a reserved name from code with a clear error."""

    @tool(name="request_tools", risk="low")
    def impostor(tools: list[str]) -> str:
        """Pretend to grant."""
        return "ok"

    with pytest.raises(ReservedToolName, match="reserved for nucleo's own tools"):
        ToolHub().register_system_wide_tool(impostor)
    with pytest.raises(ReservedToolName):
        ToolHub().register_compatible(Desk, impostor)


PACK_MODULE = '''
from nucleo_core import tool

@tool(read_only=True, risk="low")
def read_file(path: str) -> str:
    """Read a file, as the pack does."""
    return path
'''


def test_a_server_tool_named_like_a_pack_tool_is_reported_not_taken(plugin_site: Any) -> None:
    """The pack keeps read_file; the server's read_file is a collision naming the pack."""
    site = plugin_site
    site.distribution(
        "acme-files",
        {"nucleo.tools": {"acme-files": "acme_files_tools"}},
        modules={"acme_files_tools": PACK_MODULE},
    )
    hub = ToolHub(plugins=PluginHost(path=[site.root], environment={}))
    hub.load_plugins()
    with MCPServers([stdio("odd", "reserved_names.py")]).connect_to_hub(hub) as servers:
        clash = [p for p in servers.problems if p.kind == "collision"]
        assert [p.tool for p in clash] == ["read_file"]
        assert "pack acme-files" in clash[0].message
        assert 'prefix = "odd"' in clash[0].message
        assert "read_file" not in {p.name for p in hub.system_wide_tools()}
