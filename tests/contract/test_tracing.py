"""Tracing (issue 15, acceptance 4): a run is one OpenTelemetry trace, after the GenAI conventions.

A lead thinker asks for two catalog tools (one granted, one refused by an admission rule),
then calls a low-risk tool, a high-risk one an inline approver approves, one the policy
denies, and a sub-thinker that makes a call of its own. The spans are read from the SDK's
in-memory exporter; nothing of nucleo is replaced.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _hub_kit import Rule
from _loop_kit import Archive, Define, Lookup, WriteRecord, answer, call, calls, make
from _loop_kit import is_sub_thinker_request as from_sub_thinker
from _reactive_kit import Chat
from _reactive_kit import make as make_reactive
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from nucleo_core import ToolHub, ToolSelector
from nucleo_core.errors import ModelServerError, RunPaused
from nucleo_core.guard import PermissionPolicy, PermissionRule
from nucleo_core.guard.approvals import Approval, ApprovalRequest, Approver
from nucleo_core.hub import REQUEST_TOOLS
from nucleo_core.models import ModelRequest, ModelResponse, Usage
from nucleo_core.telemetry import instrument, uninstrument
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SUB_THINKER

REPO = Path(__file__).resolve().parents[2]
#: A secret the model sends as an argument: content, never on a span unless asked for.
SECRET = "s3cret-key-7781"


class Lead(SingleObjectiveThinker[str, str]):
    """Lookup and write_record by default; define and archive in its catalog."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Archive])


