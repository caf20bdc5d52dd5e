"""Direct calls through the API: the one call door, the guard, and durable approvals.

An execute is one tool call of `ApiCaller`, a thinker whose palette holds every served tool,
run by the same `ToolExecution` a thinker's turn runs, with `call_door` as its check. So it
passes the same steps in the same order (available, input parsed against the published
schema, the guard's decision over declared risk, the rules and the ``nucleo_permission``
hooks), and is on the audit record like any call, with the token's identity as who asked:
there is no second path to a tool.

A ``confirm`` decision finds no inline approver here, so the call waits for a **durable
approval**, kept in the same store as the approvals of paused thinker runs (``nucleo
approvals`` lists both). Once it is decided — over the API, which then runs it at once, or in
any other process, and then the server runs it within ``settle_seconds`` (or at the next
``GET /api/executions/{id}``, whichever comes first) — the call goes
through the door again and runs only if the approval is bound to its exact arguments and is
*claimed* (approved → consumed, a conditional update), so it runs exactly once, whichever
process asks and however often.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, final

from nucleo_core.errors import InvalidToolInput, PermissionDenied, UnknownTool
from nucleo_core.hub import ThinkerBase
from nucleo_core.hub.call_door import ClearedCall, call_door
from nucleo_core.server.errors import ApiError
from nucleo_core.server.models import ExecutionPending, ExecutionResult
from nucleo_core.thinking._run_observer import run_observer
from nucleo_core.thinking.execution import (
    CallOutcome,
    CallStatus,
    DurableApprovals,
    ToolExecution,
)
from nucleo_core.thinking.tool_call import ToolCall
from nucleo_core.tools.reply import is_reply

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord, ApprovalStore
    from nucleo_core.guard.audit import AuditLog
    from nucleo_core.guard.audit.events import Requester
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.hub import ToolHub
    from nucleo_core.thinking._execution_audit import CallAudit
    from nucleo_core.tools import ToolProvider

__all__ = [
    "API_CALLER",
    "EXECUTION_PREFIX",
    "ApiCaller",
    "Executions",
    "execution_pending",
    "is_api_execution",
]

#: The API caller's class, by qualified name: what policy rules and the audit record name.
API_CALLER: Final = "nucleo_core.server.executions.ApiCaller"
#: The ``conversation_id`` of an approval of an API execution (there is no conversation).
EXECUTION_PREFIX: Final = "api-execution:"

_STATUS: Mapping[CallStatus, Literal["failed", "timeout", "cancelled"]] = {
    CallStatus.FAILED: "failed",
    CallStatus.TIMEOUT: "timeout",
    CallStatus.CANCELLED: "cancelled",
}


@final
class ApiCaller(ThinkerBase):
    """The actor of every call made through the HTTP API.

    Policy rules name it as any thinker class (``thinker = "nucleo_core.server.executions.
    ApiCaller"``) to decide differently for calls made over HTTP. It calls no model.
    """


def is_api_execution(record: ApprovalRecord) -> bool:
    """Whether ``record`` is the approval of a call made through the API."""
    return record.thinker == API_CALLER and record.conversation_id.startswith(EXECUTION_PREFIX)


def execution_pending(record: ApprovalRecord) -> ExecutionPending:
    """The answer for an API execution that waits for ``record``: where to decide it."""
    return ExecutionPending(
        approval_id=record.id,
        call_id=record.call_id,
        tool=record.tool,
        source=record.source,
        decided_by=record.decided_by_rule,
        approval_url=f"/api/approvals/{record.id}",
        execution_url=f"/api/executions/{record.id}",
    )


def requester(identity: str) -> Requester:
    """Who asks, on the audit record, for a request bearing the token ``identity``."""
    from nucleo_core.guard.audit.events import Requester

    return Requester(thinker_class=API_CALLER, thinker_id=identity)


@final
class Executions:
    """Runs the API's calls and settles their approvals.

    Args:
        hub: The server's hub: its guard decides, its audit log records.
        approvals: The durable approvals' store (shared with ``nucleo approvals``).
        expiry: Seconds a pending approval waits for its decision.
    """

    def __init__(self, hub: ToolHub, approvals: ApprovalStore, *, expiry: float) -> None:
        self.caller = ApiCaller(hub=hub)
        self._hub = hub
        self._log: AuditLog | None = _log_of(hub)
        self._approvals = approvals
        self._expiry = expiry
        # Results of the settled executions this process ran, by approval id: a second ask
        # reads the result, never runs the call again. One settles at a time (a lock per
        # process; the store's claim holds across processes).
        self._settled: dict[str, ExecutionResult] = {}
        self._settling = asyncio.Lock()

    def serve(self, tools: Sequence[ToolProvider]) -> None:
        """Put ``tools`` in the API caller's palette: the tools the API may call."""
        system_wide = {provider.name for provider in self._hub.system_wide_tools()}
        for provider in tools:
            if provider.name not in system_wide:  # those are in every palette already
                self.caller.add_tool(provider)
        self.caller.reconcile_tool_registry()

    @property
    def approvals(self) -> ApprovalStore:
        """The durable approvals' store."""
        return self._approvals

    async def execute(
        self, provider: ToolProvider, arguments: Mapping[str, Any], identity: str
    ) -> ExecutionResult | ExecutionPending:
        """Call ``provider`` with ``arguments`` for the token ``identity``.

        Returns:
            The result (auto, notify), or the pending approval (confirm).

        Raises:
            ApiError: 403 the guard denied it; 404 it is not available now; 422 its input
                does not fit (the message a model would read).
        """
        call = self._resolved(f"api_{uuid.uuid4().hex}", provider.name, arguments)
        decided: list[PermissionDecision] = []
        execution = self._execution(call, identity, DurableApprovals(pausable=True), decided)
        report = await execution.run()
        outcome = report.outcomes[0]
        if outcome.status is CallStatus.PENDING:
            return self._file(execution, identity)
        return _answer(outcome, provider, decided, refusal_raises=True)

    def _file(self, execution: ToolExecution, identity: str) -> ExecutionPending:
        """Keep the waiting call's approval in the store; say where to decide it."""
        pending = execution.pending_calls()[0]
        record = pending.approval_record(
            thinker=API_CALLER,
            conversation_id=f"{EXECUTION_PREFIX}{pending.call.id}",
            requested_by=identity,
            expiry=self._expiry,
        )
        self._approvals.add([record])
        return execution_pending(record)

    async def settle(self, record: ApprovalRecord) -> ExecutionResult | None:
        """Run (approved) or refuse (rejected, expired) a decided API execution, once.

        Returns:
            How the call ended; ``None`` when ``record`` is no API execution's or is pending.
        """
        if not is_api_execution(record):
            return None
        async with self._settling:
            kept = self._settled.get(record.id)
            if kept is not None:
                return kept
            fresh = self._approvals.get(record.id) or record
            if fresh.status_at() == "pending":
                return None
            call = self._resolved(fresh.call_id, fresh.tool, dict(fresh.arguments))
            durable = DurableApprovals(decided={call.id: fresh}, store=self._approvals)
            decided: list[PermissionDecision] = []
            execution = self._execution(call, fresh.requested_by, durable, decided)
            report = await execution.run()
            result = _answer(report.outcomes[0], None, decided, refusal_raises=False, record=fresh)
            self._settled[record.id] = result
            return result

    async def settle_decided(self) -> int:
        """Run the API executions approved elsewhere and not run yet; how many this one ran.

        ``nucleo approvals approve`` (or another server on the same store) decides an execution
        without running it; the server calls this every `ServerSettings.settle_seconds`, so an
        approved call runs without waiting for its execution to be read. Each runs once: its
        approval is claimed first, whichever process gets there.
        """
        approved = await asyncio.to_thread(self._approvals.list, status="approved")
        ran = 0
        for record in approved:
            if not is_api_execution(record) or record.id in self._settled:
                continue
            if await self.settle(record) is not None:
                ran += 1
        return ran

    def _resolved(self, call_id: str, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        """The call as a model's answer's parser resolves one against the palette.

        The door reuses this parse only when it was made against the very provider the name
        resolves to at the call; the audit record names the tool of a refused call too.
        """
        from nucleo_core.models._json_depth import MAX_JSON_DEPTH, exceeds, tool_input

        provider = self.caller.registry.available(name)
        if exceeds(arguments):
            problem = (
                f"input: nests objects and arrays more than {MAX_JSON_DEPTH} levels deep; send "
                f"a JSON object nested at most {MAX_JSON_DEPTH} levels deep"
            )
            return ToolCall(
                id=call_id,
                name=name,
                raw_input=tool_input(arguments),
                provider=provider,
                error=InvalidToolInput(name, [problem]),
                input_problem=problem,
            )
        if provider is None:
            return ToolCall(id=call_id, name=name, raw_input=arguments)
        return ToolCall.parsed(id=call_id, name=name, raw_input=arguments, provider=provider)

    def _execution(
        self,
        call: ToolCall,
        identity: str,
        durable: DurableApprovals,
        decided: list[PermissionDecision],
    ) -> ToolExecution:
        caller = self.caller

        def check(call: ToolCall) -> ClearedCall:
            # The call door itself; the decision it took is kept for the answer.
            cleared = call_door(caller, call)
            if cleared.permission is not None:
                decided.append(cleared.permission)
            return cleared

        return ToolExecution(
            [call],
            check=check,
            parent=caller,
            registry=caller.registry,
            approver=None,  # nobody approves inline over HTTP: confirm waits, durably
            audit=_call_audit(self._log, identity),
            durable=durable,
            observer=run_observer(self._hub),  # traced like a thinker's calls when the hub is
        )


def _log_of(hub: ToolHub) -> AuditLog | None:
    return hub.audit


def _call_audit(log: AuditLog | None, identity: str) -> CallAudit | None:
    if log is None:
        return None
    from nucleo_core.thinking._execution_audit import CallAudit

    return CallAudit(log, requester(identity))


def _answer(
    outcome: CallOutcome,
    provider: ToolProvider | None,
    decided: Sequence[PermissionDecision],
    *,
    refusal_raises: bool,
    record: ApprovalRecord | None = None,
) -> ExecutionResult:
    """The API's answer for how a call ended, or the `ApiError` a refusal is."""
    error = outcome.error
    content = outcome.result.content
    status = outcome.status
    if status in (CallStatus.REFUSED, CallStatus.INVALID) and refusal_raises:
        if isinstance(error, InvalidToolInput):
            raise ApiError(422, "invalid_input", content, error.problems)
        if isinstance(error, PermissionDenied):
            raise ApiError(403, "permission_denied", content)
        if isinstance(error, UnknownTool):
            raise ApiError(
                404, "tool_unavailable", "the tool is listed but not available to call now"
            )
        raise ApiError(403, "refused", content)
    if status is CallStatus.OK:
        final: Literal["ok", "tool_error", "failed", "timeout", "cancelled", "refused"] = (
            "tool_error" if outcome.result.is_error else "ok"
        )
    elif status in (CallStatus.REFUSED, CallStatus.INVALID):
        final = "refused"
    else:
        final = _STATUS.get(status, "failed")
    name = provider.name if provider is not None else (record.tool if record else outcome.call.name)
    source = provider.source if provider is not None else (record.source if record else "")
    return ExecutionResult(
        status=final,
        tool=name,
        source=source,
        call_id=outcome.call.id,
        content=content if isinstance(content, str) else str(content),
        is_error=outcome.result.is_error,
        structured=_structured(outcome.output) if status is CallStatus.OK else None,
        decision=decided[-1].decision.value if decided else None,
        approval_id=record.id if record is not None else None,
        duration=outcome.duration,
    )


def _structured(output: object) -> Any:
    """The tool's output as a JSON value; ``None`` for plain text."""
    if output is None or isinstance(output, str):
        return None
    if is_reply(output):
        return getattr(output, "structured", None)
    from pydantic_core import to_jsonable_python

    try:
        return to_jsonable_python(output, fallback=str)
    except Exception:  # output JSON cannot hold (a circular reference): the text stands
        return None
