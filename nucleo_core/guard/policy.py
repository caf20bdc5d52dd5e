"""`PermissionPolicy`: declared risk becomes a decision, unless a rule or a server says otherwise.

What decides one call, in this order (the first that applies):

1. a server's ``risk_policy`` that is malformed: ``deny`` (a broken configuration never runs
   a tool of that server, whatever a rule says);
2. the matching rules (`PermissionRule`): the most restrictive among them;
3. nucleo's meta-tools (``request_tools``, ``request_skill``, ``search_tools``) and
   ``sub_thinker``: ``auto``, since each is judged by what it leads to (a grant still passes
   admission; each call of a sub-thinker's run passes the guard there);
4. the tool's MCP server's ``risk_policy``, for the tool's risk level when the map names it;
5. the default for the tool's declared risk (undeclared counts as ``high``).

The policy never reads a call's arguments: its decision for a thinker class and a tool is the
same at every call, so it is computed once and kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, final

from nucleo_core.guard.errors import GuardConfigError
from nucleo_core.guard.permission import PermissionDecision
from nucleo_core.guard.rule import PermissionRule
from nucleo_core.plugins.decision import Decision, checked_decision
from nucleo_core.tools.provider import NATIVE_PREFIX, ToolProvider
from nucleo_core.tools.reserved import REQUEST_SKILL, REQUEST_TOOLS, SEARCH_TOOLS, SUB_THINKER
from nucleo_core.tools.risk import Risk

__all__ = [
    "DEFAULT_RISK_DECISIONS",
    "META_TOOLS",
    "PermissionPolicy",
    "is_meta_tool",
    "risk_decisions",
]

#: The decision for each declared risk when nothing else decides.
DEFAULT_RISK_DECISIONS: Mapping[Risk, Decision] = MappingProxyType(
    {Risk.LOW: Decision.AUTO, Risk.MEDIUM: Decision.NOTIFY, Risk.HIGH: Decision.CONFIRM}
)

#: nucleo's own tools judged by what they lead to, which run without asking by default.
META_TOOLS = frozenset({REQUEST_TOOLS, REQUEST_SKILL, SEARCH_TOOLS, SUB_THINKER})

_DECISIONS = ", ".join(f'"{decision.value}"' for decision in Decision)
_RISKS = ", ".join(f'"{risk.value}"' for risk in Risk)
_INSTEAD = "choose another tool, or do the task without it"

# Past this many (thinker class, tool) pairs the kept decisions are dropped and recomputed:
# tools built per turn could otherwise grow the cache without bound.
_CACHE_LIMIT = 4096


def is_meta_tool(provider: ToolProvider) -> bool:
    """Whether ``provider`` is one of nucleo's own `META_TOOLS` (by name and native source).

    The names are reserved (no plugin, pack or MCP server may publish a tool under one), and
    the source is checked too, so nothing else passes for one.
    """
    name = provider.name
    return name in META_TOOLS and provider.source == NATIVE_PREFIX + name


def risk_decisions(table: Mapping[Any, Any] | None, *, where: str) -> dict[Risk, Decision]:
    """``table`` (risk level → decision name) over the defaults, checked.

    Raises:
        GuardConfigError: A key is not a risk level or a value not a decision name.
    """
    decisions = dict(DEFAULT_RISK_DECISIONS)
    if table is None:
        return decisions
    if not isinstance(table, Mapping):
        raise GuardConfigError(
            f"{where} must be a table of risk level to decision, e.g. "
            '{low = "auto", medium = "notify", high = "confirm"}'
        )
    for level, decision in table.items():
        if not isinstance(level, str) or level not in set(Risk):
            raise GuardConfigError(f"{where}: unknown risk level; allowed: {_RISKS}")
        try:
            decisions[Risk(str.__str__(level))] = checked_decision(decision)
        except (TypeError, ValueError):
            raise GuardConfigError(f"{where}.{level} must be one of {_DECISIONS}") from None
    return decisions


def _risk_phrase(provider: ToolProvider) -> str:
    risk = provider.risk.value
    if provider.risk_declared:
        return f"is declared {risk} risk"
    return f"declares no risk, so it counts as {risk} risk"


def _server_of(source: str) -> str:
    # ``mcp:<server>:<tool>``; any other source is named whole.
    parts = source.split(":")
    return parts[1] if len(parts) >= 3 and parts[0] == "mcp" else source


@final
class PermissionPolicy:
    """Decides every tool call from the tool's declared risk, the rules, and its server's map.

    See the module's description for the order. A policy is immutable (`with_rules` returns a
    new one), so the decisions it keeps stay true.

    Args:
        rules: The rules, in order (the order only chooses which of equally restrictive
            matching rules is named on the record).
        default: Risk level → decision, over `DEFAULT_RISK_DECISIONS` (``{"high": "deny"}``
            changes only ``high``).
        origin: Where the policy was read from, for messages and the record.

    Raises:
        GuardConfigError: ``default`` or a rule is malformed.
    """

    def __init__(
        self,
        rules: Iterable[PermissionRule] = (),
        *,
        default: Mapping[Risk, Decision] | Mapping[str, str] | None = None,
        origin: str = "code",
    ) -> None:
        self.rules: tuple[PermissionRule, ...] = tuple(rules)
        for index, rule in enumerate(self.rules):
            if not isinstance(rule, PermissionRule):
                raise GuardConfigError(
                    f"{origin}: rule {index} must be a PermissionRule, not {type(rule).__name__}"
                )
        self.default: Mapping[Risk, Decision] = MappingProxyType(
            risk_decisions(default, where=f"{origin}: default")
        )
        self.origin = origin
        self._kept: dict[tuple[type[Any], str, str, Risk], PermissionDecision] = {}

    def __repr__(self) -> str:
        return f"<PermissionPolicy {len(self.rules)} rule(s) from {self.origin}>"

    def with_rules(self, *rules: PermissionRule) -> PermissionPolicy:
        """A policy with ``rules`` added after this one's."""
        return PermissionPolicy(
            (*self.rules, *rules), default=dict(self.default), origin=self.origin
        )

    def decide(
        self,
        thinker: Any,
        provider: ToolProvider,
        arguments: Mapping[str, Any] | None = None,
    ) -> PermissionDecision:
        """Decide a call of ``provider`` by ``thinker``.

        Args:
            thinker: The calling thinker (``None`` for a call from outside any thinker: rules
                naming a thinker class do not match it).
            provider: The called tool's provider.
            arguments: The call's input. Never read: the policy decides from the thinker's
                class and the tool alone (hooks may read it).
        """
        del arguments
        thinker_class = type(thinker)
        server_map = getattr(provider, "risk_policy", None)
        if server_map is not None:  # rare (MCP tools), and read afresh: not kept
            return self._decided(thinker_class, provider, server_map)
        key = (thinker_class, provider.name, provider.source, provider.risk)
        kept = self._kept.get(key)
        if kept is None:
            kept = self._decided(thinker_class, provider, None)
            if len(self._kept) >= _CACHE_LIMIT:
                self._kept.clear()
            self._kept[key] = kept
        return kept

    def _decided(
        self, thinker_class: type[Any], provider: ToolProvider, server_map: object
    ) -> PermissionDecision:
        name, source = provider.name, provider.source
        server_decisions: dict[Risk, Decision] = {}
        if server_map is not None:
            server = _server_of(source)
            try:
                server_decisions = _server_decisions(server_map)
            except GuardConfigError as exc:
                return PermissionDecision(
                    decision=Decision.DENY,
                    reason=(
                        f"Calling '{name}' is denied: the permission policy of its server is "
                        f"misconfigured; {_INSTEAD}."
                    ),
                    decided_by=f"mcp:{server}:risk_policy",
                    detail=f"server {server!r}: {exc}",
                )
        chosen: tuple[int, PermissionRule] | None = None
        for index, rule in enumerate(self.rules):
            if rule.matches(thinker_class, provider) and (
                chosen is None or rule.decision > chosen[1].decision
            ):
                chosen = (index, rule)
        if chosen is not None:
            return _by_rule(name, *chosen)
        if is_meta_tool(provider):
            return PermissionDecision(
                decision=Decision.AUTO,
                reason=f"'{name}' is judged by what it leads to, each checked there",
                decided_by="default:meta-tool",
            )
        risk = provider.risk
        if risk in server_decisions:
            server = _server_of(source)
            decision = server_decisions[risk]
            return PermissionDecision(
                decision=decision,
                reason=_by_risk(provider, decision, f"server '{server}''s risk_policy"),
                decided_by=f"mcp:{server}:risk_policy",
            )
        decision = self.default[risk]
        return PermissionDecision(
            decision=decision,
            reason=_by_risk(provider, decision, "the policy's default"),
            decided_by=f"default:risk={risk.value}",
        )


