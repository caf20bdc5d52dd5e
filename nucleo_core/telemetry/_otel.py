"""`OpenTelemetryObserver`: a run as OpenTelemetry spans, after the GenAI conventions.

Imported only by `nucleo_core.telemetry.instrument`: this is the one module of nucleo that
imports ``opentelemetry``.

The spans (the GenAI semantic conventions' names and attributes, ``nucleo.*`` for what they
do not name):

- ``invoke_agent {thinker class}`` (INTERNAL) for each run, current while it runs;
- ``chat {model}`` (CLIENT) for each request to a model, a child of its run;
- ``execute_tool {tool}`` (INTERNAL) for each tool call, a child of its run; a sub-thinker's
  run is a child of its ``sub_thinker`` call.

Grants, refusals, revocations and approvals are span events (``nucleo.grant``,
``nucleo.refusal``, ``nucleo.revocation``, ``nucleo.approval.requested``,
``nucleo.approval.decided``). Prompts, tool arguments and results are recorded only with
``record_content``; exception messages never are (only their type), as they may quote either.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from nucleo_core.errors import InvalidToolInput, PermissionDenied, RunPaused
from nucleo_core.models.messages import (
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.thinking._execution_report import CallStatus

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer
    from opentelemetry.util.types import AttributeValue

    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.guard.approvals import Approval
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.hub.admission import AdmissionEvent
    from nucleo_core.models.catalog import ModelEntry
    from nucleo_core.models.messages import Usage
    from nucleo_core.models.request import ModelRequest, ModelResponse
    from nucleo_core.telemetry.observer import AdmissionKind
    from nucleo_core.thinking._execution_report import CallOutcome
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["OpenTelemetryObserver"]

#: The longest requested name an admission event carries (a refused name may be the model's).
_NAME_LIMIT = 200


class OpenTelemetryObserver:
    """A `RunObserver` that writes each run as one OpenTelemetry trace (see the module).

    Args:
        tracer: Where the spans go.
        record_content: Also record prompts, answers, tool arguments and tool results
            (``gen_ai.input.messages``, ``gen_ai.output.messages``,
            ``gen_ai.system_instructions``, ``gen_ai.tool.call.arguments``,
            ``gen_ai.tool.call.result``).
    """

    __slots__ = ("record_content", "tracer")

    def __init__(self, tracer: Tracer, *, record_content: bool = False) -> None:
        self.tracer = tracer
        self.record_content = record_content

    def run_started(self, thinker: Any, conversation_id: str, *, resumed: bool) -> _RunTrace:
        """Start the run's ``invoke_agent`` span and make it current (see `RunObserver`)."""
        cls = type(thinker)
        span = self.tracer.start_span(
            f"invoke_agent {cls.__qualname__}",
            kind=SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": cls.__qualname__,
                "gen_ai.agent.id": f"{id(thinker):x}",
                "gen_ai.conversation.id": conversation_id,
                "nucleo.thinker.class": _qualified(cls),
                "nucleo.run.resumed": resumed,
            },
        )
        token = otel_context.attach(trace.set_span_in_context(span))
        return _RunTrace(span, token)

    def chat_started(self, seat: ModelEntry, request: ModelRequest) -> _ChatTrace:
        """Start one ``chat`` span, a child of the current run (see `RunObserver`)."""
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": seat.provider,
            "gen_ai.request.model": request.model,
            "gen_ai.request.max_tokens": request.max_tokens,
            "nucleo.model.entry": seat.id,
        }
        if self.record_content:
            if request.system:
                attributes["gen_ai.system_instructions"] = _json(
                    [{"type": "text", "content": request.system}]
                )
            attributes["gen_ai.input.messages"] = _json(
                [_message_data(message) for message in request.messages]
            )
        span = self.tracer.start_span(
            f"chat {request.model}", kind=SpanKind.CLIENT, attributes=attributes
        )
        return _ChatTrace(span, self.record_content)

    def tool_call(self, call: ToolCall, thinker: Any) -> _CallTrace:
        """Start one ``execute_tool`` span, a child of the current run (see `RunObserver`)."""
        del thinker  # the run's span names it
        # The name the call resolved to; a name no tool has is the model's, and left out.
        name = call.provider.name if call.provider is not None else None
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.id": call.id,
        }
        if name is not None:
            attributes["gen_ai.tool.name"] = name
        if self.record_content:
            attributes["gen_ai.tool.call.arguments"] = _json(call.raw_input)
        span = self.tracer.start_span(
            f"execute_tool {name}" if name else "execute_tool",
            kind=SpanKind.INTERNAL,
            attributes=attributes,
        )
        return _CallTrace(span, self.record_content)

    def admission(self, thinker: Any, event: AdmissionEvent, kind: AdmissionKind) -> None:
        """Add the admission to the current span as an event (see `RunObserver`).

        Outside any span (an admission asked for outside a run), it gets a span of its own,
        ``nucleo.admission``, so that no grant or refusal goes unrecorded.
        """
        attributes: dict[str, AttributeValue] = {
            "nucleo.admission.subject": event.kind,
            "nucleo.thinker.class": _qualified(type(thinker)),
            ("gen_ai.tool.name" if event.kind == "tool" else "nucleo.skill.name"): event.name[
                :_NAME_LIMIT
            ],
        }
        if kind == "refusal":
            attributes["nucleo.refusal.stage"] = "admission"
        if kind != "grant":
            attributes["nucleo.refusal.reason"] = event.reason
            refused_by = [outcome.guardrail for outcome in event.outcomes if outcome.refuses]
            if refused_by:
                attributes["nucleo.admission.rules"] = refused_by
        span = trace.get_current_span()
        if span.is_recording():
            span.add_event(f"nucleo.{kind}", attributes)
            return
        with self.tracer.start_as_current_span("nucleo.admission") as own:
            own.add_event(f"nucleo.{kind}", attributes)


