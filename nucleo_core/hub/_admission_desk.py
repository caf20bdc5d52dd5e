"""`AdmissionDesk`: one hub's admission rules, each decision it takes, and the record of it."""

from __future__ import annotations

import logging
import math
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from nucleo_core.hub._admission_audit import admissions_on_record, record_admission
from nucleo_core.hub._guardrail_asking import (
    INTERNAL_ERROR,
    ask,
    hook_outcomes,
    outcomes_within,
    rule_outcomes,
)
from nucleo_core.hub._thinker_entries import entries_of
from nucleo_core.hub.admission import (
    Admission,
    AdmissionEvent,
    AdmissionRule,
    GuardrailOutcome,
    SkillAdmissionRule,
    SkillGuardrail,
    ToolGuardrail,
    ToolMatch,
)
from nucleo_core.plugins.errors import PluginError
from nucleo_core.plugins.verdict import Verdict
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.provider import ToolProvider

if TYPE_CHECKING:
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.hub._observer import AdmissionKind, AdmissionObserver
    from nucleo_core.plugins.host import PluginHost

__all__ = ["AdmissionDesk", "AdmissionHost", "checked_timeout"]

logger = logging.getLogger("nucleo.hub")


class AdmissionHost(Protocol):
    """What an `AdmissionDesk` reads from its hub at each decision (the hub may change them)."""

    @property
    def plugins(self) -> PluginHost:
        """The plugin host whose ``nucleo_admit_*`` hooks are asked."""

    @property
    def audit(self) -> AuditLog:
        """The audit log every decision is written to."""

    @property
    def observer(self) -> AdmissionObserver | None:
        """What is told of every decision, if anything."""

    @property
    def admission_timeout(self) -> float:
        """Seconds one name's admission may take, every guardrail included."""