class Keeper(SingleObjectiveThinker[str, str]):
    """Archive (high risk: confirm) by default."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Archive]


def script(request: ModelRequest) -> ModelResponse:
    """The lead: ask for tools, call four, answer; its sub-thinker: one lookup, then answer."""
    turn = len(request.messages)
    if from_sub_thinker(request):
        if turn == 1:
            return calls(
                call("lookup", {"key": "sub"}, id="sub-lookup"),
                usage=Usage(input_tokens=3, output_tokens=2),
            )
        return answer({"answer": "the sub is done"}, usage=Usage(input_tokens=5, output_tokens=1))
    if turn == 1:
        ask = call(REQUEST_TOOLS, {"tools": ["archive", "define"]}, id="ask")
        return calls(ask, usage=Usage(input_tokens=10, output_tokens=4))
    if turn == 3:
        return calls(
            call("lookup", {"key": SECRET}, id="look"),
            call("archive", {"key": "old"}, id="arch"),
            call("write_record", {"key": "new"}, id="write"),
            call(SUB_THINKER, {"objective": "Look one thing up."}, id="delegate"),
            usage=Usage(input_tokens=20, output_tokens=8),
        )
    return answer("all done", usage=Usage(input_tokens=30, output_tokens=3))


def approve(request: ApprovalRequest) -> Approval:
    """The inline approver: yes to archive, with a reason."""
    return Approval(request.tool == "archive", "archiving is fine today")


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exported = InMemorySpanExporter()
    yield exported
    exported.clear()


def traced_hub(exporter: InMemorySpanExporter, **options: Any) -> ToolHub:
    """A hub whose runs are traced into ``exporter`` (``options`` are the hub's)."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    hub = ToolHub(**options)
    instrument(hub, tracer_provider=provider)
    return hub


def traced_run(
    exporter: InMemorySpanExporter, *, approver: Approver = approve, record_content: bool = False
) -> list[ReadableSpan]:
    """One run of the lead on a traced hub; its finished spans, in the order they ended."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    freeze = PermissionRule(
        decision="deny", tool="write_record", reason="writes are frozen", name="freeze"
    )
    hub = ToolHub(guard=PermissionPolicy([freeze]), approver=approver)
    hub.register_admission(Lead, "define", Rule.refuse("define is not for leads"))
    instrument(hub, tracer_provider=provider, record_content=record_content)
    lead = make(Lead, ScriptedModel(script), hub=hub)
    assert asyncio.run(lead.run("Tidy the records.")) == "all done"
    return spans_of(exporter)


def spans_of(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return list(exporter.get_finished_spans())


def children_of(parent: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    """The names of ``parent``'s child spans, sorted."""
    return sorted(
        span.name
        for span in spans
        if span.parent is not None and span.parent.span_id == parent.context.span_id
    )


def events(span: ReadableSpan) -> list[tuple[str, dict[str, Any]]]:
    return [(event.name, dict(event.attributes or {})) for event in span.events]


def one(spans: list[ReadableSpan], name: str, **attributes: Any) -> ReadableSpan:
    """The one span named ``name`` whose attributes include ``attributes``."""
    found = [
        span
        for span in spans
        if span.name == name
        and all((span.attributes or {}).get(key) == value for key, value in attributes.items())
    ]
    assert len(found) == 1, (name, attributes, [span.name for span in spans])
    return found[0]


def test_one_run_is_one_trace_its_sub_thinker_inside_its_call(
    exporter: InMemorySpanExporter,
) -> None:
    """Run, model calls, tool calls and the sub-thinker's run share one trace, parented as run."""
    spans = traced_run(exporter)

    assert len(spans) == 13
    assert len({span.context.trace_id for span in spans}) == 1
    lead = one(spans, "invoke_agent Lead")
    assert lead.parent is None
    assert children_of(lead, spans) == [
        *["chat grade-model"] * 3,
        "execute_tool archive",
        "execute_tool lookup",
        "execute_tool request_tools",
        "execute_tool sub_thinker",
        "execute_tool write_record",
    ]
    delegation = one(spans, "execute_tool sub_thinker")
    assert children_of(delegation, spans) == ["invoke_agent SubThinker"]
    sub = one(spans, "invoke_agent SubThinker")
    assert children_of(sub, spans) == [*["chat grade-model"] * 2, "execute_tool lookup"]
    sub_lookup = one(spans, "execute_tool lookup", **{"gen_ai.tool.call.id": "sub-lookup"})
    assert sub_lookup.parent is not None
    assert sub_lookup.parent.span_id == sub.context.span_id
    assert lead.kind is sub.kind is SpanKind.INTERNAL
    assert lead.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert lead.attributes["gen_ai.agent.name"] == "Lead"
    assert lead.attributes["nucleo.run.outcome"] == "answered"
    assert sub.attributes["gen_ai.conversation.id"] != lead.attributes["gen_ai.conversation.id"]


def test_model_calls_carry_the_model_the_provider_and_the_tokens(
    exporter: InMemorySpanExporter,
) -> None:
    """Each chat span names model and provider and counts tokens; a run adds up its sub's too."""
    spans = traced_run(exporter)

    chats = [span for span in spans if span.name == "chat grade-model"]
    assert len(chats) == 5
    for chat in chats:
        assert chat.kind is SpanKind.CLIENT
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.provider.name"] == "anthropic"
        assert chat.attributes["gen_ai.request.model"] == "grade-model"
    used = sorted(
        (
            chat.attributes["gen_ai.usage.input_tokens"],
            chat.attributes["gen_ai.usage.output_tokens"],
            chat.attributes["gen_ai.response.finish_reasons"],
        )
        for chat in chats
    )
    assert used == [
        (3, 2, ("tool_use",)),
        (5, 1, ("end_turn",)),
        (10, 4, ("tool_use",)),
        (20, 8, ("tool_use",)),
        (30, 3, ("end_turn",)),
    ]
    sub = one(spans, "invoke_agent SubThinker")
    lead = one(spans, "invoke_agent Lead")
    assert (
        sub.attributes["gen_ai.usage.input_tokens"],
        sub.attributes["gen_ai.usage.output_tokens"],
    ) == (8, 3)
    assert (
        lead.attributes["gen_ai.usage.input_tokens"],
        lead.attributes["gen_ai.usage.output_tokens"],
    ) == (68, 18)


def test_tool_calls_carry_their_tool_call_id_source_risk_and_the_guard_s_decision(
    exporter: InMemorySpanExporter,
) -> None:
    """An execute_tool span names tool, call, declared risk, the guard's decision, the outcome."""
    spans = traced_run(exporter)

    looked = one(spans, "execute_tool lookup", **{"gen_ai.tool.call.id": "look"})
    assert looked.kind is SpanKind.INTERNAL
    assert dict(looked.attributes or {}) | {"gen_ai.tool.description": "-"} == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "look",
        "gen_ai.tool.description": "-",
        "nucleo.tool.source": "native:lookup",
        "nucleo.tool.risk": "low",
        "nucleo.tool.risk_declared": True,
        "nucleo.tool.read_only": True,
        "nucleo.permission.decision": "auto",
        "nucleo.permission.rule": "default:risk=low",
        "nucleo.call.outcome": "ok",
    }
    assert looked.status.status_code is StatusCode.UNSET
    assert looked.events == ()

    denied = one(spans, "execute_tool write_record")
    assert denied.attributes["nucleo.permission.decision"] == "deny"
    assert denied.attributes["nucleo.permission.rule"] == "rule:freeze"
    assert denied.attributes["nucleo.call.outcome"] == "refused"
    assert denied.attributes["error.type"] == "nucleo_core.errors.PermissionDenied"
    assert denied.status.status_code is StatusCode.ERROR
    ((name, said),) = events(denied)
    assert name == "nucleo.refusal"
    assert said["nucleo.refusal.stage"] == "permission"
    assert "writes are frozen" in said["nucleo.refusal.reason"]


