"""The demo's approver: it approves the team's invitations and leaves any other to a person.

A ``confirm``-level call (``send_invitations`` is declared high risk, and the default policy
asks for an approval above medium) runs only once approved. In process, an approver callable
decides; this one is scripted, as tests script theirs. What it does not decide it *defers*:
in a durable run the call then waits for a durable approval, and the run pauses.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from nucleo_core.guard.approvals import Approval, ApprovalRequest

if TYPE_CHECKING:
    from nucleo_core.demo._narration import Narrator

__all__ = ["APPROVED_RECIPIENT", "scripted_approver"]

#: The only recipient the scripted approver approves invitations to.
APPROVED_RECIPIENT = "the team"


def scripted_approver(narrator: Narrator, thinker: str) -> Callable[[ApprovalRequest], Approval]:
    """The approver of the demo's host, telling what it decides (step 6, and the deferral)."""

    def decide(request: ApprovalRequest) -> Approval:
        to = request.arguments.get("to")
        shown = f"{request.tool}(to={json.dumps(to, ensure_ascii=False)})"
        risk = request.risk if request.risk_declared else f"{request.risk} (undeclared)"
        if isinstance(to, str) and to.strip().lower() == APPROVED_RECIPIENT:
            narrator.say(
                thinker,
                "step",
                f"{shown} is risk {risk}, so the guard asks for an approval before it runs; "
                f"the scripted approver approves invitations to {APPROVED_RECIPIENT}, and the "
                "call runs",
                step=6,
            )
            return Approval(True)
        narrator.say(
            thinker,
            "approval",
            f"{shown} needs an approval too; the scripted approver approves only invitations "
            f"to {APPROVED_RECIPIENT}, so it defers this one to a person",
        )
        return Approval.defer("only the organiser invites anyone beyond the team")

    return decide
