"""``$NUCLEO_TRACE``: the ``nucleo`` commands' hubs are traced when it asks, and only then."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nucleo_core import ToolHub
from nucleo_core.telemetry import TRACE_ENVIRONMENT_VARIABLE, instrument_from_environment

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", ["", "0", " 0 "])
def test_unset_empty_or_zero_traces_nothing(value: str) -> None:
    hub = ToolHub()
    assert instrument_from_environment(hub, {TRACE_ENVIRONMENT_VARIABLE: value}) is None
    assert instrument_from_environment(hub, {}) is None
    assert hub.observer is None


@pytest.mark.parametrize(("value", "content"), [("1", False), ("content", True), ("CONTENT", True)])
def test_one_traces_and_content_records_content(value: str, content: bool) -> None:
    hub = ToolHub()
    observer = instrument_from_environment(hub, {TRACE_ENVIRONMENT_VARIABLE: value})
    assert observer is not None
    assert hub.observer is observer
    assert observer.record_content is content


def test_anything_else_is_refused_naming_what_it_may_be() -> None:
    hub = ToolHub()
    with pytest.raises(ValueError, match=r"must be 1 \(trace\), content .* or 0 \(off\)"):
        instrument_from_environment(hub, {TRACE_ENVIRONMENT_VARIABLE: "yes"})
    assert hub.observer is None


def nucleo(*arguments: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"NO_COLOR": "1", "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1"} | environment
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *arguments],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_command_refuses_a_wrong_value_with_one_error_line() -> None:
    done = nucleo("tools", NUCLEO_TRACE="yes")
    assert done.returncode == 2
    assert "Error: $NUCLEO_TRACE must be 1 (trace)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_command_traced_with_no_tracer_provider_warns_that_spans_go_nowhere() -> None:
    done = nucleo("tools", NUCLEO_TRACE="1")
    assert done.returncode == 0, done.stderr
    assert "Warning: $NUCLEO_TRACE is set but no OpenTelemetry tracer provider is" in done.stderr


#: A process set up as ``opentelemetry-instrument`` leaves it (a global SDK tracer provider),
#: whose commands' hub runs a thinker; the spans' names are printed.
TRACED_COMMAND_HUB = """
    import asyncio

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)

    from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, tool
    from nucleo_core.cli.hub import loaded_hub
    from nucleo_core.conversations import ConversationService
    from nucleo_core.models import ModelCatalog, ModelResponse, StopReason, ToolUseBlock
    from nucleo_core.testing import ScriptedModel

    @tool(read_only=True, risk="low")
    def lookup(key: str) -> str:
        "Look a key up."
        return key

    class Lead(SingleObjectiveThinker[str, str]):
        @classmethod
        def declare_default_tools(cls):
            return [lookup]

    def script(request):
        if len(request.messages) == 1:
            block = ToolUseBlock(id="call-1", name="lookup", input={"key": "a"})
            return ModelResponse(content=(block,), stop_reason=StopReason.TOOL_USE)
        return "done"

    lead = Lead(
        ThinkerDeclaration("standard", "short"),
        hub=loaded_hub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(":memory:"),
        client=ScriptedModel(script),
    )
    assert asyncio.run(lead.run("Go.")) == "done"
    print(sorted(span.name for span in exporter.get_finished_spans()))
"""


def test_a_command_s_hub_is_traced_to_the_global_tracer_provider() -> None:
    env = os.environ | {"NUCLEO_TRACE": "1", "NUCLEO_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(TRACED_COMMAND_HUB)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names = done.stdout.strip()
    assert "'execute_tool lookup'" in names
    assert "'invoke_agent Lead'" in names
    assert "Warning" not in done.stderr