def test_an_approval_is_asked_and_decided_on_the_call_it_is_for(
    exporter: InMemorySpanExporter,
) -> None:
    """The confirm-level call's span holds its approval's request and decision, under one id."""
    spans = traced_run(exporter)

    archived = one(spans, "execute_tool archive")
    assert archived.attributes["nucleo.tool.risk"] == "high"
    assert archived.attributes["nucleo.permission.decision"] == "confirm"
    assert archived.attributes["nucleo.call.outcome"] == "ok"
    (asked, asked_with), (decided, decided_with) = events(archived)
    assert (asked, decided) == ("nucleo.approval.requested", "nucleo.approval.decided")
    assert asked_with["nucleo.approval.id"] == decided_with["nucleo.approval.id"]
    assert asked_with["nucleo.approval.durable"] is False
    assert decided_with["nucleo.approval.outcome"] == "approved"
    assert decided_with["nucleo.approval.reason"] == "archiving is fine today"


def test_a_rejected_approval_is_a_refusal_of_the_call(exporter: InMemorySpanExporter) -> None:
    """An approver's no is the decision event, then a refusal at the approval stage."""

    def reject(request: ApprovalRequest) -> Approval:
        return Approval(False, "not today")

    spans = traced_run(exporter, approver=reject)

    archived = one(spans, "execute_tool archive")
    assert archived.attributes["nucleo.call.outcome"] == "refused"
    assert archived.status.status_code is StatusCode.ERROR
    (_, (_, decided), (refusal, refused)) = events(archived)
    assert decided["nucleo.approval.outcome"] == "rejected"
    assert refusal == "nucleo.refusal"
    assert refused["nucleo.refusal.stage"] == "approval"
    assert "not today" in refused["nucleo.refusal.reason"]


def test_grants_and_refusals_of_admission_are_events_of_the_call_that_asked(
    exporter: InMemorySpanExporter,
) -> None:
    """request_tools' span holds the grant of archive and the refusal of define, with its rule."""
    spans = traced_run(exporter)

    asked = one(spans, "execute_tool request_tools")
    (granted, grant), (refused, refusal) = events(asked)
    assert granted == "nucleo.grant"
    assert grant["gen_ai.tool.name"] == "archive"
    assert refused == "nucleo.refusal"
    assert refusal["gen_ai.tool.name"] == "define"
    assert refusal["nucleo.refusal.stage"] == "admission"
    assert refusal["nucleo.refusal.reason"] == "define is not for leads"
    assert refusal["nucleo.admission.rules"] == ("tool rule Rule for define",)


