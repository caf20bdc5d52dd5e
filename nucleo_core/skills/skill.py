"""`Skill`: a packaged set of instructions in the Agent Skills layout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["Skill"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """One skill: a folder holding ``SKILL.md`` (YAML front matter, then instructions).

    Attributes:
        name: The skill's name (the front matter's ``name``, equal to its folder's name).
        description: What the skill is for and when to use it (front matter).
        instructions: The Markdown body of ``SKILL.md``, below the front matter.
        bundle: The bundle id: the dotted name of the package (or folder) holding the skill,
            which `SkillSelector` prefixes match (one prefix offers a whole skilljar).
        allowed_tools: The tools the skill's procedure may use, or ``None`` when it names none;
            when the skill is attached these become a restriction on the palette.
        license: The front matter's ``license``, if any.
        compatibility: The front matter's ``compatibility``, if any.
        metadata: The front matter's ``metadata`` mapping (strings to strings).
        location: Where the skill was read from (a path, or a package resource), for messages.
        disable_model_invocation: The front matter's ``disable-model-invocation`` (Claude
            Code's): when true the model is never offered the skill through ``request_skill``
            nor granted it; code and the user can still attach it.
        extra: The front matter fields the specification does not define (``user-invocable``,
            ``argument-hint``, ``version``, ``tools``...), kept as written (dates as text).
        resources: The skill's other files (``scripts/``, ``references/``, ``assets/``...), as
            paths relative to its folder with ``/``, sorted; an attached skill lists them to
            the model, which reads them with ``read_skill_file``.
        root: The skill's folder (a path, or a package resource inside a wheel or a zip), where
            `resources` are read from; ``None`` for a skill built in code.
        unresolved_tools: The ``allowed-tools`` entries that named no tool when the skill was
            loaded (no tool of that name, and no alias for it); see ``nucleo skills show``.

    Only the fields a skill's text is made of are compared: two skills read from the same
    ``SKILL.md`` in different places are equal.
    """

    name: str
    description: str
    instructions: str
    bundle: str = ""
    allowed_tools: tuple[str, ...] | None = None
    license: str | None = None
    compatibility: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    location: str = ""
    disable_model_invocation: bool = field(default=False, compare=False)
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), compare=False)
    resources: tuple[str, ...] = field(default=(), compare=False)
    root: Traversable | None = field(default=None, compare=False, repr=False)
    unresolved_tools: tuple[str, ...] = field(default=(), compare=False)

    @property
    def qualified_name(self) -> str:
        """``<bundle>.<name>``, or just the name for a skill outside any bundle."""
        return f"{self.bundle}.{self.name}" if self.bundle else self.name
