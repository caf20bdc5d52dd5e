"""`RiskGuard`: the ``nucleo_admit_tool`` implementation that enforces a `RiskLimit`."""

from __future__ import annotations

import os
import threading
from typing import Any, final

from nucleo_core import ToolProvider, Verdict, hookimpl
from nucleo_guard_risk.config import RiskLimit, risk_rank

__all__ = ["RiskGuard"]


@final
class RiskGuard:
    """Refuses tools declaring a risk above a limit to the thinkers the limit applies to.

    The hub asks it about every tool a model requests through ``request_tools``. A tool within
    the limit is granted (the grant and its reason go on the admission record); a tool above
    it is refused with a reason the model reads; a thinker the limit does not apply to gets
    no opinion. Tools a thinker holds from the start are not requested, so not checked.

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

    @hookimpl
    def nucleo_admit_tool(self, thinker: Any, provider: ToolProvider) -> Verdict | None:
        """Grant ``provider`` to ``thinker`` if its declared risk is within the limit."""
        limit = self.limit()
        if not limit.guards(type(thinker)):
            return None
        risk = provider.risk
        allowed = f"tools of {limit.max_risk.value} risk or lower"
        if risk_rank(risk) <= risk_rank(limit.max_risk):
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
