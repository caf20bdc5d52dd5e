"""`PermissionGuard`: the policy's decision, tightened by every ``nucleo_permission`` answer."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, final

from nucleo_core.guard._time_limit import DEFAULT_HOOK_TIMEOUT, TimeLimiter
from nucleo_core.guard.permission import PermissionDecision
from nucleo_core.guard.policy import PermissionPolicy
from nucleo_core.plugins.contributions import HookDecision
from nucleo_core.plugins.decision import Decision

if TYPE_CHECKING:
    from nucleo_core.guard.config import GuardConfig
    from nucleo_core.plugins.host import PluginHost
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["DEFAULT_HOOK_TIMEOUT", "PERMISSION_HOOK", "PermissionGuard"]

logger = logging.getLogger("nucleo.guard")

#: The hook the guard asks.
PERMISSION_HOOK = "nucleo_permission"

_INSTEAD = "choose another tool, or do the task without it"


@final
class PermissionGuard:
    """Decides each call: the policy's decision, then every permission hook's answer.

    The most restrictive of the policy's decision and every hook's answer wins (``deny`` >
    ``confirm`` > ``notify`` > ``auto``): a plugin can tighten the policy, never loosen it. A
    hook that raises, answers anything but a decision or ``None``, or leaves the hooks past
    ``hook_timeout`` counts as ``deny`` with an internal-error reason (the model is told only
    that an internal error denied the call; the failure, with the plugin and its
    distribution, is in the decision's ``detail`` and ``answers`` and is logged on the
    ``nucleo.guard`` logger). A strict host's `PluginError` is raised, as it asked.

    When no plugin implements ``nucleo_permission`` no thread is started and nothing is
    asked: the decision is the policy's, which it keeps per thinker class and tool.

    Args:
        policy: The permission policy; the defaults (`PermissionPolicy()`) when omitted.
        host: The plugin host whose ``nucleo_permission`` implementations are asked; ``None``
            asks none.
        hook_timeout: Seconds all of one call's hooks may take together (default 5). The hooks
            run in a daemon thread; past the limit the call is denied and what a slow hook
            answers afterwards is ignored.

    Raises:
        ValueError: ``hook_timeout`` is not a positive, finite number of seconds.
    """

    def __init__(
        self,
        policy: PermissionPolicy | None = None,
        host: PluginHost | None = None,
        *,
        hook_timeout: float = DEFAULT_HOOK_TIMEOUT,
    ) -> None:
        if (
            isinstance(hook_timeout, bool)
            or not isinstance(hook_timeout, int | float)
            or not math.isfinite(hook_timeout)
            or hook_timeout <= 0
        ):
            raise ValueError(
                f"hook_timeout must be a positive, finite number of seconds (got {hook_timeout!r})"
            )
        self.policy = policy if policy is not None else PermissionPolicy()
        self.host = host
        self.hook_timeout = float(hook_timeout)
        self._limiter = TimeLimiter("nucleo-permission")

    @classmethod
    def from_config(cls, config: GuardConfig, host: PluginHost | None = None) -> PermissionGuard:
        """A guard with the policy and the hook time limit of a configuration."""
        return cls(config.policy, host, hook_timeout=config.hook_timeout)

    def __repr__(self) -> str:
        return f"<PermissionGuard {self.policy!r}, hooks within {self.hook_timeout:g} s>"

    def decide(
        self, thinker: Any, provider: ToolProvider, arguments: Mapping[str, Any]
    ) -> PermissionDecision:
        """Decide a call of ``provider`` by ``thinker`` with ``arguments``.

        Args:
            thinker: The calling thinker, or ``None`` for a call from outside any thinker.
            provider: The called tool's provider.
            arguments: The call's validated input; hooks get a read-only view of it.

        Raises:
            PluginError: The host is strict and a hook failed.
        """
        decided = self.policy.decide(thinker, provider, arguments)
        host = self.host
        if host is None:
            return decided
        plugins = host.implementers(PERMISSION_HOOK)
        if not plugins:
            return decided
        view = MappingProxyType(arguments) if isinstance(arguments, dict) else arguments
        answers = self._answers(host, plugins, thinker, provider, view)
        return _combined(decided, answers, provider.name)

    def _answers(
        self,
        host: PluginHost,
        plugins: tuple[str, ...],
        thinker: Any,
        provider: ToolProvider,
        arguments: Mapping[str, Any],
    ) -> tuple[HookDecision, ...]:
        answers: list[HookDecision] = []

        def ask() -> None:
            for answer in host.permission(thinker, provider, arguments):
                answers.append(answer)

        if self._limiter.finished_within(ask, self.hook_timeout):
            return tuple(answers)
        asked = tuple(answers)  # what came in time; anything appended later is never read
        waited_for = plugins[len(asked)] if len(asked) < len(plugins) else PERMISSION_HOOK
        record = host.record(waited_for)
        distribution = record.distribution if record is not None else None
        error = f"no answer within {self.hook_timeout:g} s"
        logger.warning(
            "plugin %s (%s): %s in %s; the call of %r is denied",
            waited_for,
            distribution or "no known distribution",
            error,
            PERMISSION_HOOK,
            provider.name,
        )
        late = HookDecision(plugin=waited_for, distribution=distribution, error=error)
        return (*asked, late)


def _combined(
    decided: PermissionDecision, answers: tuple[HookDecision, ...], name: str
) -> PermissionDecision:
    """The most restrictive of the policy's decision and the answers; the first one on ties."""
    final = decided
    for answer in answers:
        if answer.error is not None:
            shipped = answer.distribution or "no known distribution"
            candidate = PermissionDecision(
                decision=Decision.DENY,
                reason=(
                    f"Calling '{name}' is denied: a permission check failed with an internal "
                    f"error; {_INSTEAD}."
                ),
                decided_by=f"hook:{answer.plugin}",
                detail=f"plugin {answer.plugin} ({shipped}): {answer.error}",
            )
        elif answer.decision is None:
            continue
        else:
            decision = answer.decision
            reason = (
                f"Calling '{name}' is denied by the permission policy; {_INSTEAD}."
                if decision is Decision.DENY
                else f"plugin {answer.plugin} decides '{name}': {decision.value}"
            )
            candidate = PermissionDecision(
                decision=decision, reason=reason, decided_by=f"hook:{answer.plugin}"
            )
        if candidate.decision > final.decision:
            final = candidate
    return PermissionDecision(
        decision=final.decision,
        reason=final.reason,
        decided_by=final.decided_by,
        detail=final.detail,
        answers=answers,
        policy=decided,
    )
