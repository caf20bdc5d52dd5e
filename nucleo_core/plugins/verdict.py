"""`Verdict`: what an admission guardrail decides about one requested tool or skill."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Verdict", "checked_verdict"]


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

    def __post_init__(self) -> None:
        # A decision read by truthiness would grant on ``granted="false"``: only a real bool
        # decides, and anything else is a malformed answer (which refuses).
        if type(self.granted) is not bool:
            raise TypeError(
                f"Verdict.granted must be a bool (True or False), not "
                f"{type(self.granted).__name__}; use Verdict.grant() or Verdict.refuse(reason)"
            )
        if not isinstance(self.reason, str):
            raise TypeError(f"Verdict.reason must be a str, not {type(self.reason).__name__}")

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


def checked_verdict(value: object) -> Verdict:
    """``value`` as a plain `Verdict`, checked field by field, or `TypeError`.

    A guardrail's answer is decided on only through this check: it must be a `Verdict` whose
    ``granted`` is exactly a `bool` and whose ``reason`` is a `str` (a subclass, or an instance
    whose fields were forced past ``__init__``, is read by its values and copied, so nothing
    it does later can change the decision).

    Raises:
        TypeError: ``value`` is not a `Verdict`, or its fields are not a bool and a str.
    """
    if not isinstance(value, Verdict):
        raise TypeError(f"expected a Verdict, got {type(value).__name__}")
    granted, reason = value.granted, value.reason
    if type(granted) is not bool or type(reason) is not str:
        raise TypeError(
            f"a Verdict needs granted: bool and reason: str, got granted: "
            f"{type(granted).__name__} and reason: {type(reason).__name__}"
        )
    return Verdict(granted=granted, reason=reason)
