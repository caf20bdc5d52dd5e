"""`PermissionDecision`: what the guard decided about one call, why, and who decided it."""

from __future__ import annotations

from dataclasses import dataclass

from nucleo_core.plugins.contributions import HookDecision
from nucleo_core.plugins.decision import Decision

__all__ = ["PermissionDecision"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionDecision:
    """The guard's decision about one tool call.

    Attributes:
        decision: How the call may proceed.
        reason: For a ``deny``, what the model reads: a correctable refusal naming the tool and
            the policy's reason, never an argument value. Otherwise why the call may proceed,
            for the approver and the record.
        decided_by: What decided, for the record: ``default:risk=<level>``,
            ``default:meta-tool``, ``rule:<name or index>``, ``mcp:<server>:risk_policy``,
            ``hook:<plugin>``.
        detail: For the developer only, never sent to a model: what a failed hook raised, what
            is wrong with a server's ``risk_policy``. Empty when nothing failed.
        answers: Every ``nucleo_permission`` implementation's answer, in the order asked
            (empty when no plugin implements the hook).
        policy: The policy's own decision, when hooks were asked too; ``None`` otherwise.
    """

    decision: Decision
    reason: str
    decided_by: str
    detail: str = ""
    answers: tuple[HookDecision, ...] = ()
    policy: PermissionDecision | None = None

    @property
    def denied(self) -> bool:
        """Whether the call must not run."""
        return self.decision is Decision.DENY
