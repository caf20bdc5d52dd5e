"""Approvals: who says yes to a ``confirm``-level call, in process.

A call the guard decides ``confirm`` runs only once an approver approved it. An approver is a
callable (plain or ``async``) that takes an `ApprovalRequest` and answers an `Approval` (or a
plain ``bool``). It is set on a thinker (``thinker.approver``), inherited by the thinker's
sub-thinkers, or on the hub for every thinker (``ToolHub(approver=...)``).

Everything fails closed: with no approver the call is refused (the model is told it needs an
approval nobody can give here), and an approver that raises or answers anything but an
`Approval`, a ``bool`` or ``"defer"`` rejects the call with an internal-error reason.

An approver may also **defer** (`Approval.defer`, or the answer ``"defer"``): it does not
decide now. In a run whose conversation is durable, a deferred call, like a call with no
approver, pauses the run: the approval is kept in an `ApprovalStore`
(`nucleo_core.guard.approval_store`) for any process to decide, and the run raises
`nucleo_core.errors.RunPaused` until it is resumed. A sub-thinker's call pauses its root run
the same way (see `nucleo_core.thinking.sub_thinker`). Where nothing could resume the run (a
temporary conversation), a deferred call is refused like a call with no approver.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from nucleo_core._answering import answer_of

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
        call_id: The call's tool-use id.
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
    call_id: str = ""


@dataclass(frozen=True, slots=True)
class Approval:
    """An approver's answer.

    Attributes:
        approved: Whether the call may run.
        reason: Why not (or why), read by the model when the call is rejected.
        deferred: The approver did not decide: the call waits for a durable approval (see
            the module); ``approved`` is then ``False``.
    """

    approved: bool
    reason: str = ""
    deferred: bool = False

    @classmethod
    def defer(cls, reason: str = "") -> Approval:
        """Leave the decision to a durable approval (a person, later, in any process)."""
        return cls(False, reason, deferred=True)


#: Decides one `ApprovalRequest` (or defers, answering ``"defer"``); may be ``async``.
Approver: TypeAlias = Callable[
    [ApprovalRequest], "Approval | bool | str | Awaitable[Approval | bool | str]"
]


async def ask_approver(approver: Approver, request: ApprovalRequest) -> Approval:
    """Ask ``approver`` about ``request``; never raises but cancellation.

    ``"defer"`` is read as `Approval.defer`. An approver that raises, or answers anything but
    an `Approval`, a ``bool`` or ``"defer"``, rejects the call: the model reads only that an
    internal error rejected it; the failure is logged on the ``nucleo.guard`` logger with its
    traceback.
    """
    try:
        answer = await answer_of(approver, request)
    except Exception:
        logger.exception(
            "the approver failed on the call of %r; the call is rejected", request.tool
        )
        return Approval(False, "the approval failed with an internal error")
    if isinstance(answer, Approval) and isinstance(answer.approved, bool):
        if answer.deferred is True:
            return Approval.defer(answer.reason if isinstance(answer.reason, str) else "")
        return (
            Approval(answer.approved, answer.reason)
            if isinstance(answer.reason, str)
            else Approval(answer.approved)
        )
    if isinstance(answer, bool):
        return Approval(answer)
    if answer == "defer":
        return Approval.defer()
    logger.error(
        "the approver answered a %s for the call of %r (an Approval, a bool or 'defer' is "
        "expected); "
        "the call is rejected",
        type(answer).__name__,
        request.tool,
    )
    return Approval(False, "the approval failed with an internal error")