def _server_decisions(server_map: object) -> dict[Risk, Decision]:
    """A server's ``risk_policy``: only the levels it names (the others keep the default)."""
    if not isinstance(server_map, Mapping):
        raise GuardConfigError(
            f"risk_policy must map risk levels to decisions, not {type(server_map).__name__}"
        )
    decisions = risk_decisions(server_map, where="risk_policy")
    return {risk: decisions[risk] for risk in Risk if risk.value in server_map}


def _by_rule(name: str, index: int, rule: PermissionRule) -> PermissionDecision:
    label = rule.label(index)
    if rule.decision is Decision.DENY:
        why = f": {rule.reason}" if rule.reason else ""
        reason = f"Calling '{name}' is denied by the permission policy{why}; {_INSTEAD}."
    else:
        reason = rule.reason or f"{label} decides '{name}': {rule.decision.value}"
    return PermissionDecision(decision=rule.decision, reason=reason, decided_by=label)


def _by_risk(provider: ToolProvider, decision: Decision, by: str) -> str:
    name, risk = provider.name, provider.risk.value
    if decision is Decision.DENY:
        return (
            f"Calling '{name}' is denied: it {_risk_phrase(provider)}, and {by} denies tools "
            f"of {risk} risk; choose a lower-risk tool, or do the task without it."
        )
    return f"'{name}' {_risk_phrase(provider)}; {by} for {risk} risk is {decision.value}"
