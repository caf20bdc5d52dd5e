"""`SkillSelector`: which skills a thinker class may pull in, read at resolution time."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, final

from nucleo_core.skills._bundles import bundle_matches, normalize_bundle_prefix

if TYPE_CHECKING:
    from nucleo_core.skills.registry import SkillRegistry
    from nucleo_core.skills.skill import Skill

__all__ = ["SkillSelector"]

logger = logging.getLogger("nucleo.skills")


@final
class SkillSelector:
    """Names skills exactly, by bundle-id prefix, or all that a registry holds.

    A selector is only a declaration: nothing is looked up until `resolve`, so it never has
    to name the skills a skilljar holds, and a skill registered after the selector was built
    is found. A declared name the registry does not hold is logged and skipped: a missing
    bundle never takes a thinker down.

    Example:
        >>> selector = SkillSelector("delegation")
        >>> selector.add_bundle("acme.skills.")
        SkillSelector(names=['delegation'], bundles=['acme.skills'], all=False)
    """

    __slots__ = ("_all", "_bundles", "_names")

    def __init__(self, *names: str) -> None:
        self._names: list[str] = []
        self._bundles: list[str] = []
        self._all = False
        for name in names:
            self.add(name)

    def add(self, name: str) -> SkillSelector:
        """Select the skill called ``name``.

        Raises:
            TypeError: ``name`` is not a string.
            ValueError: ``name`` is empty.
        """
        if not isinstance(name, str):
            raise TypeError(f"a skill name is a string, not {type(name).__name__}")
        if not name:
            raise ValueError("a skill name cannot be empty")
        if name not in self._names:
            self._names.append(name)
        return self

    def add_bundle(self, prefix: str) -> SkillSelector:
        """Select every skill whose bundle id is ``prefix`` or nested in it.

        A trailing dot is optional: ``"acme.skills."`` and ``"acme.skills"`` both select the
        bundles ``acme.skills`` and ``acme.skills.research``, never ``acme.skillset``.

        Raises:
            TypeError: ``prefix`` is not a string.
            ValueError: ``prefix`` is empty; use `add_all` to select every skill.
        """
        normalized = normalize_bundle_prefix(prefix)
        if normalized not in self._bundles:
            self._bundles.append(normalized)
        return self

    def add_all(self) -> SkillSelector:
        """Select every skill the registry holds when the selector is resolved."""
        self._all = True
        return self

    @property
    def names(self) -> tuple[str, ...]:
        """The exact names selected, in the order given."""
        return tuple(self._names)

    @property
    def bundles(self) -> tuple[str, ...]:
        """The bundle prefixes selected (without trailing dots), in the order given."""
        return tuple(self._bundles)

    @property
    def selects_all(self) -> bool:
        """Whether every skill is selected."""
        return self._all

    def resolve(self, registry: SkillRegistry) -> list[Skill]:
        """The selected skills, read from ``registry`` now.

        The order is stable: the exact names in the order given, then the skills matched by
        a bundle prefix or by `add_all`, in registry order; each skill once. A name the
        registry does not hold is logged (a warning on ``nucleo.skills``) and skipped.
        """
        chosen: dict[str, Skill] = {}
        for name in self._names:
            skill = registry.get(name)
            if skill is None:
                logger.warning(
                    "skill %r is not registered; %r skips it (is the skilljar holding it "
                    "installed?)",
                    name,
                    self,
                )
                continue
            chosen.setdefault(skill.name, skill)
        if self._all or self._bundles:
            for skill in registry.skills():
                if self._all or any(bundle_matches(skill.bundle, p) for p in self._bundles):
                    chosen.setdefault(skill.name, skill)
        return list(chosen.values())

    def __repr__(self) -> str:
        return f"SkillSelector(names={self._names}, bundles={self._bundles}, all={self._all})"
