"""The approver of ``nucleo run`` and ``nucleo chat``: the person at the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from nucleo_core.guard.approvals import Approval, ApprovalRequest

__all__ = ["terminal_approver"]


def terminal_approver(request: ApprovalRequest) -> Approval:
    """Ask on the terminal whether a ``confirm``-level call may run (``nucleo run``, ``chat``).

    Shows the tool, its declared risk, its source, what made it need an approval and its
    arguments, pretty-printed, on stderr (the answer streams on stdout), and reads yes or no.
    Anything but yes rejects it; the end of input rejects it too.
    """
    import json

    from nucleo_core.guard.approvals import Approval

    risk = request.risk if request.risk_declared else f"{request.risk} (undeclared)"
    arguments = json.dumps(dict(request.arguments), indent=2, sort_keys=True, default=str)
    click.echo("", err=True)
    click.echo(f"The model wants to call {request.tool} — it needs your approval.", err=True)
    click.echo(f"  risk:      {risk}", err=True)
    click.echo(f"  source:    {request.source}", err=True)
    if request.decided_by:
        click.echo(f"  because:   {request.decided_by}", err=True)
    click.echo("  arguments: " + arguments.replace("\n", "\n             "), err=True)
    try:
        approved = click.confirm("Run it?", default=False, err=True)
    except click.Abort:  # end of input, or Ctrl-C at the question: not approved
        approved = False
    if approved:
        return Approval(True)
    return Approval(False, "the user did not approve it at the terminal")
