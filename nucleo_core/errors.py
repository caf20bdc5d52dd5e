"""The one error hierarchy of nucleo.

Errors are kept apart by who has to act on them::

    NucleoError
    ├── CorrectableError            meant for the model: names the field, type, allowed names or
    │   │                           reason, and never echoes what the model sent
    │   ├── InvalidToolInput        a tool call's input does not fit the published schema
    │   ├── UnknownTool             a call named a tool the registry cannot reach
    │   ├── ReadOnlyViolation       a read-only palette was asked to run a mutating tool
    │   ├── PermissionDenied        the permission guard denied the call, or its approval
    │   ├── ToolNotAdmitted         (nucleo_core.hub) a deferred tool refused at its first call
    │   ├── AnswerRefused           an answer the declared output type cannot hold
    │   └── ArtifactError           (nucleo_core.conversations) ArtifactNotFound,
    │                               ArtifactPathError, ArtifactSearchError
    ├── MisuseError                 meant for the developer: a mistake in code or configuration
    │   ├── ToolDeclarationError    a tool is misdeclared (every problem listed at once)
    │   ├── SchemaRefinementError   a schema refiner failed; the unrefined schema is not published
    │   ├── ToolCollisionError      two different kinds of provider claim one tool name;
    │   │                           ReservedToolName: a tool takes a name nucleo keeps for its own
    │   ├── ModelNotConfigured      a model cannot be reached as configured (key, server, entry)
    │   ├── PluginError             (nucleo_core.plugins) a plugin failed and the host is strict
    │   ├── ToolRecordError         (nucleo_core.search) a record given to a ToolIndex is not a tool
    │   ├── GuardConfigError        (nucleo_core.guard) the permission policy is misconfigured
    │   ├── AuditError              (nucleo_core.guard.audit) AuditConfigError, AuditValueError,
    │   │                           AuditStoreError: the audit record cannot be kept as asked
    │   ├── SkillFormatError        (nucleo_core.skills) a skill folder breaks the Agent Skills
    │   │                           layout; SkillCollisionError: two bundles, one skill name
    │   ├── NotPaused               resume() was asked of a conversation with no paused turn
    │   ├── ConversationError       (nucleo_core.conversations) ConversationStoreError,
    │   │                           ConversationClosedError, ConversationConflict,
    │   │                           ConversationBusy: another process writes the conversation
    │   └── MCPConfigError          (nucleo_core.mcp) a server misconfigured; MCPCollisionError:
    │                               two servers, one tool name (the fix: a prefix)
    ├── ModelError                  a model provider did not answer usably
    │   ├── ModelRateLimited        429; carries the provider's retry-after, when it gave one
    │   ├── ModelServerError        the provider failed (5xx)
    │   ├── ModelConnectionError    no connection, or it timed out
    │   ├── ModelRequestRejected    the provider refused the request (4xx: auth, bad request)
    │   └── ModelResponseMalformed  the provider's reply could not be read
    ├── ResponseError               the model's answer stayed unusable after every correction
    │   ├── ResponseParseError      the answer could not be parsed
    │   └── ResponseValidationError the answer lacks a required field or has a wrong type
    ├── ThinkerIterationLimit       a thinker's model gave no final answer within its turns
    └── RunPaused                   a run waits for durable approvals (not a failure): decide
                                    them in any process, then resume the conversation

A correctable error's ``str()`` is what the model reads. Anything that could quote the model's own
input (a JSON decoder's complaint, pydantic's or jsonschema's message) survives only as
``__cause__``, where only a stack trace shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from nucleo_core._error_roots import CorrectableError, MisuseError, NucleoError

if TYPE_CHECKING:
    from nucleo_core.guard.approval_record import ApprovalRecord

__all__ = [
    "AnswerRefused",
    "CorrectableError",
    "InvalidToolInput",
    "MisuseError",
    "ModelConnectionError",
    "ModelError",
    "ModelNotConfigured",
    "ModelRateLimited",
    "ModelRequestRejected",
    "ModelResponseMalformed",
    "ModelServerError",
    "NotPaused",
    "NucleoError",
    "PermissionDenied",
    "ReadOnlyViolation",
    "ReservedToolName",
    "ResponseError",
    "ResponseParseError",
    "ResponseValidationError",
    "RunPaused",
    "SchemaRefinementError",
    "ThinkerIterationLimit",
    "ToolCollisionError",
    "ToolDeclarationError",
    "UnknownTool",
]


class InvalidToolInput(CorrectableError):
    """A tool call's input does not fit the tool's published input schema.

    Attributes:
        tool: The name of the tool whose input was refused.
        problems: One line per problem, each naming a field path and the declared type or
            constraint; never the value that was sent.
    """

    def __init__(self, tool: str, problems: Sequence[str]) -> None:
        self.tool = tool
        self.problems = tuple(problems)
        listed = "; ".join(self.problems)
        super().__init__(f"Invalid input for tool '{tool}': {listed}")


class UnknownTool(CorrectableError):
    """A call named a tool that is not registered (or not reachable right now).

    The requested name is deliberately not repeated: it is the model's own text.

    Attributes:
        available: The names a call may reach, in the registry's order.
    """

    def __init__(self, available: Sequence[str]) -> None:
        self.available = tuple(available)
        names = ", ".join(self.available) if self.available else "(none)"
        super().__init__(f"No such tool is available. Available tools: {names}")


class ReadOnlyViolation(CorrectableError):
    """A thinker bound to a read-only palette was asked to run a tool not declared read-only.

    Attributes:
        tool: The name of the refused tool.
    """

    def __init__(self, tool: str) -> None:
        self.tool = tool
        super().__init__(
            f"Tool '{tool}' is not declared read-only and this palette is bound read-only; "
            "choose a read-only tool instead"
        )


class PermissionDenied(CorrectableError):
    """The permission guard denied a call, or the approval it needed was not given.

    Its message is the guard's (or the approver's) reason, which names the tool and never an
    argument value.

    Attributes:
        tool: The name of the refused tool.
        decided_by: What decided, for the record (``rule:...``, ``hook:...``, ``approval``).
    """

    def __init__(self, tool: str, reason: str, *, decided_by: str = "") -> None:
        self.tool = tool
        self.decided_by = decided_by
        super().__init__(reason)


class AnswerRefused(CorrectableError):
    """The model's answer cannot be accepted as it is; the message tells it how to answer.

    Composed from the contract (the answer schema, the field path, the declared type), never
    from the payload the model sent.

    Attributes:
        kind: ``"parse"`` when the answer could not be parsed at all, ``"validation"`` when it
            parsed but does not fit the declared type.
        problems: One line per problem.
    """

    def __init__(self, kind: str, message: str, problems: Sequence[str] = ()) -> None:
        self.kind = kind
        self.problems = tuple(problems)
        super().__init__(message)


class ToolDeclarationError(MisuseError, TypeError):
    """A tool is misdeclared. Lists every problem found, not just the first.

    Attributes:
        target: A readable name of the misdeclared class or function.
        problems: One line per problem, each saying what is wrong and how to fix it.
    """

    def __init__(self, target: str, problems: Sequence[str]) -> None:
        self.target = target
        self.problems = tuple(problems)
        listed = "\n".join(f"  - {problem}" for problem in self.problems)
        super().__init__(f"{target} is not a valid tool declaration:\n{listed}")


class SchemaRefinementError(MisuseError):
    """A tool's declared schema refiner failed, so its schema is not published at all.

    Publishing the unrefined schema would offer the model exactly what the refiner exists to
    narrow away.
    """


class ToolCollisionError(MisuseError):
    """A registration under an existing name by a different kind of provider.

    Attributes:
        name: The contested tool name.
    """

    def __init__(self, name: str, existing: str, incoming: str) -> None:
        self.name = name
        super().__init__(
            f"Tool name '{name}' is already registered by a {existing}; a {incoming} cannot "
            "take it. Rename one of the tools, or register with shadow=True to replace the "
            "existing tool deliberately (the replacement is recorded in registry.shadowed)."
        )


class ReservedToolName(ToolCollisionError):
    """A tool takes a name nucleo keeps for its own tools (``request_tools``, ``sub_thinker``...).

    Attributes:
        name: The reserved name.
        source: What published the tool (its source id, or the plugin or server).
    """

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        MisuseError.__init__(
            self,
            f"Tool name '{name}' is reserved for nucleo's own tools; {source} cannot take it. "
            "Rename the tool (an MCP server's tools: give the server a prefix).",
        )


class ModelNotConfigured(MisuseError):
    """A model cannot be reached as configured: a missing API key, server, SDK or catalog entry.

    The message says exactly what is missing and how to provide it.
    """


class NotPaused(MisuseError):
    """``resume(conversation_id)`` was asked of a conversation that has no paused turn.

    Attributes:
        conversation_id: The conversation.
    """

    def __init__(self, conversation_id: str, why: str) -> None:
        self.conversation_id = conversation_id
        super().__init__(f"conversation {conversation_id} cannot be resumed: {why}")


class ModelError(NucleoError):
    """A model provider did not answer usably. Adapters raise these, never an SDK's own errors.

    Attributes:
        provider: The adapter's provider name (``anthropic``, ``openai``, ...).
        status: The HTTP status, where there was one.
    """

    def __init__(self, message: str, *, provider: str, status: int | None = None) -> None:
        self.provider = provider
        self.status = status
        super().__init__(message)


class ModelRateLimited(ModelError):
    """The provider rate-limited the request (HTTP 429).

    Attributes:
        retry_after: Seconds the provider asked to wait, or ``None`` when it did not say.
    """

    def __init__(
        self, message: str, *, provider: str, status: int | None = 429, retry_after: float | None
    ) -> None:
        self.retry_after = retry_after
        super().__init__(message, provider=provider, status=status)


class ModelServerError(ModelError):
    """The provider failed on its side (HTTP 5xx, or an overloaded signal)."""


class ModelConnectionError(ModelError):
    """The provider could not be reached, or did not answer in time."""


class ModelRequestRejected(ModelError):
    """The provider refused the request (HTTP 4xx other than 429: auth, bad request, model)."""


class ModelResponseMalformed(ModelError):
    """The provider's reply could not be read as its own wire format."""


