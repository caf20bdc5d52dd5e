"""`SkillRegistry`: skill names to skills, in a stable order."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator
from typing import final

from nucleo_core.skills._bundles import bundle_matches, normalize_bundle_prefix
from nucleo_core.skills.errors import SkillCollisionError
from nucleo_core.skills.skill import Skill

__all__ = ["SkillRegistry"]

logger = logging.getLogger("nucleo.skills")


@final
class SkillRegistry:
    """Maps skill names to skills; what `SkillSelector` resolves against.

    - **Order** is registration order: re-registering keeps a skill's place and a new skill
      appends, so anything built from the registry (a ``request_skill`` schema) is stable.
    - **Duplicates**: a registration under an existing name from the same bundle replaces
      the skill in place (an upsert: reloading a bundle is harmless); from a different bundle
      it raises `SkillCollisionError`, unless ``shadow=True`` asks for a deliberate
      replacement, which is logged.
    - **Threads**: every method may be called from any thread; readers get snapshots.
    """

    __slots__ = ("_lock", "_skills")

    def __init__(self, skills: Iterable[Skill] = ()) -> None:
        self._skills: dict[str, Skill] = {}
        self._lock = threading.RLock()
        self.register_all(skills)

    def register(self, skill: Skill, *, shadow: bool = False) -> Skill:
        """Register ``skill`` under its name.

        Args:
            skill: The skill to register.
            shadow: Replace a skill of the same name from a different bundle instead of
                raising; the replacement is logged on ``nucleo.skills``.

        Returns:
            ``skill``.

        Raises:
            TypeError: ``skill`` is not a `Skill`.
            SkillCollisionError: The name is held by a skill from a different bundle and
                ``shadow`` is false.
        """
        if not isinstance(skill, Skill):
            raise TypeError(f"register() takes a Skill, not {type(skill).__name__}")
        with self._lock:
            existing = self._skills.get(skill.name)
            if existing is not None and existing.bundle != skill.bundle:
                if not shadow:
                    raise SkillCollisionError(skill.name, existing.bundle, skill.bundle)
                logger.info(
                    "skill %s from %s shadowed by the one from %s",
                    skill.name,
                    existing.location or existing.bundle or "(no bundle)",
                    skill.location or skill.bundle or "(no bundle)",
                )
            # Assigning to an existing key keeps its position: a re-registration keeps its place.
            self._skills[skill.name] = skill
        return skill

    def register_all(self, skills: Iterable[Skill], *, shadow: bool = False) -> list[Skill]:
        """Register each of ``skills`` in order; returns them.

        Stops at the first collision, leaving the skills before it registered.
        """
        return [self.register(skill, shadow=shadow) for skill in skills]

    def unregister(self, skill: str | Skill) -> Skill | None:
        """Remove a skill by name, or a given skill if the registry holds it (or an equal one).

        Unregistering what is not registered is a no-op.

        Returns:
            The skill removed, or ``None``.

        Raises:
            TypeError: ``skill`` is ``None`` (or neither a name nor a `Skill`).
        """
        if not isinstance(skill, str | Skill):
            raise TypeError(f"unregister() takes a skill name or a Skill, not {skill!r}")
        with self._lock:
            name = skill if isinstance(skill, str) else skill.name
            held = self._skills.get(name)
            if held is None or (isinstance(skill, Skill) and held != skill):
                return None
            del self._skills[name]
            return held

    def get(self, name: str | None) -> Skill | None:
        """The skill registered under ``name``, or ``None`` (also for a ``None`` name)."""
        if not isinstance(name, str):
            return None
        return self._skills.get(name)

    def names(self) -> list[str]:
        """Every registered name, in registry order."""
        with self._lock:
            return list(self._skills)

    def skills(self) -> list[Skill]:
        """Every registered skill, in registry order."""
        with self._lock:
            return list(self._skills.values())

    def select_bundle(self, prefix: str) -> list[Skill]:
        """The skills whose bundle id is ``prefix`` or nested in it, in registry order.

        ``"acme.skills"`` and ``"acme.skills."`` both match the bundles ``acme.skills`` and
        ``acme.skills.research``, and neither matches ``acme.skillset``.

        Raises:
            ValueError: ``prefix`` is empty (or only dots).
        """
        normalized = normalize_bundle_prefix(prefix)
        return [skill for skill in self.skills() if bundle_matches(skill.bundle, normalized)]

    def __iter__(self) -> Iterator[Skill]:
        return iter(self.skills())

    def __len__(self) -> int:
        return len(self._skills)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Skill):
            return self._skills.get(item.name) == item
        return isinstance(item, str) and item in self._skills

    def __repr__(self) -> str:
        return f"<SkillRegistry {len(self._skills)} skills>"
