"""`Verdict`: what an admission guardrail decides about one requested tool or skill."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Verdict"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """A guardrail's decision: grant, or refuse with a reason the model will read.

    A guardrail that crashes produces no verdict: the hub records an internal error instead,
    which never grants.

    Attributes:
        granted: Whether the guardrail lets the tool or skill in.
        reason: Why it refused (sent to the model), or why it granted (for the record).
    """

    granted: bool
    reason: str = ""

    @classmethod
    def grant(cls, reason: str = "") -> Verdict:
        """A grant, with an optional reason for the record."""
        return cls(granted=True, reason=reason)

    @classmethod
    def refuse(cls, reason: str) -> Verdict:
        """A refusal; ``reason`` reaches the model, so write it for the model."""
        if not reason:
            raise ValueError("a refusal needs a reason: the model is told why it was refused")
        return cls(granted=False, reason=reason)
