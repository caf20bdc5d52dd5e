"""`PermissionRule`: an override of the risk defaults, for the calls it matches."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import translate
from typing import Any

from nucleo_core.guard.errors import GuardConfigError
from nucleo_core.plugins.decision import Decision, checked_decision
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.risk import Risk

__all__ = ["RULE_KEYS", "PermissionRule"]

#: What a rule may name, in code and in a ``[[guard.rules]]`` table.
RULE_KEYS = ("name", "thinker", "tool", "source", "risk", "decision", "reason")

_DECISIONS = ", ".join(f'"{decision.value}"' for decision in Decision)
_RISKS = ", ".join(f'"{risk.value}"' for risk in Risk)


def _glob(pattern: str) -> re.Pattern[str]:
    # Compiled once, at the rule's creation: a rule is matched at every call.
    return re.compile(translate(pattern))


def _dotted(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionRule:
    """Decides the calls it matches, in place of the default for their declared risk.

    A rule matches a call when every criterion it names matches (a rule naming none matches
    every call):

    - ``thinker``: a thinker class, or its qualified name (``"myapp.agents:Reviewer"`` or
      ``"myapp.agents.Reviewer"``; globs allowed: ``"myapp.agents.*"``). It matches that class
      **and its subclasses**: a rule written for a class keeps covering the classes derived
      from it, so subclassing cannot escape a rule.
    - ``tool``: the tool's name, or a glob of names (``"delete_*"``), case-sensitive.
    - ``source``: a glob of the tool's source id (``"mcp:github:*"``, ``"native:*"``).
    - ``risk``: the tool's effective declared risk; a tool that declares none counts as
      ``high``, so ``risk="high"`` covers it too.

    When several rules match one call, the **most restrictive** decision among them wins
    (``deny`` > ``confirm`` > ``notify`` > ``auto``), whatever their order: adding a rule can
    tighten what another rule allowed, never loosen what another rule tightened. Among rules
    of equal decision, the first listed is the one named on the record.

    Attributes:
        decision: What the matched calls get (a string naming a decision is accepted and
            stored as the `Decision`).
        thinker: The thinker class (and subclasses) it applies to, or ``None`` for every one.
        tool: A tool name or glob, or ``None`` for every tool.
        source: A source id glob, or ``None`` for every source.
        risk: A declared risk (or its name), or ``None`` for every risk.
        reason: Why, in words for the model when the rule denies (never put secrets here), and
            for the approver and the record otherwise.
        name: How the rule is named on the record (``rule:<name>``); its position in the
            policy (``rule:<index>``) when omitted.

    Raises:
        GuardConfigError: A field is malformed; the message names it and the allowed values.
    """

    decision: Decision
    thinker: type[Any] | str | None = None
    tool: str | None = None
    source: str | None = None
    risk: Risk | None = None
    reason: str = ""
    name: str | None = None
    _thinker_pattern: re.Pattern[str] | None = field(
        init=False, default=None, repr=False, compare=False
    )
    _tool_pattern: re.Pattern[str] | None = field(
        init=False, default=None, repr=False, compare=False
    )
    _source_pattern: re.Pattern[str] | None = field(
        init=False, default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        where = f"PermissionRule{f' {self.name!r}' if isinstance(self.name, str) else ''}"
        try:
            decision = checked_decision(self.decision)
        except (TypeError, ValueError):
            raise GuardConfigError(f"{where}: decision must be one of {_DECISIONS}") from None
        object.__setattr__(self, "decision", decision)
        if self.risk is not None:
            if not isinstance(self.risk, str) or self.risk not in set(Risk):
                raise GuardConfigError(f"{where}: risk must be one of {_RISKS}, or omitted")
            object.__setattr__(self, "risk", Risk(str.__str__(self.risk)))
        for key in ("tool", "source"):
            value = getattr(self, key)
            if value is None:
                continue
            if not isinstance(value, str) or not value:
                raise GuardConfigError(
                    f"{where}: {key} must be a non-empty name or glob (a string), or omitted"
                )
            object.__setattr__(self, f"_{key}_pattern", _glob(value))
        thinker = self.thinker
        if isinstance(thinker, str):
            if not thinker.strip():
                raise GuardConfigError(f"{where}: thinker must not be empty")
            object.__setattr__(self, "_thinker_pattern", _glob(thinker.replace(":", ".")))
        elif thinker is not None and not isinstance(thinker, type):
            raise GuardConfigError(
                f'{where}: thinker must be a class, a "package.module:ClassName" string '
                "(globs allowed), or omitted"
            )
        if not isinstance(self.reason, str):
            raise GuardConfigError(f"{where}: reason must be a string")
        if self.name is not None and (not isinstance(self.name, str) or not self.name):
            raise GuardConfigError("PermissionRule: name must be a non-empty string, or omitted")

    def applies_to(self, thinker_class: type[Any]) -> bool:
        """Whether the rule's ``thinker`` criterion covers ``thinker_class`` (or it has none)."""
        thinker = self.thinker
        if thinker is None:
            return True
        if isinstance(thinker, type):
            return issubclass(thinker_class, thinker)
        pattern = self._thinker_pattern
        assert pattern is not None  # set in __post_init__ for every string
        return any(pattern.match(_dotted(cls)) for cls in thinker_class.__mro__)

    def matches(self, thinker_class: type[Any], provider: ToolProvider) -> bool:
        """Whether the rule decides a call of ``provider`` by a thinker of ``thinker_class``."""
        if self.risk is not None and provider.risk != self.risk:
            return False
        if self._tool_pattern is not None and not self._tool_pattern.match(provider.name):
            return False
        if self._source_pattern is not None and not self._source_pattern.match(provider.source):
            return False
        return self.applies_to(thinker_class)

    def label(self, index: int) -> str:
        """How the record names the rule: ``rule:<name>``, or ``rule:<index>`` in its policy."""
        return f"rule:{self.name}" if self.name else f"rule:{index}"
