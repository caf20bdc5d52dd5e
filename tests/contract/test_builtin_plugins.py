"""Builtins are ordinary plugins: registered first through the hooks, switched off by name.

Pins the issue "Governance holds on every path", "Builtins are ordinary plugins": the meta-tools,
the artifact tools and ``sub_thinker`` come through ``nucleo_palette_tools`` like any plugin's
tools, and a host that blocks one neither offers nor runs it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _loop_kit import Archive, Define, KeyInput, Lookup, answer, call, calls, make, tool_names

from nucleo_core import PluginHost, Tool, ToolHub, ToolSelector, tool
from nucleo_core.conversations.artifacts import DEFAULT_THRESHOLD_CHARS
from nucleo_core.hub import REQUEST_TOOLS
from nucleo_core.models import ToolResultBlock
from nucleo_core.plugins.host import BUILTIN_PLUGINS
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SUB_THINKER

ARTIFACT_TOOLS = ["get_artifact_field", "search_artifact_content"]


class Assistant(SingleObjectiveThinker[str, str]):
    """A default lookup and a two-tool catalog."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Archive])


def test_every_host_registers_the_builtins_first_through_the_hook() -> None:
    """Four builtins, loaded, each implementing nucleo_palette_tools; none among records."""
    host = PluginHost(environment={})
    assert [record.plugin for record in host.builtins] == [name for name, _ in BUILTIN_PLUGINS]
    assert all(record.status == "loaded" for record in host.builtins)
    assert all(record.contributed == ("hooks: nucleo_palette_tools",) for record in host.builtins)
    assert host.records == ()


@tool(name="dump", read_only=True, risk="low")
class Dump(Tool[KeyInput, str]):
    """Dump a key's whole history: longer than the conversation takes whole."""

    async def run(self, input: KeyInput) -> str:
        return input.key * (DEFAULT_THRESHOLD_CHARS + 1)


class Archivist(Assistant):
    """The assistant, with a tool whose output is kept as an artifact."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, Dump]


def test_the_palette_is_built_from_the_builtins_in_its_documented_order() -> None:
    """Defaults, sub_thinker, request_tools; the artifact tools appended once there is one."""
    model = ScriptedModel([calls(call("dump", {"key": "k"})), answer("hi")])
    asyncio.run(make(Archivist, model, hub=ToolHub()).run("Help."))
    assert tool_names(model.requests[0]) == ["lookup", "dump", SUB_THINKER, REQUEST_TOOLS]
    # Appended, not inserted: the palette only grows at its end (a cached prefix stays valid).
    assert tool_names(model.requests[1]) == [
        "lookup",
        "dump",
        SUB_THINKER,
        REQUEST_TOOLS,
        *ARTIFACT_TOOLS,
    ]


def test_the_artifact_tools_are_offered_only_once_the_conversation_keeps_an_artifact() -> None:
    """A run whose outputs all fit the conversation is never offered the artifact tools."""
    model = ScriptedModel([calls(call("lookup", {"key": "k"})), answer("hi")])
    asyncio.run(make(Archivist, model, hub=ToolHub()).run("Help."))
    for request in model.requests:
        assert not set(ARTIFACT_TOOLS) & set(tool_names(request))


def test_blocked_artifact_tools_stay_off_when_there_is_an_artifact() -> None:
    """Blocking builtin:artifact_tools keeps them out of a palette that would offer them."""
    hub = ToolHub(plugins=PluginHost(block=["builtin:artifact_tools"], environment={}))
    model = ScriptedModel([calls(call("dump", {"key": "k"})), answer("hi")])
    asyncio.run(make(Archivist, model, hub=hub).run("Help."))
    assert tool_names(model.requests[1]) == ["lookup", "dump", SUB_THINKER, REQUEST_TOOLS]


@pytest.mark.parametrize(
    ("blocked", "gone"),
    [
        ("builtin:request_tools", [REQUEST_TOOLS]),
        ("builtin:sub_thinker", [SUB_THINKER]),
        ("builtin:artifact_tools", ARTIFACT_TOOLS),
        (
            "builtin:*",
            ["get_artifact_field", "search_artifact_content", SUB_THINKER, REQUEST_TOOLS],
        ),
    ],
)
def test_a_blocked_builtin_is_neither_offered_nor_run(blocked: str, gone: list[str]) -> None:
    """Blocking a builtin's name switches it off: absent from the palette, refused at the call."""
    hub = ToolHub(plugins=PluginHost(block=[blocked], environment={}))
    model = ScriptedModel([calls(*(call(name, {}) for name in gone)), answer("done")])
    asyncio.run(make(Assistant, model, hub=hub).run("Help."))

    assert not set(gone) & set(tool_names(model.requests[0]))
    results = [b for b in model.requests[1].messages[-1].content if isinstance(b, ToolResultBlock)]
    assert len(results) == len(gone)
    assert all(result.is_error for result in results)
    assert all(result.content.startswith("No such tool is available.") for result in results)


def test_the_allow_list_and_autoload_switch_never_turn_a_builtin_off() -> None:
    """They govern installed plugins only."""
    host = PluginHost(allow=["acme-*"], enabled=False, environment={})
    assert all(record.status == "loaded" for record in host.builtins)
