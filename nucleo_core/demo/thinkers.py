"""The demo's thinkers: a planner that asks for what it needs, a read-only reviewer, a host."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from nucleo_core import AnswerSize, SkillSelector, ThinkerDeclaration, ToolSelector
from nucleo_core.demo.tools import forecast, send_invitations, sunset
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

if TYPE_CHECKING:
    from nucleo_core.tools import ToolLike

__all__ = [
    "HOST_SYSTEM",
    "PLANNER_SYSTEM",
    "REVIEWER_SYSTEM",
    "SKILL_BUNDLE",
    "PicnicHost",
    "PicnicPlanner",
    "PlanReviewer",
]

#: The bundle id the demo's skills are registered under (the package folder holding them).
SKILL_BUNDLE = "nucleo_core.demo.skills"

PLANNER_SYSTEM = (
    "You plan picnics. You start with no tools: ask for the ones you need with request_tools "
    "(the weather, the sunset, and sending the invitations), then load the skill that fits "
    "the task with request_skill and follow it. When something you asked for is refused, say "
    "so in your answer instead of trying again."
)

REVIEWER_SYSTEM = (
    "You review picnic plans and then send the invitations with send_invitations. When a "
    "call is refused, do not try it again: say in your answer why it was refused."
)

HOST_SYSTEM = (
    "You send a picnic's invitations with send_invitations, in one turn: one call to "
    '"the team", and one to "the families". Each sending needs an approval; when a call is '
    "not approved, say so in your answer."
)

# A plan names its time window: "17:30-19:30", with a hyphen or a dash.
_TIME_WINDOW = re.compile(r"\b\d{1,2}:\d{2}\s*[-\u2013]\s*\d{1,2}:\d{2}\b")


class PicnicPlanner(SingleObjectiveThinker[str, str]):
    """Plans a picnic: asks for the tools it needs and pulls in the picnic-planning skill.

    It starts with no tool of its own. Its catalog is the two look-ups and `send_invitations`,
    which the demo's admission rule refuses; its skill catalog is the demo's skills.
    """

    #: The seat ``nucleo run`` and the demo build it with.
    declaration = ThinkerDeclaration("standard", AnswerSize.MEDIUM)

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """What the model may ask for with ``request_tools``."""
        return ToolSelector.of([forecast, sunset, send_invitations])

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        """What the model may pull in with ``request_skill``."""
        return SkillSelector().add_bundle(SKILL_BUNDLE)

    def validate_answer(self, answer: str) -> str | None:
        """Refuse a plan that gives no time window; the model is told what is missing."""
        if _TIME_WINDOW.search(answer) is None:
            return "A picnic plan gives its time window, written as HH:MM-HH:MM."
        return None


class PlanReviewer(SingleObjectiveThinker[str, str]):
    """Reviews a plan. The demo binds it read-only: it may look, and never act."""

    #: The seat ``nucleo run`` and the demo build it with.
    declaration = ThinkerDeclaration("standard", AnswerSize.SHORT)

    @classmethod
    def declare_default_tools(cls) -> Iterable[ToolLike]:
        """A look-up of its own: read-only, so the read-only palette keeps it."""
        return [forecast]


class PicnicHost(SingleObjectiveThinker[str, str]):
    """Sends a plan's invitations: ``send_invitations`` is its own, and each call is approved.

    The tool is declared high risk, so the guard's default policy makes each call
    ``confirm``: it runs only once an approver approved it, or, in a durable run, waits for a
    durable approval while the run pauses.
    """

    #: The seat ``nucleo run`` and the demo build it with.
    declaration = ThinkerDeclaration("standard", AnswerSize.SHORT)

    @classmethod
    def declare_default_tools(cls) -> Iterable[ToolLike]:
        """The one high-risk tool, in every palette."""
        return [send_invitations]
