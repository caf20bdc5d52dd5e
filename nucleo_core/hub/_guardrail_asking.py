"""Asking admission's guardrails: each rule, declared guardrail and hook, within a time limit.

An answer is an outcome, never an exception: a guardrail that crashes (building, matching or
checking) or answers malformed is an internal error, which refuses and is never read as a
verdict, and the others are still asked.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from nucleo_core.hub.admission import AdmissionRule, GuardrailOutcome, SkillAdmissionRule
from nucleo_core.plugins.contributions import HookVerdict
from nucleo_core.plugins.verdict import checked_verdict

__all__ = ["INTERNAL_ERROR", "ask", "hook_outcomes", "outcomes_within", "rule_outcomes"]

logger = logging.getLogger("nucleo.hub")

#: What the model is told when a guardrail crashed: never the crash itself, never a verdict.
INTERNAL_ERROR = "internal error in an admission guardrail; the request was not granted"


def ask(label: str, factory: Callable[[Any], Any], thinker: Any, subject: Any) -> GuardrailOutcome:
    """Build one guardrail for ``thinker`` and ask it about ``subject``.

    A crash (building or checking), or an answer that is not a `Verdict`, is an internal
    error, which refuses and is never read as a verdict.
    """
    try:
        answer = factory(thinker).check(subject)
    except Exception as exc:
        logger.exception("admission guardrail %s raised", label)
        return GuardrailOutcome(guardrail=label, error=f"{type(exc).__name__}: {exc}")
    try:
        verdict = checked_verdict(answer)
    except TypeError as exc:
        logger.error("admission guardrail %s answered malformed: %s", label, exc)
        return GuardrailOutcome(guardrail=label, error=f"malformed answer: {exc}")
    return GuardrailOutcome(guardrail=label, verdict=verdict)


def rule_outcomes(
    rules: Sequence[AdmissionRule] | Sequence[SkillAdmissionRule], thinker: Any, subject: Any
) -> Iterator[GuardrailOutcome]:
    """What each applicable rule's guardrail says about ``subject``; a crashed match included."""
    for rule in rules:
        outcome = _applies(rule, thinker, subject)
        if outcome is None:
            yield ask(rule.name, rule.factory, thinker, subject)
        elif outcome.error is not None:
            yield outcome


def _applies(
    rule: AdmissionRule | SkillAdmissionRule, thinker: Any, subject: Any
) -> GuardrailOutcome | None:
    """``None`` when ``rule`` applies to ``subject``; an outcome when it does not, or crashed.

    A match predicate that raises is an internal error for this subject only: it refuses this
    name, and the request's other names are decided on their own.
    """
    try:
        applies = rule.applies(thinker, subject)
    except Exception as exc:
        logger.exception("the match of admission rule %s raised", rule.name)
        return GuardrailOutcome(
            guardrail=rule.name, error=f"its match raised {type(exc).__name__}: {exc}"
        )
    return None if applies else GuardrailOutcome(guardrail=rule.name)


def hook_outcomes(said: Iterable[HookVerdict]) -> list[GuardrailOutcome]:
    """The outcomes of the ``nucleo_admit_*`` hook implementations, one per plugin."""
    return [
        GuardrailOutcome(guardrail=f"hook {each.plugin}", verdict=each.verdict, error=each.error)
        for each in said
    ]


def outcomes_within(
    seconds: float, ask: Callable[[list[GuardrailOutcome]], None]
) -> tuple[GuardrailOutcome, ...]:
    """Run ``ask`` (which appends outcomes) in a daemon thread, for ``seconds`` at most.

    Past the limit the outcomes gathered so far are kept for the record, one more outcome
    says the limit was reached (which refuses), and whatever the thread appends later is
    never read: the decision is taken here, once.
    """
    outcomes: list[GuardrailOutcome] = []
    failures: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            ask(outcomes)
        except BaseException as exc:  # handed to the caller, which decides what it means
            failures.append(exc)
        finally:
            done.set()

    context = contextvars.copy_context()  # guardrails see the caller's context variables
    worker = threading.Thread(target=context.run, args=(run,), name="nucleo-admission", daemon=True)
    worker.start()
    if not done.wait(seconds):
        asked = tuple(outcomes)
        logger.error(
            "admission took longer than %g s; refused (%d guardrail(s) had answered)",
            seconds,
            len(asked),
        )
        limit = GuardrailOutcome(
            guardrail="admission time limit",
            error=f"no decision within {seconds:g} s",
        )
        return (*asked, limit)
    if failures:
        raise failures[0]
    return tuple(outcomes)
