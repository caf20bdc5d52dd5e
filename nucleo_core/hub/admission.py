"""Admission: the rules that decide whether a requested tool or skill is granted.

One door for every grant: rules registered on the hub (for a thinker class or for every
thinker), the guardrails a tool declares itself, and ``nucleo_admit_tool`` /
``nucleo_admit_skill`` hook implementations. A request is granted only when every applicable
guardrail passes. A refusal's reason reaches the model; a guardrail that raises is recorded as
an internal error, which refuses, never as a verdict, and the others are still asked.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, TypeAlias

from nucleo_core.plugins.verdict import Verdict
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.class_provider import ClassToolProvider
from nucleo_core.tools.function_provider import FunctionToolProvider
from nucleo_core.tools.provider import ToolProvider

__all__ = [
    "Admission",
    "AdmissionEvent",
    "AdmissionRule",
    "GuardrailOutcome",
    "SkillAdmissionRule",
    "SkillGuardrail",
    "ToolGuardrail",
    "ToolMatch",
]


class ToolGuardrail(Protocol):
    """Decides about one requested tool; built fresh per check by a rule's factory."""

    def check(self, provider: ToolProvider) -> Verdict:
        """Grant or refuse ``provider`` for the thinker the guardrail was built for."""
        ...


class SkillGuardrail(Protocol):
    """Decides about one requested skill; built fresh per check by a rule's factory."""

    def check(self, skill: Skill) -> Verdict:
        """Grant or refuse ``skill`` for the thinker the guardrail was built for."""
        ...


#: How a rule matches a requested tool: its tool class (or function), a name or glob of names
#: (``"github_*"``), or a predicate over its provider.
ToolMatch: TypeAlias = "type[Any] | Callable[..., Any] | str"


@dataclass(frozen=True, slots=True)
class AdmissionRule:
    """A tool admission rule: for which thinkers, which tools, and the guardrail to ask.

    Attributes:
        thinker_class: The thinker class the rule applies to (and its subclasses, and the
            sub-thinkers they launch), or ``None`` for every thinker.
        match: A tool class or ``@tool`` function, a name or glob, or a predicate over the
            requested tool's provider.
        factory: Builds a fresh guardrail per check from the requesting thinker.
        name: How the rule is named in the admission record.
    """

    thinker_class: type[Any] | None
    match: ToolMatch
    factory: Callable[[Any], ToolGuardrail]
    name: str

    def applies(self, thinker: object, provider: ToolProvider) -> bool:
        """Whether this rule is asked about ``provider`` for ``thinker``."""
        if self.thinker_class is not None and not _acts_for(thinker, self.thinker_class):
            return False
        match = self.match
        if isinstance(match, str):
            return fnmatch.fnmatchcase(provider.name, match)
        if isinstance(match, type) or _is_declared_tool(match):
            # A tool class or a @tool function: the rule is about that very tool.
            if isinstance(provider, ClassToolProvider):
                return provider.tool_class is match
            if isinstance(provider, FunctionToolProvider):
                return provider.function is match
            return False
        return bool(match(provider))  # a predicate over the provider


@dataclass(frozen=True, slots=True)
class SkillAdmissionRule:
    """A skill admission rule: for which thinkers, which skills, and the guardrail to ask.

    Attributes:
        thinker_class: The thinker class the rule applies to (as for `AdmissionRule`), or
            ``None`` for every thinker.
        match: A skill name or glob, or a predicate over the requested skill.
        factory: Builds a fresh guardrail per check from the requesting thinker.
        name: How the rule is named in the admission record.
    """

    thinker_class: type[Any] | None
    match: str | Callable[[Skill], bool]
    factory: Callable[[Any], SkillGuardrail]
    name: str

    def applies(self, thinker: object, skill: Skill) -> bool:
        """Whether this rule is asked about ``skill`` for ``thinker``."""
        if self.thinker_class is not None and not _acts_for(thinker, self.thinker_class):
            return False
        if isinstance(self.match, str):
            return fnmatch.fnmatchcase(skill.name, self.match) or fnmatch.fnmatchcase(
                skill.qualified_name, self.match
            )
        return bool(self.match(skill))


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardrailOutcome:
    """What one guardrail said: a verdict, or the internal error it raised instead.

    Attributes:
        guardrail: The rule, declared guardrail or hook implementation asked.
        verdict: Its verdict, or ``None`` when it had no opinion or raised.
        error: ``"<ExcType>: <message>"`` when it raised (which refuses).
    """

    guardrail: str
    verdict: Verdict | None = None
    error: str | None = None

    @property
    def refuses(self) -> bool:
        """Whether this outcome refuses the request (a refusal or a crash)."""
        return self.error is not None or (self.verdict is not None and not self.verdict.granted)


@dataclass(frozen=True, slots=True, kw_only=True)
class Admission:
    """The hub's answer to one request for one tool or skill.

    Attributes:
        name: The requested name.
        granted: Whether it is granted.
        reason: For a refusal, what the model is told; empty for a grant.
        provider: The granted tool's provider (``None`` for skills and refusals).
        skill: The granted skill (``None`` for tools and refusals).
        outcomes: What every guardrail asked said, in the order asked.
    """

    name: str
    granted: bool
    reason: str = ""
    provider: ToolProvider | None = None
    skill: Skill | None = None
    outcomes: tuple[GuardrailOutcome, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class AdmissionEvent:
    """One entry of the hub's admission record: who asked for what, and what it got.

    Attributes:
        at: When the decision was made (UTC).
        thinker_class: The requesting thinker's class, by qualified name.
        thinker: The requesting thinker's identity (``repr``).
        kind: ``"tool"`` or ``"skill"``.
        name: The requested name.
        granted: Whether it was granted.
        reason: The reason the model was told, for a refusal.
        outcomes: What each guardrail said.
    """

    thinker_class: str
    thinker: str
    kind: Literal["tool", "skill"]
    name: str
    granted: bool
    reason: str
    outcomes: tuple[GuardrailOutcome, ...]
    at: datetime = field(default_factory=lambda: datetime.now(UTC))


def _is_declared_tool(value: object) -> bool:
    return hasattr(value, "__nucleo_tool__")


def _acts_for(thinker: object, thinker_class: type[Any]) -> bool:
    """Whether ``thinker`` is a ``thinker_class``, or a delegate launched by one.

    A sub-thinker names the thinker it acts for as ``delegated_by``: a rule for the parent's
    class rules its delegates too, so delegation never admits what the parent would not get.
    """
    seen: set[int] = set()
    current: object = thinker
    while current is not None and id(current) not in seen:
        if isinstance(current, thinker_class):
            return True
        seen.add(id(current))
        current = getattr(current, "delegated_by", None)
    return False
