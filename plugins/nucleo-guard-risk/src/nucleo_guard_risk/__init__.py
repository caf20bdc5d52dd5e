"""nucleo-guard-risk: an admission guardrail that caps the declared risk of granted tools.

Installed, it registers itself through its ``nucleo.plugins`` entry point ``guard-risk``,
which names `guard`: a `RiskGuard` reading its limit from ``[tool.nucleo.guard-risk]`` in
``pyproject.toml`` (or ``[guard-risk]`` in ``nucleo.toml``) at its first check. Code that
wants another limit blocks the entry point and registers its own guard::

    host = PluginHost(block=["guard-risk"])
    host.register_plugin(RiskGuard(limit=RiskLimit(max_risk=Risk.LOW)), name="risk-low")

Importing this package does no I/O: the configuration is read lazily.
"""

from nucleo_guard_risk.config import DEFAULT_MAX_RISK, GuardRiskConfigError, RiskLimit
from nucleo_guard_risk.guard import RiskGuard

__all__ = ["DEFAULT_MAX_RISK", "GuardRiskConfigError", "RiskGuard", "RiskLimit", "guard"]

#: The guard the ``guard-risk`` entry point names; its limit is read at its first check.
guard = RiskGuard()
