"""Provider-native deferral: the catalog sent deferred, each tool admitted at its first call.

Pins issue 12, acceptance 1 (provider-native): through the real Anthropic SDK against a local
HTTP server, a thinker offered ``"provider"`` sends its catalog with ``defer_loading`` after
Anthropic's tool search tool, keeps the loaded tools (and the cache breakpoint) before them, and
admits a deferred tool through the door when the model first calls it: a granted one runs, a
refused one gets a correctable refusal and never runs, both on the admission record. A client
that cannot defer falls back to ``search_tools``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from _hub_kit import Rule
from _loop_kit import DECLARATION, answer, fresh_catalog, tool_names
from test_search_tools import TOPICS, catalog_tool
from wire_server import Reply, WireServer, wire_server

from nucleo_core import ToolHub, ToolSelector, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.hub.search_tool import SEARCH_TOOLS, ToolOffer
from nucleo_core.models.anthropic import AnthropicClient
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.tools import provider_for

RAN: list[str] = []


def ran_tool(name: str, description: str) -> Any:
    """A catalog tool that notes its runs in RAN."""

    def note(key: str) -> str:
        RAN.append(name)
        return f"{name}: {key}"

    note.__doc__ = description
    note.__name__ = name
    return provider_for(tool(name=name, read_only=True, risk="low")(note))


class Deferring(SingleObjectiveThinker[str, str]):
    """A thinker whose catalog is sent deferred."""

    tool_offer: ClassVar[ToolOffer | None] = "provider"

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [catalog_tool("note_down", "Write a note down.")]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([ran_tool(name, about) for name, about in TOPICS])


@pytest.fixture
def server() -> Iterator[WireServer]:
    with wire_server() as started:
        yield started


def reply(*content: dict[str, Any], stop_reason: str) -> Reply:
    return Reply.json(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-wire-test",
            "content": list(content),
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": 11, "output_tokens": 7},
        }
    )


def searched_and_called(name: str) -> Reply:
    """What the API answers when the model searched, loaded ``name`` and called it."""
    return reply(
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "tool_search_tool_bm25",
            "input": {"query": name},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": name}],
            },
        },
        {"type": "tool_use", "id": "toolu_1", "name": name, "input": {"key": "lisbon"}},
        stop_reason="tool_use",
    )


def run_against(server: WireServer, hub: ToolHub) -> str:
    async def main() -> str:
        async with AnthropicClient(api_key="k", base_url=server.url, max_retries=0) as client:
            thinker = Deferring(
                DECLARATION,
                hub=hub,
                catalog=fresh_catalog(),
                conversations=ConversationService(":memory:"),
                client=client,
            )
            return str(await thinker.run("What is the weather in Lisbon?"))

    return asyncio.run(main())


def tool_results(server: WireServer, turn: int) -> list[dict[str, Any]]:
    content = server.requests[turn].json()["messages"][-1]["content"]
    return [block for block in content if block["type"] == "tool_result"]


def test_the_catalog_is_sent_deferred_after_the_tool_search_tool(server: WireServer) -> None:
    """Loaded tools first (the breakpoint on the last of them), then every catalog tool deferred."""
    server.replies.append(reply({"type": "text", "text": "hi"}, stop_reason="end_turn"))
    assert run_against(server, ToolHub()) == "hi"
    tools = server.requests[0].json()["tools"]
    names = [entry["name"] for entry in tools]
    assert names[0] == "note_down"
    search_at = names.index("tool_search_tool_bm25")
    assert tools[search_at]["type"] == "tool_search_tool_bm25_20251119"
    assert tools[search_at]["cache_control"] == {"type": "ephemeral"}
    deferred = tools[search_at + 1 :]
    assert [entry["name"] for entry in deferred] == [name for name, _ in TOPICS]
    assert all(entry["defer_loading"] is True for entry in deferred)
    assert all("cache_control" not in entry for entry in deferred)
    assert all(not entry.get("defer_loading") for entry in tools[:search_at])
    assert SEARCH_TOOLS not in names
    assert "request_tools" not in names


def test_a_deferred_tool_is_admitted_at_its_first_call_then_runs(server: WireServer) -> None:
    """The first call is admitted through the door (on the record) before the tool runs."""
    RAN.clear()
    hub = ToolHub()
    granting = Rule.grant()
    hub.register_admission(None, "read_weather_forecast", granting)
    server.replies.append(searched_and_called("read_weather_forecast"))
    server.replies.append(reply({"type": "text", "text": "Sunny."}, stop_reason="end_turn"))
    assert run_against(server, hub) == "Sunny."
    assert RAN == ["read_weather_forecast"]
    assert granting.asked, "the admission rule was asked at the first call"
    assert [(e.name, e.granted) for e in hub.admission_record] == [("read_weather_forecast", True)]
    (result,) = tool_results(server, 1)
    assert result["content"] == "read_weather_forecast: lisbon"
    assert not result["is_error"]
    # The tool list the provider was sent did not change with the admission.
    assert server.requests[1].json()["tools"] == server.requests[0].json()["tools"]


def test_the_tool_search_blocks_are_sent_back_verbatim_on_the_next_request(
    server: WireServer,
) -> None:
    """The search's server_tool_use and result come back in order, so its tools stay loaded."""
    RAN.clear()
    server.replies.append(searched_and_called("read_weather_forecast"))
    server.replies.append(reply({"type": "text", "text": "Sunny."}, stop_reason="end_turn"))
    assert run_against(server, ToolHub()) == "Sunny."
    messages = server.requests[1].json()["messages"]
    assistant = messages[-2]
    assert assistant["role"] == "assistant"
    assert [block["type"] for block in assistant["content"]] == [
        "server_tool_use",
        "tool_search_tool_result",
        "tool_use",
    ]
    assert assistant["content"][0] == {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "tool_search_tool_bm25",
        "input": {"query": "read_weather_forecast"},
    }
    assert assistant["content"][1] == {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": "read_weather_forecast"}],
        },
    }
    assert RAN == ["read_weather_forecast"]


def test_a_refused_deferred_tool_gets_a_correctable_refusal_and_never_runs(
    server: WireServer,
) -> None:
    """A rule refusing the deferred tool answers its call with the reason; it does not run."""
    RAN.clear()
    hub = ToolHub()
    hub.register_admission(None, "send_email", Rule.refuse("no email from this agent"))
    server.replies.append(searched_and_called("send_email"))
    server.replies.append(reply({"type": "text", "text": "Cannot."}, stop_reason="end_turn"))
    assert run_against(server, hub) == "Cannot."
    assert RAN == []
    (result,) = tool_results(server, 1)
    assert result["is_error"]
    assert "no email from this agent" in result["content"]
    assert [(e.name, e.granted) for e in hub.admission_record] == [("send_email", False)]


def test_a_client_that_cannot_defer_falls_back_to_search_tools() -> None:
    """Offered "provider" through a client without deferral, the thinker gets search_tools."""
    model = ScriptedModel([answer("done")])
    thinker = Deferring(
        DECLARATION,
        hub=ToolHub(),
        catalog=fresh_catalog(),
        conversations=ConversationService(":memory:"),
        client=model,
    )
    asyncio.run(thinker.run("Help."))
    names = tool_names(model.requests[0])
    assert SEARCH_TOOLS in names
    assert not any(getattr(spec, "deferred", False) for spec in model.requests[0].tools)
    assert json.dumps(names).count("send_email") == 0
