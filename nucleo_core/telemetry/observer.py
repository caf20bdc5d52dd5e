"""`RunObserver`: the points of a run the core reports to, when someone observes it.

The core never imports a tracing library. It calls one observer, set on the hub
(``hub.observer``; `nucleo_core.telemetry.instrument` sets an OpenTelemetry one), at the
narrowest places a run has:

- a thinker's run starts and ends (`RunObserver.run_started`, `RunTrace.ended`), in
  `Thinker._run_in`: the run's trace is the current one until it ends, so whatever starts
  inside it — its model calls, its tool calls, a sub-thinker's run — is its child;
- one request to the model is sent and answered (`RunObserver.chat_started`), in `LLMCall`;
- one tool call is submitted, its approval is asked and decided (or, resumed, read from the
  store), and it ends (`RunObserver.tool_call` and `CallTrace`), in `ToolExecution`: the tool
  runs in the context
  of its call's trace (`CallTrace.context`), so a ``sub_thinker`` call's sub-run is the call's
  child;
- the hub grants, refuses or revokes a tool or a skill (`RunObserver.admission`), as its
  admission records the decision (``nucleo_core.hub._admission_desk``): it belongs to whatever
  trace is current (the ``request_tools`` call that asked).

With ``hub.observer`` left ``None`` (the default) each of these points costs one attribute
check and nothing else. An observer must not raise: the core does not guard its calls, so a
failing observer would fail the run it watches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from nucleo_core.hub._observer import AdmissionKind, AdmissionObserver

if TYPE_CHECKING:
    import contextvars

    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.guard.approvals import Approval
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.hub.admission import AdmissionEvent
    from nucleo_core.models.catalog import ModelEntry
    from nucleo_core.models.messages import Usage
    from nucleo_core.models.request import ModelRequest, ModelResponse
    from nucleo_core.thinking._execution_report import CallOutcome
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["AdmissionKind", "CallTrace", "ChatTrace", "RunObserver", "RunTrace"]


class RunTrace(Protocol):
    """One thinker run being observed; current from `RunObserver.run_started` to `ended`."""

    def ended(self, usage: Usage, error: BaseException | None) -> None:
        """The run ended: with its answer (``error`` ``None``), paused, or failed.

        Args:
            usage: The tokens the run spent, its sub-thinkers' included.
            error: What ended the run, when it did not answer (`RunPaused` for a pause).
        """


class ChatTrace(Protocol):
    """One request to a model being observed."""

    def answered(self, response: ModelResponse) -> None:
        """The model answered (its response is well formed)."""

    def failed(self, error: BaseException) -> None:
        """The request failed (or was cancelled) with ``error``."""


class CallTrace(Protocol):
    """One tool call being observed, from its submission to its end."""

    def context(self) -> contextvars.Context:
        """The context the call's tool runs in: a copy of the current one, with this call's."""

    def approval_requested(self, approval_id: str, *, durable: bool) -> None:
        """An approval was asked for the call (``durable``: the run may pause for it)."""

    def approval_decided(self, approval_id: str, approval: Approval | None) -> None:
        """The approver answered (``None``: there was none, the call waits durably)."""

    def approval_resolved(self, record: ApprovalRecord) -> None:
        """A resumed call's durable approval, as decided elsewhere (approved, rejected...)."""

    def finished(
        self,
        outcome: CallOutcome,
        provider: ToolProvider | None,
        permission: PermissionDecision | None,
    ) -> None:
        """The call ended (or waits for a durable approval: `CallStatus.PENDING`).

        Args:
            outcome: How it ended, with its result and, for a failure, the exception.
            provider: The tool it resolved to, or ``None`` when it resolved to none.
            permission: The guard's decision, when the call got that far.
        """


class RunObserver(AdmissionObserver, Protocol):
    """What the core reports a run's steps to (see the module); set it as ``hub.observer``.

    The hub itself calls `admission` only (`nucleo_core.hub`'s narrow ``AdmissionObserver``,
    which this protocol extends); the thinkers and tool executions call the rest.
    """

    def run_started(self, thinker: Any, conversation_id: str, *, resumed: bool) -> RunTrace:
        """``thinker`` starts a run (``resumed``: it resumes a paused one) in a conversation."""

    def chat_started(self, seat: ModelEntry, request: ModelRequest) -> ChatTrace:
        """One request to the model of ``seat`` is about to be sent."""

    def tool_call(self, call: ToolCall, thinker: Any) -> CallTrace:
        """``thinker``'s model asked for ``call``; it is about to pass the call door."""

    def admission(self, thinker: Any, event: AdmissionEvent, kind: AdmissionKind) -> None:
        """The hub decided an admission for ``thinker`` (``event`` is its record)."""
