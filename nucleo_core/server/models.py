"""The JSON the API takes and answers: pydantic models, from which the OpenAPI schema is made.

Every model forbids fields it does not know in what it takes (a typo is an error, not a
silently ignored option) and documents each field: the descriptions are the API reference.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ApprovalDecided",
    "ApprovalDecision",
    "ApprovalList",
    "ApprovalView",
    "Approve",
    "AuditPage",
    "AuditRecordView",
    "Decision",
    "ErrorBody",
    "ExecuteRequest",
    "ExecutionPending",
    "ExecutionResult",
    "Health",
    "PolicyDecision",
    "Reject",
    "Risk",
    "ToolDetail",
    "ToolFilter",
    "ToolHolder",
    "ToolList",
    "ToolSummary",
]

Risk = Literal["low", "medium", "high"]
Decision = Literal["auto", "notify", "confirm", "deny"]

_MAX_TEXT = 2000


class _Taken(BaseModel):
    """A request body: unknown fields are refused, and types are not coerced (0 is no bool)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ErrorBody(BaseModel):
    """Every error's body: a stable code, what is wrong and how to fix it."""

    error: str = Field(description="A stable code: unauthorized, unknown_tool, invalid_input...")
    message: str = Field(description="What is wrong and how to fix it (never a value sent).")
    problems: list[str] = Field(
        default_factory=list, description="Each problem, when there are several."
    )


class Health(BaseModel):
    """The health check's answer."""

    status: Literal["ok"] = "ok"
    version: str = Field(description="The nucleo-core version serving.")


class PolicyDecision(BaseModel):
    """What the permission policy decides for a call by the API caller.

    ``nucleo_permission`` hooks may tighten it at the call (they read the arguments).
    """

    decision: Decision
    decided_by: str = Field(description="What decided: default:risk=high, rule:<name>...")
    reason: str


class ToolHolder(BaseModel):
    """A thinker class that holds the tool."""

    thinker: str = Field(description="The class, by qualified name (package.module.Class).")
    palette: bool = Field(description="The tool is in its palette (offered every turn).")
    catalog: bool = Field(description="The tool is in its catalog (it may ask for it).")


class ToolSummary(BaseModel):
    """One tool as the catalog lists it."""

    id: str = Field(description="The tool's source id: native:<name> or mcp:<server>:<tool>.")
    name: str
    display_name: str
    description: str
    source: str = Field(description="Same as id.")
    source_kind: Literal["native", "mcp"]
    origin: str = Field(description="Where the process got it: a pack, --from, an MCP server.")
    read_only: bool = Field(description="Declared read-only (undeclared: mutating).")
    risk: Risk = Field(description="Declared risk (undeclared counts as high).")
    risk_declared: bool
    decision: PolicyDecision
    thinkers: list[ToolHolder] = Field(description="The served thinker classes holding it.")


class ToolDetail(ToolSummary):
    """One tool in full: its summary and its published schemas."""

    input_schema: dict[str, Any] = Field(description="The JSON schema its input must fit.")
    output_schema: dict[str, Any] | None = Field(description="Its output's schema, or null.")


class ToolList(BaseModel):
    """Tools, in the catalog's stable order."""

    tools: list[ToolSummary]
    count: int


class ToolFilter(_Taken):
    """Which tools to list; every filter given must match."""

    source: str | None = Field(
        default=None,
        max_length=_MAX_TEXT,
        description=("native, mcp, mcp:<server>, an exact source id, or a glob (mcp:time:*)."),
    )
    risk: list[Risk] | None = Field(
        default=None, description="Any of these declared risks (undeclared counts as high)."
    )
    read_only: bool | None = Field(default=None, description="Declared read-only, or not.")
    decision: list[Decision] | None = Field(
        default=None, description="Any of these policy decisions for the API caller."
    )
    thinker: str | None = Field(
        default=None,
        max_length=_MAX_TEXT,
        description="Held (palette or catalog) by this thinker class: qualified or bare name.",
    )
    text: str | None = Field(
        default=None,
        max_length=_MAX_TEXT,
        description="Case-insensitive text in the name, display name or description.",
    )


