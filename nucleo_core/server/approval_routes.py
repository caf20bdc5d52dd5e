"""The approvals' routes: list, show and decide them, and read an API execution's result.

A decision over the API is on the audit record with the token's identity; an API execution's
call then runs (or is refused) at once, once (`Executions.settle`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import FastAPI, Path, Query
from fastapi.responses import JSONResponse

from nucleo_core.server.errors import ApiError
from nucleo_core.server.executions import execution_pending, is_api_execution, requester
from nucleo_core.server.identity import Identity
from nucleo_core.server.models import (
    ApprovalDecided,
    ApprovalDecision,
    ApprovalList,
    ApprovalView,
    ExecutionPending,
    ExecutionResult,
    Reject,
)
from nucleo_core.server.route_docs import TEXT, errors

if TYPE_CHECKING:
    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.server.service import ApiService

__all__ = ["add_approval_routes"]

logger = logging.getLogger("nucleo.server")


def add_approval_routes(app: FastAPI, service: ApiService) -> None:
    """Route ``/api/executions/{id}`` and ``/api/approvals`` (list, show, decide) to ``service``."""
    executions = service.executions

    @app.get(
        "/api/executions/{approval_id}",
        tags=["approvals"],
        response_model=ExecutionResult,
        responses={
            200: {"model": ExecutionResult, "description": "How the call ended."},
            202: {"model": ExecutionPending, "description": "It still waits for its decision."},
            **errors(401, 404, 422),
        },
    )
    async def show_execution(
        who: Identity,
        approval_id: Annotated[str, Path(max_length=TEXT, description="The approval's id.")],
    ) -> Any:
        """The result of an execute that needed an approval (run once, when decided)."""
        del who
        record = await asyncio.to_thread(executions.approvals.get, approval_id)
        if record is None or not is_api_execution(record):
            raise ApiError(
                404,
                "unknown_execution",
                "no execution waits on an approval of that id; GET /api/approvals lists them",
            )
        result = await executions.settle(record)
        if result is None:
            pending = execution_pending(record)
            return JSONResponse(pending.model_dump(mode="json"), status_code=202)
        return JSONResponse(result.model_dump(mode="json"))

    @app.get("/api/approvals", tags=["approvals"], responses=errors(401, 422))
    def list_approvals(
        who: Identity,
        status: Annotated[
            Literal["pending", "approved", "rejected", "consumed", "expired", "all"],
            Query(description="Only approvals of this status now (all: every one)."),
        ] = "pending",
        conversation_id: Annotated[
            str | None, Query(max_length=TEXT, description="Only this conversation's.")
        ] = None,
    ) -> ApprovalList:
        """The approvals paused runs and API executions wait for (``status=all``: every one)."""
        del who
        records = executions.approvals.list(
            status=None if status == "all" else status, conversation_id=conversation_id
        )
        views = [_approval_view(record) for record in records]
        return ApprovalList(approvals=views, count=len(views))

    @app.get("/api/approvals/{approval_id}", tags=["approvals"], responses=errors(401, 404, 422))
    def show_approval(
        who: Identity,
        approval_id: Annotated[str, Path(max_length=TEXT, description="The approval's id.")],
    ) -> ApprovalView:
        """One approval: what it authorises, its status, who decided it."""
        del who
        return _approval_view(_approval(approval_id))

    @app.post(
        "/api/approvals/{approval_id}",
        tags=["approvals"],
        responses=errors(400, 401, 404, 409, 413, 422),
    )
    async def decide_approval(
        who: Identity,
        approval_id: Annotated[str, Path(max_length=TEXT, description="The approval's id.")],
        body: ApprovalDecision,
    ) -> ApprovalDecided:
        """Approve, or reject with a reason, a pending approval: once.

        An API execution's call then runs (or is refused) at once, and its result is in the
        answer. A paused thinker run goes on when it is resumed (``nucleo resume
        CONVERSATION``, in any process).
        """
        record = await asyncio.to_thread(_decide, approval_id, body, who)
        result = await executions.settle(record)
        if result is not None:  # the call ran or was refused: show the approval as it is now
            now = await asyncio.to_thread(executions.approvals.get, record.id)
            record = now if now is not None else record
        return ApprovalDecided(approval=_approval_view(record), execution=result)

    def _approval(approval_id: str) -> ApprovalRecord:
        record = executions.approvals.get(approval_id)
        if record is None:
            raise ApiError(
                404,
                "unknown_approval",
                "no approval of that id is kept; GET /api/approvals?status=all lists them",
            )
        return record

    def _decide(approval_id: str, body: ApprovalDecision, who: str) -> ApprovalRecord:
        from nucleo_core.guard.approval_store import (
            ApprovalAlreadyDecided,
            ApprovalExpired,
            ApprovalNotFound,
        )

        store = executions.approvals
        try:
            if isinstance(body, Reject):
                record = store.reject(approval_id, body.reason.strip(), by=who)
            else:
                record = store.approve(approval_id, by=who, note=(body.reason or "").strip())
        except ApprovalNotFound:
            _approval(approval_id)  # raises the API's own 404
            raise
        except (ApprovalAlreadyDecided, ApprovalExpired) as exc:
            code = "expired" if isinstance(exc, ApprovalExpired) else "already_decided"
            raise ApiError(409, code, str(exc)) from exc
        _record_decision(record, who)
        return record

    def _record_decision(record: ApprovalRecord, who: str) -> None:
        log = service.audit_log
        if log is None:
            return
        from nucleo_core.guard.audit.events import AuditEvent

        try:
            log.record(
                AuditEvent(
                    kind="approval_decision",
                    requester=requester(who),
                    tool=record.tool,
                    source=record.source,
                    risk=record.risk if record.risk_declared else None,
                    call_id=record.call_id,
                    approval_id=record.id,
                    outcome="approved" if record.status == "approved" else "rejected",
                    rule=f"approval:{who}",
                    reason=record.reason or None,
                    arguments_digest=record.arguments_digest,
                ),
                durable=True,
            )
        except Exception:  # the decision stands (it is in the store); the log says why not
            logger.exception("the audit log could not take the decision of %s", record.id)


#: What a record's JSON says of an MCP server's elicitation (`ApprovalRecord.to_json`): the
#: store's, not the view's, whose ``kind`` says which door decides the approval.
_ELICITATION_KEYS = frozenset({"kind", "elicitation", "content"})


def _approval_view(record: ApprovalRecord) -> ApprovalView:
    api = is_api_execution(record)
    fields = {k: v for k, v in record.to_json().items() if k not in _ELICITATION_KEYS}
    return ApprovalView(
        **fields,
        kind="api_execution" if api else "thinker_run",
        resume_command=None if api else f"nucleo resume {record.conversation_id}",
    )
