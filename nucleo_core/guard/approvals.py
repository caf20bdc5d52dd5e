"""Approvals: who says yes to a ``confirm``-level call, in process.

A call the guard decides ``confirm`` runs only once an approver approved it. An approver is a
callable (plain or ``async``) that takes an `ApprovalRequest` and answers an `Approval` (or a
plain ``bool``). It is set on a thinker (``thinker.approver``), inherited by the thinker's
sub-thinkers, or on the hub for every thinker (``ToolHub(approver=...)``).

Everything fails closed: with no approver the call is refused (the model is told it needs an
approval nobody can give here), and an approver that raises or answers anything but an
`Approval` or a ``bool`` rejects the call with an internal-error reason.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

__all__ = ["Approval", "ApprovalRequest", "Approver", "ask_approver"]

logger = logging.getLogger("nucleo.guard")


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequest:
    """One call waiting for an approval: what an approver is shown.

    Attributes:
        tool: The tool's name, as the model called it.
        source: The tool's source id (``native:...``, ``mcp:<server>:<tool>``).
        risk: The tool's declared risk (``"high"`` when it declares none).
        risk_declared: Whether the tool declared its risk.
        arguments: The call's arguments, as the model sent them and the schema accepted.
        thinker: The qualified name of the calling thinker's class.
        conversation_id: The conversation the call belongs to, when one is open.
        decided_by: What made the call need an approval (``default:risk=high``, a rule...).
        reason: The guard's reason, for the approver to read.
    """

    tool: str
    source: str
    risk: str
    risk_declared: bool
    arguments: Mapping[str, Any] = field(default_factory=dict)
    thinker: str = ""
    conversation_id: str | None = None
    decided_by: str = ""
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Approval:
    """An approver's answer.

    Attributes:
        approved: Whether the call may run.
        reason: Why not (or why), read by the model when the call is rejected.
    """

    approved: bool
    reason: str = ""


#: Decides one `ApprovalRequest`; may be ``async``.
Approver: TypeAlias = Callable[[ApprovalRequest], "Approval | bool | Awaitable[Approval | bool]"]


async def ask_approver(approver: Approver, request: ApprovalRequest) -> Approval:
    """Ask ``approver`` about ``request``; never raises but cancellation.

    An approver that raises, or answers anything but an `Approval` or a ``bool``, rejects the
    call: the model reads only that an internal error rejected it; the failure is logged on
    the ``nucleo.guard`` logger with its traceback.
    """
    try:
        answer: object = approver(request)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception:
        logger.exception(
            "the approver failed on the call of %r; the call is rejected", request.tool
        )
        return Approval(False, "the approval failed with an internal error")
    if isinstance(answer, Approval) and isinstance(answer.approved, bool):
        return answer if isinstance(answer.reason, str) else Approval(answer.approved)
    if isinstance(answer, bool):
        return Approval(answer)
    logger.error(
        "the approver answered a %s for the call of %r (an Approval or a bool is expected); "
        "the call is rejected",
        type(answer).__name__,
        request.tool,
    )
    return Approval(False, "the approval failed with an internal error")