class _RunTrace:
    __slots__ = ("_span", "_token")

    def __init__(self, span: Span, token: contextvars.Token[Context]) -> None:
        self._span = span
        self._token = token

    def ended(self, usage: Usage, error: BaseException | None) -> None:
        span = self._span
        span.set_attributes(_usage(usage))
        if error is None:
            span.set_attribute("nucleo.run.outcome", "answered")
        elif isinstance(error, RunPaused):
            # A pause is not a failure: the run waits for a person (`RunPaused`).
            span.set_attribute("nucleo.run.outcome", "paused")
            span.set_attribute("nucleo.run.pending_approvals", len(error.approvals))
        else:
            # Not an Exception: a cancellation (or an interpreter exit), not a failure of its own.
            outcome = "failed" if isinstance(error, Exception) else "cancelled"
            span.set_attribute("nucleo.run.outcome", outcome)
            _failed(span, error)
        span.end()
        otel_context.detach(self._token)


class _ChatTrace:
    __slots__ = ("_content", "_span")

    def __init__(self, span: Span, content: bool) -> None:
        self._span = span
        self._content = content

    def answered(self, response: ModelResponse) -> None:
        span = self._span
        reason = response.raw_stop_reason or response.stop_reason.value
        span.set_attribute("gen_ai.response.finish_reasons", [reason])
        if response.model:
            span.set_attribute("gen_ai.response.model", response.model)
        span.set_attributes(_usage(response.usage))
        if self._content:
            output = _message_data(response.as_message()) | {"finish_reason": reason}
            span.set_attribute("gen_ai.output.messages", _json([output]))
        span.end()

    def failed(self, error: BaseException) -> None:
        _failed(self._span, error)
        self._span.end()