def test_a_chat_turn_is_one_trace_too(exporter: InMemorySpanExporter) -> None:
    """A ChatThinker's turn (its own run loop) is an invoke_agent span over its calls."""
    model = ScriptedModel([calls(call("lookup", {"query": "tides"}, id="tides")), "High at six."])
    chat = make_reactive(model, ":memory:", Chat)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(chat.hub, tracer_provider=provider)

    assert asyncio.run(chat.run("When is high tide?")) == "High at six."

    spans = spans_of(exporter)
    turn = one(spans, "invoke_agent Chat")
    assert turn.parent is None
    assert turn.attributes["nucleo.run.outcome"] == "answered"
    assert children_of(turn, spans) == [*["chat scripted"] * 2, "execute_tool lookup"]
    assert len(spans) == 4


def test_an_admission_outside_any_run_gets_a_span_of_its_own(
    exporter: InMemorySpanExporter,
) -> None:
    """A grant asked for in code, outside a run, is still traced: a nucleo.admission span."""
    lead = make(Lead, ScriptedModel(), hub=traced_hub(exporter))
    lead.reconcile_tool_registry()

    assert lead.request_tools(["archive"]).granted == ("archive",)

    (span,) = spans_of(exporter)
    assert span.name == "nucleo.admission"
    ((name, grant),) = events(span)
    assert name == "nucleo.grant"
    assert grant["gen_ai.tool.name"] == "archive"


CONTENT_KEYS = {
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
}


def every_value(spans: list[ReadableSpan]) -> str:
    """Every attribute and event attribute of ``spans``, as one text."""
    said = [dict(span.attributes or {}) for span in spans]
    said += [dict(event.attributes or {}) for span in spans for event in span.events]
    return json.dumps(said, default=str)


def test_prompts_arguments_and_results_are_left_out_by_default(
    exporter: InMemorySpanExporter,
) -> None:
    """Without record_content no span carries a prompt, an argument or a result."""
    spans = traced_run(exporter)

    assert not {key for span in spans for key in span.attributes or {}} & CONTENT_KEYS
    assert SECRET not in every_value(spans)
    assert "Tidy the records" not in every_value(spans)


def test_record_content_puts_prompts_arguments_and_results_on_the_spans(
    exporter: InMemorySpanExporter,
) -> None:
    """With record_content=True the conventions' content attributes are there, as JSON."""
    spans = traced_run(exporter, record_content=True)

    looked = one(spans, "execute_tool lookup", **{"gen_ai.tool.call.id": "look"})
    assert json.loads(looked.attributes["gen_ai.tool.call.arguments"]) == {"key": SECRET}
    assert looked.attributes["gen_ai.tool.call.result"] == f"{SECRET} means 42"
    first = min(
        (span for span in spans if span.name.startswith("chat")), key=lambda s: s.start_time or 0
    )
    (prompt,) = json.loads(first.attributes["gen_ai.input.messages"])
    assert prompt == {"role": "user", "parts": [{"type": "text", "content": "Tidy the records."}]}
    (output,) = json.loads(first.attributes["gen_ai.output.messages"])
    assert output["role"] == "assistant"
    assert output["finish_reason"] == "tool_use"
    assert output["parts"][0]["type"] == "tool_call"
    assert output["parts"][0]["name"] == REQUEST_TOOLS


