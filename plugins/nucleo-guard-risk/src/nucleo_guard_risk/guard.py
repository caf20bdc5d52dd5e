"""`RiskGuard`: enforces a `RiskLimit` at admission and at every call.

At admission (``nucleo_admit_tool``) a tool above the limit is refused, so the model is not
granted what it could never call; at every call (``nucleo_permission``, over nucleo's
permission guard) it is denied, which also covers the tools a thinker holds from the start.
Below the limit the plugin has no opinion at the call: nucleo's own policy decides (low
``auto``, medium ``notify``, high ``confirm``), and the most restrictive answer wins.
"""

from __future__ import annotations

import os
import threading
from typing import Any, final

from nucleo_core import ToolProvider, Verdict, hookimpl
from nucleo_core.guard import Decision, is_meta_tool
from nucleo_guard_risk.config import RiskLimit, risk_rank

__all__ = ["RiskGuard"]


@final
class RiskGuard:
    """Refuses tools declaring a risk above a limit to the thinkers the limit applies to.

    The hub asks it about every tool a model requests through ``request_tools``. A tool within
    the limit is granted (the grant and its reason go on the admission record); a tool above
    it is refused with a reason the model reads; a thinker the limit does not apply to gets
    no opinion. The permission guard asks it about every call, whatever the tool's origin
    (held from the start, system-wide, added, granted, MCP): a call above the limit is
    denied, any other gets no opinion.

    Without a ``limit``, the configuration is read at the first check (`RiskLimit.discover`,
    from the working directory) and kept for the life of the guard. A malformed configuration
    raises `GuardRiskConfigError` from the check, at every check until it is fixed: the host
    records it against this plugin, and the hub refuses the request as an internal error, so a
    broken configuration never grants what it meant to refuse.

    Args:
        limit: The limit to enforce; read from the configuration when omitted.
        start: Where to start looking for the configuration; the working directory at the
            first check when omitted.
    """

    def __init__(
        self, *, limit: RiskLimit | None = None, start: str | os.PathLike[str] | None = None
    ) -> None:
        self._limit = limit
        self._start = start
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<RiskGuard {self._limit!r}>" if self._limit else "<RiskGuard (not read yet)>"

    # A method, not a property: pluggy before 1.7 reads every attribute of a plugin object
    # with getattr() when registering it, which would read the configuration there.
    def limit(self) -> RiskLimit:
        """The limit enforced, read from the configuration on first call.

        Raises:
            GuardRiskConfigError: The configuration is malformed.
        """
        with self._lock:
            if self._limit is None:
                self._limit = RiskLimit.discover(self._start)
            return self._limit

    def _above_limit(self, thinker: Any, provider: ToolProvider) -> bool | None:
        """Whether ``provider`` is above the limit; ``None`` when ``thinker`` is not guarded."""
        limit = self.limit()
        if not limit.guards(type(thinker)):
            return None
        return risk_rank(provider.risk) > risk_rank(limit.max_risk)

    # It names no ``arguments``: the limit is on the tool's declared risk, never on its input.
    @hookimpl
    def nucleo_permission(self, thinker: Any, provider: ToolProvider) -> Decision | None:
        """Deny a call of a tool above the limit; no opinion on any other call.

        nucleo's meta-tools and ``sub_thinker`` get no opinion (``sub_thinker`` is declared
        high risk for what it leads to): they are judged by what they lead to, and every call
        a sub-thinker makes is asked about here in turn.
        """
        if is_meta_tool(provider):
            return None
        return Decision.DENY if self._above_limit(thinker, provider) else None

    @hookimpl
    def nucleo_admit_tool(self, thinker: Any, provider: ToolProvider) -> Verdict | None:
        """Grant ``provider`` to ``thinker`` if its declared risk is within the limit."""
        above = self._above_limit(thinker, provider)
        if above is None:
            return None
        limit = self.limit()
        risk = provider.risk
        allowed = f"tools of {limit.max_risk.value} risk or lower"
        if not above:
            return Verdict.grant(
                f"declared {risk.value} risk, within {allowed} (limit from {limit.origin})"
            )
        declared = (
            f"is declared {risk.value} risk"
            if provider.risk_declared
            else f"declares no risk, so it counts as {risk.value} risk"
        )
        return Verdict.refuse(
            f"'{provider.name}' {declared}, and you may only be granted {allowed}. "
            "Choose a lower-risk tool, or do the task without this one."
        )