class AdmissionDesk:
    """The admission of one hub (`ToolHub.admit_tool`, `ToolHub.admit_skill`).

    Args:
        host: The hub it decides for.
    """

    def __init__(self, host: AdmissionHost) -> None:
        self._host = host
        self._lock = threading.Lock()
        self._rules: list[AdmissionRule] = []
        self._skill_rules: list[SkillAdmissionRule] = []
        # Names this hub's admissions on the log, which other hubs (and other processes, on a
        # shared file) write to too: `admission_record` shows this hub's only.
        self.audit_id = os.urandom(8).hex()

    def add_rule(
        self,
        thinker_class: type[Any] | None,
        match: ToolMatch,
        factory: Callable[[Any], ToolGuardrail],
        name: str | None,
    ) -> AdmissionRule:
        """Add a tool admission rule (`ToolHub.register_admission`)."""
        rule = AdmissionRule(
            thinker_class, match, factory, name or _rule_name(factory, match, "tool")
        )
        with self._lock:
            self._rules.append(rule)
        return rule

    def add_skill_rule(
        self,
        thinker_class: type[Any] | None,
        match: str | Callable[[Skill], bool],
        factory: Callable[[Any], SkillGuardrail],
        name: str | None,
    ) -> SkillAdmissionRule:
        """Add a skill admission rule (`ToolHub.register_skill_admission`)."""
        rule = SkillAdmissionRule(
            thinker_class, match, factory, name or _rule_name(factory, match, "skill")
        )
        with self._lock:
            self._skill_rules.append(rule)
        return rule

    def admit_tool(self, thinker: Any, name: str) -> Admission:
        """Decide whether ``thinker`` may be granted the tool ``name`` (`ToolHub.admit_tool`)."""
        try:
            catalog = {provider.name: provider for provider in _tool_catalog_of(thinker)}
            provider = catalog.get(name) if isinstance(name, str) else None
            if provider is None:
                return self._decide(thinker, "tool", name, (), off_catalog=True)
            if thinker.read_only and not provider.read_only:
                refusal = GuardrailOutcome(
                    guardrail="read-only palette",
                    verdict=Verdict.refuse(
                        f"'{provider.name}' is not declared read-only and this palette is bound "
                        "read-only"
                    ),
                )
                return self._decide(thinker, "tool", name, (refusal,), provider=provider)
            with self._lock:
                rules = list(self._rules)
            plugins = self._host.plugins

            def ask_everyone(outcomes: list[GuardrailOutcome]) -> None:
                outcomes.extend(rule_outcomes(rules, thinker, provider))
                for index, factory in enumerate(provider.admission_guardrails):
                    label = f"{provider.name} declared guardrail {index + 1}"
                    outcomes.append(ask(label, factory, thinker, provider))
                outcomes.extend(hook_outcomes(plugins.admit_tool(thinker, provider)))

            asked = outcomes_within(self._host.admission_timeout, ask_everyone)
            return self._decide(thinker, "tool", name, asked, provider=provider)
        except PluginError:
            raise  # a strict host makes a failing plugin fatal, as it asked
        except Exception as exc:
            return self._decide_after_crash(thinker, "tool", name, exc)

    def admit_skill(self, thinker: Any, name: str, *, by_user: bool) -> Admission:
        """Decide whether ``thinker`` may be granted the skill ``name`` (`ToolHub.admit_skill`)."""
        try:
            catalog = {skill.name: skill for skill in _skill_catalog_of(thinker, by_user=by_user)}
            skill = catalog.get(name) if isinstance(name, str) else None
            if skill is None:
                return self._decide(thinker, "skill", name, (), off_catalog=True)
            with self._lock:
                rules = list(self._skill_rules)
            plugins = self._host.plugins

            def ask_everyone(outcomes: list[GuardrailOutcome]) -> None:
                outcomes.extend(rule_outcomes(rules, thinker, skill))
                outcomes.extend(hook_outcomes(plugins.admit_skill(thinker, skill)))

            asked = outcomes_within(self._host.admission_timeout, ask_everyone)
            return self._decide(thinker, "skill", name, asked, skill=skill)
        except PluginError:
            raise
        except Exception as exc:
            return self._decide_after_crash(thinker, "skill", name, exc)

    def record_revocation(self, thinker: Any, name: str, reason: str) -> None:
        """Put on the record that ``thinker``'s grant of the tool ``name`` was revoked."""
        outcome = GuardrailOutcome(guardrail="revocation", verdict=Verdict.refuse(reason))
        event = AdmissionEvent(
            thinker_class=type(thinker).__qualname__,
            thinker=repr(thinker),
            kind="tool",
            name=name,
            granted=False,
            reason=reason,
            outcomes=(outcome,),
        )
        self._record(thinker, event, "revocation")
        logger.info("revoked tool %r for %s: %s", name, event.thinker, reason)

    def record(self) -> tuple[AdmissionEvent, ...]:
        """Every grant, refusal and revocation of this hub on its audit log, oldest first.

        Raises:
            AuditStoreError: The log cannot be read.
        """
        return admissions_on_record(self._host.audit, self.audit_id)

    def _record(self, thinker: Any, event: AdmissionEvent, kind: AdmissionKind) -> None:
        """Tell the observer of an admission, and put it on the audit record."""
        observer = self._host.observer
        if observer is not None:
            observer.admission(thinker, event, kind)
        record_admission(self._host.audit, self.audit_id, thinker, event, kind)

    def _decide(
        self,
        thinker: Any,
        kind: Any,
        name: object,
        outcomes: tuple[GuardrailOutcome, ...],
        *,
        provider: ToolProvider | None = None,
        skill: Skill | None = None,
        off_catalog: bool = False,
    ) -> Admission:
        if off_catalog:
            noun = "tool" if kind == "tool" else "skill"
            reason = f"no {noun} of that name is in this thinker's catalog"
            outcomes = (GuardrailOutcome(guardrail="catalog", verdict=Verdict.refuse(reason)),)
        reasons = []
        for outcome in outcomes:
            if outcome.error is not None:
                reasons.append(INTERNAL_ERROR)
            elif outcome.verdict is not None and not outcome.verdict.granted:
                reasons.append(outcome.verdict.reason)
        granted = not reasons
        reason = "; ".join(dict.fromkeys(reasons))
        event = AdmissionEvent(
            thinker_class=type(thinker).__qualname__,
            thinker=repr(thinker),
            kind=kind,
            name=name if isinstance(name, str) else repr(name),
            granted=granted,
            reason=reason,
            outcomes=outcomes,
        )
        self._record(thinker, event, "grant" if granted else "refusal")
        # Refusals are routine (the model is told why), so both go at INFO; the record keeps all.
        logger.info(
            "%s %s %r for %s%s",
            "granted" if granted else "refused",
            kind,
            event.name,
            event.thinker,
            f": {reason}" if reason else "",
        )
        return Admission(
            name=event.name,
            granted=granted,
            reason=reason,
            provider=provider if granted else None,
            skill=skill if granted else None,
            outcomes=outcomes,
        )

    def _decide_after_crash(
        self, thinker: Any, kind: str, name: object, exc: Exception
    ) -> Admission:
        """Refuse ``name`` after admission itself failed, on the record like any decision."""
        logger.exception("admission of %s %r failed", kind, name)
        crash = GuardrailOutcome(guardrail="admission", error=f"{type(exc).__name__}: {exc}")
        return self._decide(thinker, kind, name, (crash,))


def checked_timeout(admission_timeout: float) -> float:
    """``admission_timeout`` as a float of seconds.

    Raises:
        ValueError: It is not a positive, finite number of seconds.
    """
    if (
        isinstance(admission_timeout, bool)
        or not isinstance(admission_timeout, int | float)
        or not math.isfinite(admission_timeout)
        or admission_timeout <= 0
    ):
        raise ValueError(
            "admission_timeout must be a positive, finite number of seconds "
            f"(got {admission_timeout!r})"
        )
    return float(admission_timeout)


def _tool_catalog_of(thinker: Any) -> Sequence[ToolProvider]:
    """The thinker's catalog now, as `ThinkerBase` computes it (an override cannot widen it)."""
    entries = entries_of(thinker)
    if entries is not None:
        return entries.tool_catalog()
    return cast("Sequence[ToolProvider]", thinker.tool_catalog())  # a duck-typed thinker


def _skill_catalog_of(thinker: Any, *, by_user: bool = False) -> Sequence[Skill]:
    """The thinker's skill catalog now, as `ThinkerBase` computes it (for a person, if asked)."""
    entries = entries_of(thinker)
    if entries is not None:
        return entries.skill_catalog(by_user)
    return cast("Sequence[Skill]", thinker.skill_catalog())


def _rule_name(factory: Callable[..., Any], match: object, kind: str) -> str:
    factory_name = getattr(factory, "__qualname__", None) or type(factory).__qualname__
    if isinstance(match, str):
        shown = match
    else:
        shown = getattr(match, "__qualname__", None) or type(match).__qualname__
    return f"{kind} rule {factory_name} for {shown}"
