"""`create_app`: the FastAPI application serving one `ApiService`.

FastAPI, because its OpenAPI schema is generated from the very pydantic models the routes
validate with and answer (pydantic is already nucleo's), so the published schema cannot drift
from what the server does; it runs on Starlette and uvicorn, both well kept. No global app:
each call builds one, so tests and embedders make their own.

Every error is answered as an `ErrorBody` with a stable ``error`` code; an unexpected
exception is logged (``nucleo.server``) with a reference, and the client reads only that
reference: never a stack trace, never the exception's message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from nucleo_core.guard.audit.events import AuditKind
from nucleo_core.server.audit_views import CALL_KINDS
from nucleo_core.server.console import add_console
from nucleo_core.server.errors import ApiError
from nucleo_core.server.executions import is_api_execution, requester
from nucleo_core.server.models import (
    ApprovalDecided,
    ApprovalDecision,
    ApprovalList,
    ApprovalView,
    AuditPage,
    Decision,
    ErrorBody,
    ExecuteRequest,
    ExecutionPending,
    ExecutionResult,
    Health,
    Reject,
    Risk,
    ToolDetail,
    ToolFilter,
    ToolList,
)
from nucleo_core.server.security import BodyLimit, bearer_identity
from nucleo_core.server.settler import settling

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from nucleo_core.guard.approval_store import ApprovalRecord
    from nucleo_core.server.service import ApiService
    from nucleo_core.tools import ToolProvider

__all__ = ["create_app"]

logger = logging.getLogger("nucleo.server")

#: The largest integer a cursor takes (SQLite's integers are 64-bit).
_MAX_CURSOR = 2**62
_TEXT = 2000
_SOURCE = "native, mcp, mcp:<server>, an exact source id, or a glob (mcp:time:*)."
_RISK = "Any of these declared risks (undeclared counts as high)."
_DECISION = "Any of these policy decisions for the API caller."
_HOLDER = "Held (palette or catalog) by this thinker class: qualified or bare name."
_TEXT_FILTER = "Case-insensitive text in the name, display name or description."
_TOOL = "A tool's name, or a glob matched against names and source ids (send_*, mcp:*)."
_SINCE = "From then on: an ISO 8601 time (UTC unless it says) or an age (30s, 15m, 2h, 7d)."
_THINKER = "A thinker class (bare or qualified), an instance id or a token's identity."
_AFTER = "Only records after this sequence number (the previous page's next_after)."
_DEVELOPER = "Include the failures' exception messages and tracebacks."
_SINCE_PATTERN = (
    r"^(\d{1,9} ?[smhd]|\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?"
    r"(Z|[+-]\d{2}:\d{2})?)$"
)
_TOOL_ID = "native:<name>, mcp:<server>:<tool>, or the bare name."


_BEARER = HTTPBearer(
    auto_error=False,
    description="The API token: $NUCLEO_API_TOKEN, or the file .nucleo/api-token.",
)


def _identity(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)],
) -> str:
    """The identity of the request's token (the dependency of every endpoint but health)."""
    del credentials  # declared for the schema; the header is read as it was sent
    service: ApiService = request.app.state.nucleo
    return bearer_identity(service.token, request.headers.get("authorization"))


#: A route parameter that requires the token and gives its identity.
Identity = Annotated[str, Depends(_identity)]


#: One event of the audit stream, as a client's event parser reads it.
_SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "event": {"type": "string", "enum": ["record"]},
        "id": {"type": "string", "description": "The record's sequence number."},
        "data": {"type": "string", "description": "The record, as JSON (an AuditRecordView)."},
        "retry": {"type": "integer"},
    },
}


#: Where a pending execution's approval id leads (OpenAPI links: clients and test generators
#: follow them from one answer to the next request).
_APPROVAL_LINKS: dict[str, Any] = {
    name: {"operationId": operation, "parameters": {"approval_id": "$response.body#/approval_id"}}
    for name, operation in (
        ("DecideTheApproval", "decide_approval"),
        ("ShowTheApproval", "show_approval"),
        ("ShowTheExecution", "show_execution"),
    )
}
#: Where a listed tool's id leads.
_TOOL_LINKS: dict[str, Any] = {
    name: {"operationId": operation, "parameters": {"tool_id": "$response.body#/tools/0/id"}}
    for name, operation in (("ShowTheTool", "show_tool"), ("ExecuteTheTool", "execute_tool"))
}


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    described = {
        400: "The body is not JSON (or not UTF-8).",
        401: "The token is missing or wrong.",
        403: "The permission guard denied the call.",
        404: "No such tool, approval or execution.",
        409: "The approval was decided already, or expired.",
        413: "The request body is too large.",
        422: "The request does not fit: each problem named, never the value sent.",
    }
    return {status: {"model": ErrorBody, "description": described[status]} for status in statuses}