class ResponseError(NucleoError):
    """The model's answer stayed unusable after the correction budget was spent.

    Attributes:
        attempts: How many answers were tried, the first included.
    """

    def __init__(self, message: str, *, attempts: int) -> None:
        self.attempts = attempts
        super().__init__(message)


class ResponseParseError(ResponseError):
    """The answer could not be parsed (not JSON, or not the expected envelope)."""


class ResponseValidationError(ResponseError):
    """The answer parsed but lacks a required field or holds a value of the wrong type."""


class ThinkerIterationLimit(NucleoError):
    """A thinker reached its iteration cap without a final answer.

    What the model did, not a mistake in code: a small model may call tools turn after turn.
    Raise ``max_iterations``, or treat the run as one that gave no answer.
    """


class RunPaused(NucleoError):
    """A run paused: calls of its last answer wait for approvals nobody could give inline.

    Not a failure, of the model or of the code: the conversation is durable and kept with the
    paused turn (its pending tool uses, and the results of the calls that ran), and each
    pending call has an approval in the run's `ApprovalStore`. Any process may decide them
    (``nucleo approvals approve|reject ID``); ``await thinker.resume(conversation_id)`` (or
    ``nucleo resume CONVERSATION``) then goes on to the final answer, and raises `RunPaused`
    again while some approval is still pending.

    It is raised, rather than returned, so that ``run()`` keeps its declared output type: a
    caller that never pauses (no durable conversation) never meets it, and one that does
    catches it where it handles the run.

    Attributes:
        conversation_id: The paused conversation: what `resume` takes.
        approvals: The approvals still pending, in the calls' order.
    """

    def __init__(self, conversation_id: str, approvals: Sequence[ApprovalRecord]) -> None:
        self.conversation_id = conversation_id
        self.approvals: tuple[ApprovalRecord, ...] = tuple(approvals)
        tools = ", ".join(f"{a.tool} ({a.id})" for a in self.approvals) or "none"
        super().__init__(
            f"the run paused in conversation {conversation_id}: {len(self.approvals)} "
            f"call(s) wait for an approval: {tools}; decide them (`nucleo approvals`), then "
            f"resume it (`nucleo resume {conversation_id}`)"
        )
