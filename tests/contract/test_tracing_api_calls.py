"""A tool called through the HTTP API or the MCP gateway is traced like a thinker's call."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from nucleo_core import ThinkerBase, ToolHub, tool
from nucleo_core.guard import PermissionPolicy, PermissionRule
from nucleo_core.guard.approval_store import MemoryApprovalStore
from nucleo_core.server.errors import ApiError
from nucleo_core.server.executions import Executions
from nucleo_core.telemetry import instrument
from nucleo_core.tools import FunctionToolProvider


@tool(read_only=True, risk="low")
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@tool(risk="low")
def wipe(table: str) -> str:
    """Wipe a table."""
    return f"wiped {table}"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exported = InMemorySpanExporter()
    yield exported
    exported.clear()


def executions(hub: ToolHub) -> Executions:
    served = Executions(hub, MemoryApprovalStore(), expiry=60)
    served.serve([FunctionToolProvider(lookup), FunctionToolProvider(wipe)])
    return served


def traced(exporter: InMemorySpanExporter) -> ToolHub:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    freeze = PermissionRule(decision="deny", tool="wipe", reason="wipes are frozen", name="freeze")
    hub = ToolHub(guard=PermissionPolicy([freeze]))
    instrument(hub, tracer_provider=provider)
    return hub


def spans_named(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.name == name]


def test_an_api_call_is_an_execute_tool_span_with_the_guard_s_decision(
    exporter: InMemorySpanExporter,
) -> None:
    served = executions(traced(exporter))
    provider = served.caller.registry.available("lookup")
    assert provider is not None

    asyncio.run(served.execute(provider, {"key": "k1"}, "ops-token"))

    (span,) = spans_named(exporter, "execute_tool lookup")
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.tool.name"] == "lookup"
    assert attributes["nucleo.permission.decision"] == "auto"
    assert attributes["nucleo.call.outcome"] == "ok"
    assert "k1" not in repr(attributes)  # content is left out unless asked for


def test_an_api_call_the_guard_denies_is_a_refused_span(exporter: InMemorySpanExporter) -> None:
    served = executions(traced(exporter))
    provider = served.caller.registry.available("wipe")
    assert provider is not None

    with pytest.raises(ApiError) as raised:
        asyncio.run(served.execute(provider, {"table": "users"}, "ops-token"))
    assert raised.value.status == 403

    (span,) = spans_named(exporter, "execute_tool wipe")
    assert span.attributes is not None
    assert span.attributes["nucleo.permission.decision"] == "deny"
    assert span.attributes["nucleo.call.outcome"] == "refused"
    assert span.status.status_code is StatusCode.ERROR


def test_an_untraced_hub_s_api_calls_make_no_spans(exporter: InMemorySpanExporter) -> None:
    served = executions(ToolHub())
    provider = served.caller.registry.available("lookup")
    assert provider is not None

    asyncio.run(served.execute(provider, {"key": "k1"}, "ops-token"))

    assert exporter.get_finished_spans() == ()


class Desk(ThinkerBase):
    """The gateway profile's thinker: it holds lookup."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [lookup]


def test_a_gateway_client_s_call_is_an_execute_tool_span(exporter: InMemorySpanExporter) -> None:
    """A tool called by an MCP client through the gateway is traced when the hub is."""
    from nucleo_core.gateway.client import GatewayClient
    from nucleo_core.gateway.identity import ClientIdentity

    client = GatewayClient(
        traced(exporter),
        Desk,
        ClientIdentity.of("an-editor", "1.0"),
        profile="default",
        approvals=MemoryApprovalStore(),
        approval_expiry=60,
    )
    assert "lookup" in client.listed_names()

    answer = asyncio.run(client.call("lookup", {"key": "k2"}))

    assert answer.outcome is not None
    assert answer.outcome.result.content == "value of k2"
    (span,) = spans_named(exporter, "execute_tool lookup")
    assert span.attributes is not None
    assert span.attributes["nucleo.permission.decision"] == "auto"
    assert span.attributes["nucleo.call.outcome"] == "ok"
