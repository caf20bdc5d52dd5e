"""The tools' routes: ``/api/tools`` lists and filters them, shows one, and executes one.

An execute passes the call door and the permission guard (`Executions`): a ``confirm``
decision answers 202 with the approval to decide, linked to the routes that decide it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Path, Query
from fastapi.responses import JSONResponse
from pydantic import ConfigDict

from nucleo_core.server.audit_views import CALL_KINDS
from nucleo_core.server.errors import ApiError
from nucleo_core.server.identity import Identity
from nucleo_core.server.models import (
    AuditPage,
    ExecuteRequest,
    ExecutionPending,
    ExecutionResult,
    ToolDetail,
    ToolFilter,
    ToolList,
)
from nucleo_core.server.route_docs import TEXT, TOOL, errors

if TYPE_CHECKING:
    from nucleo_core.server.service import ApiService
    from nucleo_core.tools import ToolProvider

__all__ = ["add_tool_routes"]

_TOOL_ID = "native:<name>, mcp:<server>:<tool>, or the bare name."


class _ToolQuery(ToolFilter):
    """`ToolFilter` from a query string: text to convert, other parameters ignored."""

    model_config = ConfigDict(extra="ignore", strict=False)


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


def add_tool_routes(app: FastAPI, service: ApiService) -> None:
    """Route ``/api/tools`` (list, filter, the call log, one tool, execute) to ``service``."""
    catalog = service.catalog
    executions = service.executions
    reader = service.audit

    @app.get(
        "/api/tools",
        tags=["tools"],
        responses={200: {"description": "The tools.", "links": _TOOL_LINKS}, **errors(401, 422)},
    )
    def list_tools(who: Identity, wanted: Annotated[_ToolQuery, Query()]) -> ToolList:
        """List the served tools, with the same filters as ``POST /api/tools/filter``."""
        del who
        tools = catalog.listed(wanted)
        return ToolList(tools=tools, count=len(tools))

    @app.post("/api/tools/filter", tags=["tools"], responses=errors(400, 401, 413, 422))
    def filter_tools(who: Identity, wanted: ToolFilter) -> ToolList:
        """List the tools every given filter matches: source, risk, read-only, thinker, text."""
        del who
        tools = catalog.listed(wanted)
        return ToolList(tools=tools, count=len(tools))

    @app.get("/api/tools/logs", tags=["tools", "audit"], responses=errors(401, 422))
    def tool_logs(
        who: Identity,
        tool: Annotated[str | None, Query(max_length=TEXT, description=TOOL)] = None,
        limit: Annotated[int, Query(ge=1, le=1000, description="At most this many records.")] = 100,
    ) -> AuditPage:
        """The recent call log: the last calls' decisions, approvals, starts and finishes.

        ``tool`` is a name or a glob (``send_*``, ``mcp:*``), as for ``nucleo audit --tool``.
        """
        del who
        query = reader.query(tool=tool, kinds=CALL_KINDS)
        return reader.recent(query, limit, developer=False)

    @app.get("/api/tools/{tool_id}", tags=["tools"], responses=errors(401, 404, 422))
    def show_tool(
        who: Identity, tool_id: Annotated[str, Path(max_length=TEXT, description=_TOOL_ID)]
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
            **errors(400, 401, 403, 404, 413, 422),
        },
    )
    async def execute_tool(
        who: Identity,
        tool_id: Annotated[str, Path(max_length=TEXT, description=_TOOL_ID)],
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