class _CallTrace:
    __slots__ = ("_content", "_span")

    def __init__(self, span: Span, content: bool) -> None:
        self._span = span
        self._content = content

    def context(self) -> contextvars.Context:
        copied = contextvars.copy_context()
        # Attached inside the copy only: the caller's context is left as it was, and the
        # attachment ends with the task that runs in the copy.
        copied.run(otel_context.attach, trace.set_span_in_context(self._span))
        return copied

    def approval_requested(self, approval_id: str, *, durable: bool) -> None:
        self._span.add_event(
            "nucleo.approval.requested",
            {"nucleo.approval.id": approval_id, "nucleo.approval.durable": durable},
        )

    def approval_decided(self, approval_id: str, approval: Approval | None) -> None:
        attributes: dict[str, AttributeValue] = {"nucleo.approval.id": approval_id}
        if approval is None:
            attributes["nucleo.approval.outcome"] = "pending"
        else:
            attributes["nucleo.approval.outcome"] = (
                "approved" if approval.approved else "deferred" if approval.deferred else "rejected"
            )
            if approval.reason:
                attributes["nucleo.approval.reason"] = approval.reason
        self._span.add_event("nucleo.approval.decided", attributes)

    def approval_resolved(self, record: ApprovalRecord) -> None:
        # A call refused on its stored approval never reaches the door: name it from the record.
        self._span.update_name(f"execute_tool {record.tool}")
        self._span.set_attribute("gen_ai.tool.name", record.tool)
        status = record.status_at()
        attributes: dict[str, AttributeValue] = {
            "nucleo.approval.id": record.id,
            # Consumed: approved, and claimed by a run (this one or one before it).
            "nucleo.approval.outcome": "approved" if status == "consumed" else status,
            "nucleo.approval.durable": True,
        }
        if record.decided_by:
            attributes["nucleo.approval.decided_by"] = record.decided_by
        if record.reason:
            attributes["nucleo.approval.reason"] = record.reason
        self._span.add_event("nucleo.approval.decided", attributes)

    def finished(
        self,
        outcome: CallOutcome,
        provider: ToolProvider | None,
        permission: PermissionDecision | None,
    ) -> None:
        span = self._span
        status = outcome.status
        error = outcome.error
        if provider is not None:
            span.update_name(f"execute_tool {provider.name}")
            span.set_attributes(
                {
                    "gen_ai.tool.name": provider.name,
                    "gen_ai.tool.description": provider.description,
                    "nucleo.tool.source": provider.source,
                    # Undeclared risk counts as high, as the guard counts it.
                    "nucleo.tool.risk": provider.risk.value if provider.risk_declared else "high",
                    "nucleo.tool.risk_declared": provider.risk_declared,
                    "nucleo.tool.read_only": provider.read_only,
                }
            )
        denied = error if isinstance(error, PermissionDenied) else None
        # Refused by its approval: by a person, or for want of one (only a confirm asks one).
        by_approval = denied is not None and (
            permission is not None or denied.decided_by == "approval"
        )
        if permission is not None:
            span.set_attribute("nucleo.permission.decision", permission.decision.value)
            span.set_attribute("nucleo.permission.rule", permission.decided_by)
        elif by_approval:
            span.set_attribute("nucleo.permission.decision", "confirm")
        elif denied is not None:
            span.set_attribute("nucleo.permission.decision", "deny")
            span.set_attribute("nucleo.permission.rule", denied.decided_by)
        span.set_attribute("nucleo.call.outcome", status.value)
        if status in (CallStatus.REFUSED, CallStatus.INVALID):
            stage = (
                "input"
                if isinstance(error, InvalidToolInput)
                else "approval"
                if by_approval
                else "permission"
                if denied is not None
                else "door"
            )
            # The refusal's text is the model's: it names the tool and never an argument.
            span.add_event(
                "nucleo.refusal",
                {"nucleo.refusal.stage": stage, "nucleo.refusal.reason": outcome.result.content},
            )
        if self._content and status is not CallStatus.PENDING:
            span.set_attribute("gen_ai.tool.call.result", outcome.result.content)
        if status is CallStatus.OK and outcome.result.is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR, "the tool's result is an error"))
        elif status not in (CallStatus.OK, CallStatus.PENDING):
            if error is not None:
                _failed(span, error)
            else:
                span.set_attribute("error.type", status.value)
                span.set_status(Status(StatusCode.ERROR, status.value))
        span.end()


def _failed(span: Span, error: BaseException) -> None:
    """Mark ``span`` failed by ``error``'s type; its message may quote content, so it is not."""
    kind = _qualified(type(error))
    span.set_attribute("error.type", kind)
    span.set_status(Status(StatusCode.ERROR, kind))


def _usage(usage: Usage) -> dict[str, AttributeValue]:
    counts: dict[str, AttributeValue] = {
        "gen_ai.usage.input_tokens": usage.input_tokens,
        "gen_ai.usage.output_tokens": usage.output_tokens,
    }
    if usage.cache_read_tokens:
        counts["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read_tokens
    if usage.cache_write_tokens:
        counts["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write_tokens
    return counts


def _message_data(message: Message) -> dict[str, Any]:
    """A message in the conventions' shape: a role and its parts."""
    parts: list[dict[str, Any]] = []
    results = False
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "content": block.text})
        elif isinstance(block, ToolUseBlock):
            parts.append(
                {"type": "tool_call", "id": block.id, "name": block.name, "arguments": block.input}
            )
        elif isinstance(block, ToolResultBlock):
            results = True
            parts.append(
                {"type": "tool_call_response", "id": block.tool_use_id, "response": block.content}
            )
        elif isinstance(block, ReasoningBlock) and not block.redacted:
            parts.append({"type": "reasoning", "content": block.text})
    return {"role": "tool" if results else message.role, "parts": parts}


def _json(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), ensure_ascii=False, default=str)


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_plain(item) for item in value]
    return value


def _qualified(cls: type[Any]) -> str:
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"