def test_a_paused_run_ends_its_trace_as_paused_with_the_call_pending(
    exporter: InMemorySpanExporter,
) -> None:
    """A durable run no approver decides: the call waits (pending), the run span says paused."""
    hub = traced_hub(exporter)
    model = ScriptedModel([calls(call("archive", {"key": "old"}, id="arch"))])
    lead = make(Keeper, model, hub=hub)

    with pytest.raises(RunPaused):
        asyncio.run(lead.run("Archive it.", durable=True))

    spans = spans_of(exporter)
    run = one(spans, "invoke_agent Keeper")
    assert run.attributes["nucleo.run.outcome"] == "paused"
    assert run.attributes["nucleo.run.pending_approvals"] == 1
    assert run.status.status_code is StatusCode.UNSET  # a pause is no failure
    archived = one(spans, "execute_tool archive")
    assert archived.attributes["nucleo.call.outcome"] == "pending"
    assert archived.status.status_code is StatusCode.UNSET
    (_, asked), (_, decided) = events(archived)
    assert asked["nucleo.approval.durable"] is True
    assert decided["nucleo.approval.outcome"] == "pending"


def test_a_resumed_run_traces_the_approvals_decided_elsewhere(
    exporter: InMemorySpanExporter,
) -> None:
    """Resumed, the approved call shows who approved it and runs; the rejected one is refused."""
    hub = traced_hub(exporter)
    model = ScriptedModel(
        [
            calls(
                call("archive", {"key": "a"}, id="arch-a"),
                call("archive", {"key": "b"}, id="arch-b"),
            ),
            answer("archived a"),
        ]
    )
    keeper = make(Keeper, model, hub=hub)
    with pytest.raises(RunPaused) as paused:
        asyncio.run(keeper.run("Archive a and b.", durable=True))
    first, second = paused.value.approvals
    store = keeper.approval_store()
    store.approve(first.id, by="ana")
    store.reject(second.id, "b stays", by="bo")
    exporter.clear()

    assert asyncio.run(keeper.resume(paused.value.conversation_id)) == "archived a"

    spans = spans_of(exporter)
    run = one(spans, "invoke_agent Keeper")
    assert run.attributes["nucleo.run.resumed"] is True
    assert run.attributes["nucleo.run.outcome"] == "answered"
    ran = one(spans, "execute_tool archive", **{"gen_ai.tool.call.id": "arch-a"})
    assert ran.attributes["nucleo.call.outcome"] == "ok"
    ((name, approved),) = events(ran)
    assert name == "nucleo.approval.decided"
    assert approved["nucleo.approval.id"] == first.id
    assert approved["nucleo.approval.outcome"] == "approved"
    assert approved["nucleo.approval.decided_by"] == "ana"
    refused = one(spans, "execute_tool archive", **{"gen_ai.tool.call.id": "arch-b"})
    assert refused.attributes["nucleo.call.outcome"] == "refused"
    assert refused.attributes["nucleo.permission.decision"] == "confirm"
    assert refused.status.status_code is StatusCode.ERROR
    (_, rejected), (_, refusal) = events(refused)
    assert rejected["nucleo.approval.outcome"] == "rejected"
    assert rejected["nucleo.approval.decided_by"] == "bo"
    assert refusal["nucleo.refusal.stage"] == "approval"
    assert "b stays" in refusal["nucleo.refusal.reason"]
    assert {span.parent.span_id for span in (ran, refused) if span.parent} == {run.context.span_id}


def test_a_failing_model_call_marks_its_span_and_its_run_with_the_error_type(
    exporter: InMemorySpanExporter,
) -> None:
    """A provider error ends the chat and the run spans as errors, naming only its type."""
    hub = traced_hub(exporter)
    failing = ModelServerError(f"overloaded; key {SECRET}", provider="anthropic")
    lead = make(Lead, ScriptedModel([failing]), hub=hub)

    with pytest.raises(ModelServerError):
        asyncio.run(lead.run("Tidy the records."))

    spans = spans_of(exporter)
    for span in (one(spans, "chat grade-model"), one(spans, "invoke_agent Lead")):
        assert span.attributes["error.type"] == "nucleo_core.errors.ModelServerError"
        assert span.status.status_code is StatusCode.ERROR
    assert one(spans, "invoke_agent Lead").attributes["nucleo.run.outcome"] == "failed"
    assert SECRET not in every_value(spans) + json.dumps(
        [span.status.description for span in spans]
    )