def create_app(service: ApiService) -> FastAPI:
    """The API over ``service``.

    Args:
        service: What is served (`ApiService.build`).
    """
    from nucleo_core._version import __version__

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        del app
        async with settling(service.executions, service.settings.settle_seconds):
            yield

    app = FastAPI(
        lifespan=lifespan,
        title="nucleo",
        summary="The tools a nucleo process has, their approvals and its audit record.",
        version=__version__,
        openapi_url=None,  # served below, behind the token
        docs_url=None,  # the interactive pages load scripts from a CDN: not here
        redoc_url=None,
        redirect_slashes=False,
        # Operation ids are the route functions' names: stable, and readable in clients.
        generate_unique_id_function=lambda route: route.name,
    )
    app.add_middleware(BodyLimit, limit=service.settings.max_body_bytes)
    _handle_errors(app)
    add_console(app)  # the web console at /: a static page, needing no token to load
    app.state.nucleo = service
    catalog = service.catalog
    executions = service.executions
    reader = service.audit

    @app.get("/api/health", tags=["health"])
    def health() -> Health:
        """Whether the server answers (no token needed)."""
        return Health(version=__version__)

    @app.get("/api/openapi.json", include_in_schema=False)
    def openapi(who: Identity) -> JSONResponse:
        del who
        return JSONResponse(app.openapi())

    @app.get(
        "/api/tools",
        tags=["tools"],
        responses={200: {"description": "The tools.", "links": _TOOL_LINKS}, **_errors(401, 422)},
    )
    def list_tools(
        who: Identity,
        source: Annotated[str | None, Query(max_length=_TEXT, description=_SOURCE)] = None,
        risk: Annotated[list[Risk] | None, Query(description=_RISK)] = None,
        read_only: Annotated[bool | None, Query(description="Declared read-only, or not.")] = None,
        decision: Annotated[list[Decision] | None, Query(description=_DECISION)] = None,
        thinker: Annotated[str | None, Query(max_length=_TEXT, description=_HOLDER)] = None,
        text: Annotated[str | None, Query(max_length=_TEXT, description=_TEXT_FILTER)] = None,
    ) -> ToolList:
        """List the served tools, with the same filters as ``POST /api/tools/filter``."""
        del who
        wanted = ToolFilter(
            source=source,
            risk=risk,
            read_only=read_only,
            decision=decision,
            thinker=thinker,
            text=text,
        )
        tools = catalog.listed(wanted)
        return ToolList(tools=tools, count=len(tools))

    @app.post("/api/tools/filter", tags=["tools"], responses=_errors(400, 401, 413, 422))
    def filter_tools(who: Identity, wanted: ToolFilter) -> ToolList:
        """List the tools every given filter matches: source, risk, read-only, thinker, text."""
        del who
        tools = catalog.listed(wanted)
        return ToolList(tools=tools, count=len(tools))

    @app.get("/api/tools/logs", tags=["tools", "audit"], responses=_errors(401, 422))
    def tool_logs(
        who: Identity,
        tool: Annotated[str | None, Query(max_length=_TEXT, description=_TOOL)] = None,
        limit: Annotated[int, Query(ge=1, le=1000, description="At most this many records.")] = 100,
    ) -> AuditPage:
        """The recent call log: the last calls' decisions, approvals, starts and finishes.

        ``tool`` is a name or a glob (``send_*``, ``mcp:*``), as for ``nucleo audit --tool``.
        """
        del who
        query = reader.query(tool=tool, kinds=CALL_KINDS)
        return reader.recent(query, limit, developer=False)

    @app.get("/api/tools/{tool_id}", tags=["tools"], responses=_errors(401, 404, 422))
    def show_tool(
        who: Identity, tool_id: Annotated[str, Path(max_length=_TEXT, description=_TOOL_ID)]
    ) -> ToolDetail:
        """One tool in full: ``native:<name>``, ``mcp:<server>:<tool>`` or the bare name."""
        del who
        return catalog.detail(_tool(tool_id))

    @app.post(
        "/api/tools/{tool_id}/execute",
        tags=["tools"],
        response_model=ExecutionResult,
        responses={
            202: {
                "model": ExecutionPending,
                "description": "It waits for an approval.",
                "links": _APPROVAL_LINKS,
            },
            **_errors(400, 401, 403, 404, 413, 422),
        },
    )
    async def execute_tool(
        who: Identity,
        tool_id: Annotated[str, Path(max_length=_TEXT, description=_TOOL_ID)],
        body: ExecuteRequest,
    ) -> Any:
        """Call a tool directly, through the call door and the permission guard.

        auto and notify: 200 with the result as a model would read it, and the structured
        output. deny: 403 with the reason. confirm: 202 with the approval to decide
        (``POST /api/approvals/{id}``); the call runs once, when it is approved.
        """
        provider = _tool(tool_id)
        answer = await executions.execute(provider, body.input, who)
        if isinstance(answer, ExecutionPending):
            return JSONResponse(answer.model_dump(mode="json"), status_code=202)
        return answer

    @app.get(
        "/api/executions/{approval_id}",
        tags=["approvals"],
        response_model=ExecutionResult,
        responses={
            200: {"model": ExecutionResult, "description": "How the call ended."},
            202: {"model": ExecutionPending, "description": "It still waits for its decision."},
            **_errors(401, 404, 422),
        },
    )
    async def show_execution(
        who: Identity,
        approval_id: Annotated[str, Path(max_length=_TEXT, description="The approval's id.")],
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
            pending = ExecutionPending(
                approval_id=record.id,
                call_id=record.call_id,
                tool=record.tool,
                source=record.source,
                decided_by=record.decided_by_rule,
                approval_url=f"/api/approvals/{record.id}",
                execution_url=f"/api/executions/{record.id}",
            )
            return JSONResponse(pending.model_dump(mode="json"), status_code=202)
        return JSONResponse(result.model_dump(mode="json"))

    @app.get("/api/approvals", tags=["approvals"], responses=_errors(401, 422))
    def list_approvals(
        who: Identity,
        status: Annotated[
            Literal["pending", "approved", "rejected", "consumed", "expired", "all"],
            Query(description="Only approvals of this status now (all: every one)."),
        ] = "pending",
        conversation_id: Annotated[
            str | None, Query(max_length=_TEXT, description="Only this conversation's.")
        ] = None,
    ) -> ApprovalList:
        """The approvals paused runs and API executions wait for (``status=all``: every one)."""
        del who
        records = executions.approvals.list(
            status=None if status == "all" else status, conversation_id=conversation_id
        )
        views = [_approval_view(record) for record in records]
        return ApprovalList(approvals=views, count=len(views))

    @app.get("/api/approvals/{approval_id}", tags=["approvals"], responses=_errors(401, 404, 422))
    def show_approval(
        who: Identity,
        approval_id: Annotated[str, Path(max_length=_TEXT, description="The approval's id.")],
    ) -> ApprovalView:
        """One approval: what it authorises, its status, who decided it."""
        del who
        return _approval_view(_approval(approval_id))

    @app.post(
        "/api/approvals/{approval_id}",
        tags=["approvals"],
        responses=_errors(400, 401, 404, 409, 413, 422),
    )
    async def decide_approval(
        who: Identity,
        approval_id: Annotated[str, Path(max_length=_TEXT, description="The approval's id.")],
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

    @app.get("/api/audit", tags=["audit"], responses=_errors(401, 422))
    def audit_page(
        who: Identity,
        since: Annotated[
            str | None, Query(max_length=100, pattern=_SINCE_PATTERN, description=_SINCE)
        ] = None,
        thinker: Annotated[str | None, Query(max_length=_TEXT, description=_THINKER)] = None,
        tool: Annotated[str | None, Query(max_length=_TEXT, description=_TOOL)] = None,
        kind: Annotated[
            list[AuditKind] | None, Query(description="Only records of these kinds.")
        ] = None,
        after: Annotated[int, Query(ge=0, le=_MAX_CURSOR, description=_AFTER)] = 0,
        limit: Annotated[int, Query(ge=1, le=1000, description="At most this many records.")] = 100,
        developer: Annotated[bool, Query(description=_DEVELOPER)] = False,
    ) -> AuditPage:
        """The audit record, a page at a time, with the filters of ``nucleo audit``.

        ``since``: an ISO 8601 time (UTC unless it says) or an age (30s, 15m, 2h, 7d).
        ``thinker``: a class (bare or qualified) or an instance id, its sub-thinkers included;
        a token's identity (api-token:...) selects what that token did. ``tool``: a name or a
        glob. ``after``: the previous page's ``next_after``. ``developer``: include the
        failures' exception messages and tracebacks.
        """
        del who
        query = reader.query(
            since=_since(since), after=after, thinker=thinker, tool=tool, kinds=kind or ()
        )
        return reader.page(query, limit, developer=developer)

    @app.get(
        "/api/audit/stream",
        tags=["audit"],
        response_class=StreamingResponse,
        responses={
            200: {
                "content": {"text/event-stream": {"schema": _SSE_EVENT}},
                "description": "One event a record (id: its sequence; data: its JSON).",
            },
            **_errors(401, 422),
        },
    )
    def audit_stream(
        who: Identity,
        since: Annotated[
            str | None, Query(max_length=100, pattern=_SINCE_PATTERN, description=_SINCE)
        ] = None,
        thinker: Annotated[str | None, Query(max_length=_TEXT, description=_THINKER)] = None,
        tool: Annotated[str | None, Query(max_length=_TEXT, description=_TOOL)] = None,
        kind: Annotated[
            list[AuditKind] | None, Query(description="Only records of these kinds.")
        ] = None,
        after: Annotated[int, Query(ge=0, le=_MAX_CURSOR, description=_AFTER)] = 0,
        developer: Annotated[bool, Query(description=_DEVELOPER)] = False,
        last_event_id: Annotated[
            str | None,
            Header(
                alias="Last-Event-ID",
                max_length=100,
                description=(
                    "Sent by a reconnecting EventSource: the last record it saw (anything but "
                    "a sequence number is ignored)."
                ),
            ),
        ] = None,
    ) -> StreamingResponse:
        """Server-sent events: the records after ``after``, then each new one, live.

        The filters are ``GET /api/audit``'s. A reconnecting ``EventSource`` sends
        ``Last-Event-ID`` and goes on after the last record it saw.
        """
        del who
        seen = (last_event_id or "").strip()
        start = max(after, min(int(seen), _MAX_CURSOR) if seen.isascii() and seen.isdigit() else 0)
        query = reader.query(
            since=_since(since), after=start, thinker=thinker, tool=tool, kinds=kind or ()
        )
        return StreamingResponse(
            reader.stream(query, developer=developer),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )

    def _tool(tool_id: str) -> ToolProvider:
        provider = catalog.find(tool_id)
        if provider is None:
            raise ApiError(
                404,
                "unknown_tool",
                "no served tool has that id or name; GET /api/tools lists them (ids are "
                "native:<name> or mcp:<server>:<tool>; a bare name works too)",
            )
        return provider

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

    return app


def _approval_view(record: ApprovalRecord) -> ApprovalView:
    api = is_api_execution(record)
    return ApprovalView(
        **record.to_json(),
        kind="api_execution" if api else "thinker_run",
        resume_command=None if api else f"nucleo resume {record.conversation_id}",
    )


def _since(text: str | None) -> datetime | None:
    """``since`` as ``nucleo audit --since`` reads it: an ISO 8601 time or an age."""
    import re

    if text is None:
        return None
    relative = re.fullmatch(r"(\d{1,9})\s*([smhd])", text.strip())
    if relative is not None:
        amount, unit = relative.groups()
        units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
        try:
            return datetime.now(UTC) - timedelta(**{units[unit]: int(amount)})
        except OverflowError:
            return datetime.min.replace(tzinfo=UTC)
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ApiError(
            422,
            "invalid_input",
            "since: not a time; give an ISO 8601 time (2025-01-31T09:00, UTC unless it says) "
            "or an age (30s, 15m, 2h, 7d)",
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _handle_errors(app: FastAPI) -> None:
    """Answer every error as an `ErrorBody`; never a stack trace."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        headers = {"www-authenticate": "Bearer"} if exc.status == 401 else None
        body = ErrorBody(error=exc.code, message=exc.message, problems=list(exc.problems))
        return JSONResponse(body.model_dump(), status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [_problem(error) for error in exc.errors()]
        body = ErrorBody(
            error="invalid_input",
            message="the request does not fit: " + "; ".join(problems),
            problems=problems,
        )
        return JSONResponse(body.model_dump(), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        codes = {
            404: ("not_found", "no such endpoint; GET /api/openapi.json lists them"),
            405: ("method_not_allowed", "this endpoint does not take that method"),
            413: ("request_too_large", str(exc.detail)),
        }
        code, message = codes.get(
            exc.status_code, ("bad_request", "the request body is not JSON in UTF-8")
        )
        body = ErrorBody(error=code, message=message)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names the methods of the first route of the path; there may be more.
            headers["allow"] = ", ".join(_allowed_methods(app, request))
        return JSONResponse(body.model_dump(), status_code=exc.status_code, headers=headers)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        reference = uuid.uuid4().hex[:12]
        logger.error(
            "internal error %s answering %s %s",
            reference,
            request.method,
            request.url.path,
            exc_info=(type(exc), exc, exc.__traceback__),
        )
        body = ErrorBody(
            error="internal_error",
            message=f"an internal error occurred (reference {reference}); the server's log "
            "has the details",
        )
        return JSONResponse(body.model_dump(), status_code=500)


def _allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """The methods of the path template the request's path is routed to."""
    from starlette.routing import Match, Route

    routes = [route for route in app.router.routes if isinstance(route, Route)]
    template = next(
        (
            route.path
            for route in routes
            if route.matches({**request.scope, "method": "GET"})[0] is not Match.NONE
        ),
        None,
    )
    methods: set[str] = set()
    for route in routes:
        if route.path == template and route.methods:
            methods.update(route.methods)
    methods.discard("HEAD")
    return sorted(methods)


def _problem(error: Any) -> str:
    """One validation problem: where, and what was expected; never the value sent."""
    location = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    return f"{location or 'body'}: {error.get('msg', 'is not valid')}"
