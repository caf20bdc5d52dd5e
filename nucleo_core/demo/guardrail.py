"""The demo's admission rule: a person approves every high-risk tool, never a thinker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nucleo_core import Risk, Verdict

if TYPE_CHECKING:
    from nucleo_core import ToolHub, ToolProvider
    from nucleo_core.hub import AdmissionRule

__all__ = ["RULE_NAME", "PersonApproves", "register_guardrail"]

#: How the rule is named in the hub's admission record.
RULE_NAME = "a person approves high-risk tools"


class PersonApproves:
    """Refuses every tool declared high risk: a thinker may not grant itself one.

    Built fresh for each check, from the thinker asking; this one needs nothing from it.
    """

    def __init__(self, thinker: object) -> None:
        del thinker

    def check(self, provider: ToolProvider) -> Verdict:
        """Refuse, saying why and what would let the tool in."""
        return Verdict.refuse(
            f"{provider.name} is declared high risk, so a person must approve it; "
            "no thinker may add it by itself"
        )


def register_guardrail(hub: ToolHub) -> AdmissionRule:
    """Register the rule on ``hub``, for every thinker and every tool declared high risk."""
    return hub.register_admission(None, _high_risk, PersonApproves, name=RULE_NAME)


def _high_risk(provider: ToolProvider) -> bool:
    return provider.risk is Risk.HIGH
