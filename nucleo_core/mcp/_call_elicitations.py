"""Durable runs: an elicitation nobody answers inline is pending, and its decision answers it.

See `nucleo_core.mcp.elicitation` and `nucleo_core.thinking._execution_durable.ElicitationScope`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nucleo_core.mcp._elicitation_values import (
    ElicitationAnswer,
    ElicitationRequest,
    decline_every_request,
)

if TYPE_CHECKING:
    from nucleo_core.thinking._execution_durable import ElicitationScope

__all__ = ["CallElicitations"]

logger = logging.getLogger("nucleo.mcp")


def _asked(server: str, tool: str, request: ElicitationRequest) -> dict[str, Any]:
    """What an elicitation approval keeps of a request (and what a resumed call matches)."""
    asked: dict[str, Any] = {
        "server": server,
        "tool": tool,
        "message": request.message,
        "mode": request.mode,
    }
    if request.mode == "url":
        asked["url"] = request.url
    else:
        asked["schema"] = dict(request.schema)
    return asked


@dataclass(slots=True, eq=False)
class CallElicitations:
    """One MCP call's elicitations in a durable run (taken where the call starts).

    Attributes:
        server: The server called.
        tool: The tool's name on the server.
        scope: The turn's scope.
        pending: What the server asked that nobody could answer inline: the call pauses.
    """

    server: str
    tool: str
    scope: ElicitationScope
    pending: dict[str, Any] | None = None

    @classmethod
    def now(cls, server: str, tool: str) -> CallElicitations | None:
        """The current turn's, for a call of ``tool`` on ``server``; ``None`` outside one."""
        from nucleo_core.thinking._execution_durable import current_elicitation_scope

        scope = current_elicitation_scope()
        return None if scope is None else cls(server, tool, scope)

    def decided_answer(self, request: ElicitationRequest) -> ElicitationAnswer | None:
        """The answer a resumed turn's decision gives ``request`` (once), else ``None``."""
        record = self.scope.decision_for(_asked(self.server, self.tool, request))
        if record is not None:
            logger.info(
                "MCP server '%s' asked for input again; answered from its decided approval %s",
                self.server,
                record.id,
            )
            if record.status not in ("approved", "consumed"):
                return ElicitationAnswer.decline()
            if request.mode == "url":
                return ElicitationAnswer.accept()
            return ElicitationAnswer.accept(dict(record.content or {}))
        return None

    def answer(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Answer from a decision, else keep it pending (``cancel``), else decline."""
        decided = self.decided_answer(request)
        if decided is not None:
            return decided
        if self.scope.pausable:
            if self.pending is None:  # the first one pauses the run; a later one is asked anew
                self.pending = _asked(self.server, self.tool, request)
            logger.info(
                "MCP server '%s' asked for input with nobody to answer it now: it is told "
                "cancel, and the run pauses with the request pending",
                self.server,
            )
            return ElicitationAnswer.cancel()
        return decline_every_request(request)
