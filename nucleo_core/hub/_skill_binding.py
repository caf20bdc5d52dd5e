"""`SkillBinding`: the skills a thinker holds, kept in line with the conversation it runs in."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from nucleo_core.hub.admission import Admission
from nucleo_core.hub.meta_tools import RequestSkillResult
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.registry import ToolRegistry

__all__ = ["SkillBinding", "SkillConversation"]

logger = logging.getLogger("nucleo.skills")


class SkillConversation(Protocol):
    """What a thinker's skills read and write of the conversation a run or turn is on.

    `nucleo_core.conversations.ConversationContext` is one.
    """

    @property
    def id(self) -> str:
        """The conversation id."""

    @property
    def skills(self) -> tuple[str, ...]:
        """The names of the attached skills, in attachment order."""

    def skill_record(self, name: str) -> Skill | None:
        """The skill ``name`` as it was attached, else ``None`` (attached by name, or not)."""

    def attach_skill(self, skill: Skill | str) -> bool:
        """Attach a skill; ``False`` when one of that name was already attached."""


class SkillBinding:
    """A thinker's skills: the declared defaults, then those granted, and their restrictions.

    Args:
        lock: The thinker's lock, which every change holds.
        registry: The thinker's palette, whose surface each skill's ``allowed-tools`` restrict.
        restriction_for: A skill's ``allowed-tools`` as tool names.
        lookup: The hub's skill of a name, if any.
        restricted: Called when a restriction was set or lifted.
    """

    def __init__(
        self,
        *,
        lock: threading.RLock,
        registry: ToolRegistry,
        restriction_for: Callable[[Skill], frozenset[str]],
        lookup: Callable[[str], Skill | None],
        restricted: Callable[[], None],
    ) -> None:
        self._lock = lock
        self._registry = registry
        self._restriction_for = restriction_for
        self._lookup = lookup
        self._restricted = restricted
        self._skills: list[Skill] = []
        # The conversation the skills are attached to: a run's or turn's, bound while it runs
        # (`enter`), whose skills are then this thinker's. ``None`` between runs: a skill
        # attached then waits here and is carried into the next conversation.
        self._conversation: SkillConversation | None = None
        self.defaults: tuple[Skill, ...] = ()

    @property
    def held(self) -> list[Skill]:
        """The skills applied here now, without syncing them with the conversation first."""
        return self._skills

    def is_attached(self, name: str) -> bool:
        """Whether the conversation (or, between runs, this thinker) holds the skill ``name``."""
        return any(skill.name == name for skill in self.synced())

    def granted(self, name: str, admission: Admission) -> RequestSkillResult:
        """Attach the skill ``name`` when ``admission`` granted it; the answer to the request."""
        if not admission.granted or admission.skill is None:
            return RequestSkillResult(skill=name, granted=False, reason=admission.reason)
        with self._lock:  # checked again: a concurrent request may have attached it meanwhile
            if not self.is_attached(name):
                self.attach(admission.skill)
        return RequestSkillResult(skill=name, granted=True)

    def attach(self, skill: Skill) -> None:
        """Attach ``skill`` to the bound conversation, if any, then apply it here.

        The conversation first: a durable one commits the skill before it applies, so a skill
        the store refused is neither in the instructions nor in the restrictions.
        """
        with self._lock:
            context = self._conversation
            if context is not None and not context.attach_skill(skill):
                self.synced()  # attached there meanwhile: take its record
                return
            self._adopt([skill])

    def synced(self) -> tuple[Skill, ...]:
        """The skills held, brought in line with the bound conversation's first.

        A skill attached to the conversation by other code (`ConversationContext.attach_skill`)
        is adopted here, restriction included, so what `request_skill` reads as attached is
        always what the instructions and the surface hold.
        """
        with self._lock:
            context = self._conversation
            if context is not None:
                names = context.skills
                held = tuple(skill.name for skill in self._skills)
                if names[: len(held)] == held:
                    added = names[len(held) :]
                    if added:
                        self._adopt([self._resolved(context, n) for n in added])
                else:  # not what this thinker built from it: rebuild from the conversation
                    self._adopt([self._resolved(context, n) for n in names], replace=True)
            return tuple(self._skills)

    def enter(self, context: SkillConversation) -> None:
        """Bind the skills to ``context``, the conversation a run or turn starts on.

        The declared default skills are attached to the conversation when it lacks them (a new
        conversation receives them at its start), then the skills attached while no
        conversation was bound; this thinker's skills and their restrictions are then rebuilt
        from the conversation, so nothing of an earlier, unrelated conversation remains.
        """
        with self._lock:
            waiting = [*self.defaults, *self._skills]
            self._conversation = context
            for skill in waiting:
                context.attach_skill(skill)
            resolved = [self._resolved(context, n) for n in context.skills]
            self._adopt(resolved, replace=True)

    def leave(self) -> None:
        """Unbind the skills as the run or turn ends: back to the declared defaults alone."""
        with self._lock:
            self._conversation = None
            self._adopt(self.defaults, replace=True)

    def _adopt(self, skills: Sequence[Skill], *, replace: bool = False) -> None:
        """Apply ``skills`` here: after those held (or instead of them, with ``replace``).

        Each one's ``allowed-tools`` become its restriction. On ``replace``, the restrictions
        of the skills no longer held are lifted only once the new ones are in place.
        """
        with self._lock:
            previous = self._skills
            self._skills = [*skills] if replace else [*previous, *skills]
            changed = False
            for skill in skills:
                if skill.allowed_tools is not None:
                    allowed = self._restriction_for(skill)
                    self._registry.restrict(f"skill:{skill.name}", allowed)
                    changed = True
            if replace:
                kept = {skill.name for skill in skills if skill.allowed_tools is not None}
                for skill in previous:
                    if skill.allowed_tools is not None and skill.name not in kept:
                        changed |= self._registry.lift_restriction(f"skill:{skill.name}")
            if changed:
                self._restricted()

    def _resolved(self, context: SkillConversation, name: str) -> Skill:
        """The skill ``name`` of ``context``: its record there, else the hub's skill of that name.

        A skill attached by name only that no skill source provides cannot be rebuilt: it is
        logged, its instructions are left out, and as its ``allowed-tools`` are unknown it is
        taken to allow no tool (fail closed).
        """
        record = context.skill_record(name)
        if record is not None:
            return record
        found = self._lookup(name)
        if found is not None:
            return found
        logger.warning(
            "conversation %s has skill %r attached by name only, and no skill source provides "
            "it: its instructions are left out and, its allowed-tools unknown, it allows no tool",
            context.id,
            name,
        )
        return Skill(name=name, description="", instructions="", allowed_tools=())