def test_uninstrument_stops_tracing_from_the_next_run(exporter: InMemorySpanExporter) -> None:
    """After uninstrument(hub) a run leaves no span and the hub has no observer."""
    hub = traced_hub(exporter)
    uninstrument(hub)
    lead = make(Lead, ScriptedModel([answer("done")]), hub=hub)

    assert asyncio.run(lead.run("Nothing.")) == "done"
    assert hub.observer is None
    assert spans_of(exporter) == []


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"record_content": "yes"}, "record_content must be True or False"),
        ({"tracer_provider": object()}, "tracer_provider must be an OpenTelemetry TracerProvider"),
        ({"hub": "default"}, "hub must be a ToolHub"),
    ],
)
def test_instrument_refuses_what_it_cannot_use(arguments: dict[str, Any], said: str) -> None:
    """A wrong argument is a TypeError that says what was expected, and no hub changes."""
    with pytest.raises(TypeError, match=said):
        instrument(**arguments)


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )


#: A program that runs a thinker (a tool call and a sub-thinker's run) untraced, then prints
#: the OpenTelemetry modules loaded; what runs before it is put in front of it.
UNTRACED_RUN = """
    import asyncio, sys

    from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
    from nucleo_core.conversations import ConversationService
    from nucleo_core.models import ModelCatalog, ModelResponse, StopReason, ToolUseBlock
    import nucleo_core.telemetry
    from nucleo_core.testing import ScriptedModel

    @tool(read_only=True, risk="low")
    def lookup(key: str) -> str:
        "Look a key up."
        return key

    class Lead(SingleObjectiveThinker[str, str]):
        @classmethod
        def declare_default_tools(cls):
            return [lookup]

    def use(name, arguments):
        block = ToolUseBlock(id=f"call-{name}", name=name, input=arguments)
        return ModelResponse(content=(block,), stop_reason=StopReason.TOOL_USE)

    def script(request):
        if request.system.startswith("You are a sub-thinker"):
            if len(request.messages) > 1:
                return '{"answer": "sub done"}'
            return use("lookup", {"key": "a"})
        if len(request.messages) == 1:
            return use("sub_thinker", {"objective": "Look a up."})
        return "done"

    lead = Lead(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(":memory:"),
        client=ScriptedModel(script),
    )
    assert asyncio.run(lead.run("Go.")) == "done"
    loaded = ("opentelemetry", "nucleo_core.telemetry._otel")
    print(sorted(name for name, mod in sys.modules.items() if mod and name.startswith(loaded)))
"""


def test_untraced_nucleo_never_imports_opentelemetry() -> None:
    """Importing nucleo (its telemetry package too) and running a thinker loads no OpenTelemetry."""
    done = run_python(UNTRACED_RUN)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_the_extra_nucleo_runs_and_instrument_says_what_to_install() -> None:
    """Without OpenTelemetry a run works, and instrument() raises TracingNotInstalled saying why."""
    done = run_python(
        "import sys\nsys.modules['opentelemetry'] = None  # as if the otel extra were absent\n"
        + textwrap.dedent(UNTRACED_RUN)
        + textwrap.dedent(
            """
            from nucleo_core.telemetry import TracingNotInstalled, instrument
            hub = ToolHub()
            try:
                instrument(hub)
            except TracingNotInstalled as exc:
                print(isinstance(exc, ImportError), hub.observer)
                print(exc)
            """
        )
    )

    assert done.returncode == 0, done.stderr
    imported, typed, said = done.stdout.splitlines()
    assert imported == "[]"
    assert typed == "True None"
    assert said.startswith("the OpenTelemetry API is not installed, so runs cannot be traced")
    assert "python3 -m pip install 'opentelemetry-api>=1.27,<2'" in said
    assert "python3 -m pip install '.[otel]'" in said