class ExecuteRequest(_Taken):
    """A direct call of a tool."""

    input: dict[str, Any] = Field(
        default_factory=dict, description="The tool's input, fitting its input_schema."
    )


class ExecutionResult(BaseModel):
    """How a call ended: what the model would have read, and the tool's structured output."""

    status: Literal["ok", "tool_error", "failed", "timeout", "cancelled", "refused"] = Field(
        description=(
            "ok: it ran; tool_error: it ran and reported an error; failed / timeout / "
            "cancelled: it did not finish; refused: its approval was rejected or expired."
        )
    )
    tool: str
    source: str
    call_id: str = Field(description="The call's id on the audit record.")
    content: str = Field(description="The result text exactly as a model would read it.")
    is_error: bool
    structured: Any = Field(
        default=None, description="The tool's output as JSON (null for text or on failure)."
    )
    decision: Decision | None = Field(description="The guard's decision the call ran under.")
    approval_id: str | None = Field(default=None, description="Its approval, when it needed one.")
    duration: float = Field(description="Seconds the tool ran.")


class ExecutionPending(BaseModel):
    """A call that waits for an approval (the guard decided confirm)."""

    status: Literal["pending"] = "pending"
    approval_id: str
    call_id: str
    tool: str
    source: str
    decided_by: str = Field(description="What made it need an approval.")
    approval_url: str = Field(description="POST here to approve or reject it.")
    execution_url: str = Field(description="GET here for its result once decided.")


class ApprovalView(BaseModel):
    """One approval, pending or decided."""

    id: str
    status: Literal["pending", "approved", "rejected", "consumed", "expired"]
    kind: Literal["api_execution", "thinker_run"] = Field(
        description="api_execution: a call made through this API; thinker_run: a paused run."
    )
    thinker: str
    conversation_id: str
    call_id: str
    tool: str
    source: str
    risk: str
    risk_declared: bool
    arguments: dict[str, Any] = Field(description="The exact arguments it authorises.")
    arguments_digest: str
    decided_by_rule: str
    requested_by: str
    requested_at: str
    expires_at: str
    decided_at: str | None
    decided_by: str | None
    reason: str | None
    resume_command: str | None = Field(
        description="For a paused thinker run: the command that continues it once decided."
    )


class ApprovalList(BaseModel):
    """Approvals, oldest request first."""

    approvals: list[ApprovalView]
    count: int


class Approve(_Taken):
    """Approve a pending approval: its call may run, once."""

    decision: Literal["approve"]
    reason: str | None = Field(
        default=None, max_length=_MAX_TEXT, description="A note kept with the decision."
    )


class Reject(_Taken):
    """Reject a pending approval: its call does not run; the model reads the reason."""

    decision: Literal["reject"]
    reason: str = Field(
        min_length=1,
        max_length=_MAX_TEXT,
        pattern=r"\S",
        description="Why: the model reads it (no secrets). Required, not blank.",
    )


#: A decision about a pending approval: approve, or reject with a reason.
ApprovalDecision = Annotated[Approve | Reject, Field(discriminator="decision")]


class ApprovalDecided(BaseModel):
    """The approval as decided and, for an API execution, how its call ended."""

    approval: ApprovalView
    execution: ExecutionResult | None = Field(
        description="The call's result, for an approval of an execution made through this API."
    )


class AuditRecordView(BaseModel):
    """One audit record (fields as ``nucleo audit --json`` prints them)."""

    model_config = ConfigDict(extra="allow")

    sequence: int
    at: str
    kind: str
    thinker_class: str | None
    thinker_id: str | None
    conversation_id: str | None
    tool: str | None = None
    outcome: str | None = None
    reason: str | None = None


class AuditPage(BaseModel):
    """One page of audit records, in sequence order."""

    records: list[AuditRecordView]
    next_after: int | None = Field(
        description="Pass as after= for the next page; null when this page is the last."
    )
