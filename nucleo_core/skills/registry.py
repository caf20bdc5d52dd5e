"""`SkillRegistry`: skill names to skills, in a stable order."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING, final

from nucleo_core.skills._bundles import bundle_matches, normalize_bundle_prefix
from nucleo_core.skills.aliases import SkillToolAliases, ToolResolution
from nucleo_core.skills.errors import SkillCollisionError
from nucleo_core.skills.skill import Skill

if TYPE_CHECKING:
    from nucleo_core.skills.config import SkillsConfig

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

    Skills the hub loads from skilljars and plugins go through `register_loaded`, which never
    raises: the configuration's renames apply, a name another bundle holds is taken as
    ``<bundle>:<name>`` (so same-named skills coexist and the model sees unique names), and
    ``allowed-tools`` entries that name no tool are reported.

    Args:
        skills: Skills to register at once.
        config: The skills configuration (tool aliases, renames); when omitted it is found
            from the working directory (`discover_skills_config`) the first time it is needed.
    """

    __slots__ = ("_aliases", "_config", "_lock", "_reported", "_skills")

    def __init__(self, skills: Iterable[Skill] = (), *, config: SkillsConfig | None = None) -> None:
        self._skills: dict[str, Skill] = {}
        self._lock = threading.RLock()
        self._config = config
        self._aliases: SkillToolAliases | None = None
        # (holder, skill name, unresolved entries) already warned about at attach.
        self._reported: set[tuple[str, str, tuple[str, ...]]] = set()
        self.register_all(skills)

    @property
    def config(self) -> SkillsConfig:
        """The skills configuration: the one given, else the working directory's.

        Raises:
            SkillsConfigError: The configuration found is malformed.
        """
        with self._lock:
            if self._config is None:
                from nucleo_core.skills.config import discover_skills_config

                self._config = discover_skills_config()
            return self._config

    def _config_or_defaults(self) -> SkillsConfig:
        """`config`, or the defaults when it is malformed: no alias, no rename (fail closed).

        The problem is logged as a warning each time; a later read finds the file again.
        """
        from nucleo_core.skills.config import SkillsConfig
        from nucleo_core.skills.errors import SkillsConfigError

        try:
            return self.config
        except SkillsConfigError as exc:
            logger.warning(
                "the skills configuration is ignored (no tool alias, no rename applies until "
                "it is fixed): %s",
                exc,
            )
            return SkillsConfig(origin=f"defaults (the configuration is malformed: {exc})")

    @property
    def tool_aliases(self) -> SkillToolAliases:
        """The tool aliases in force: the configuration's, then those packs declared.

        A malformed configuration counts as none (logged): no alias applies, so restrictions
        stay as narrow as the entries alone make them.
        """
        with self._lock:
            if self._aliases is None:
                config = self._config_or_defaults()
                self._aliases = SkillToolAliases(config.aliases, origin=config.origin)
            return self._aliases

    def register_loaded(
        self, skills: Iterable[Skill], *, known_tools: Collection[str] | None = None
    ) -> list[Skill]:
        """Register skills a skilljar or plugin brought, as loading does; never raises for them.

        Each skill is renamed as the configuration says (`SkillsConfig.name_for`). A name held
        by a skill of another bundle is not taken from it: the newcomer is registered as
        ``<bundle>:<name>``, with a warning saying how to rename either. Entries of its
        ``allowed-tools`` that grant no tool of ``known_tools`` (through their name or an
        alias) are kept in `Skill.unresolved_tools` and logged as a warning.

        Args:
            skills: The skills read.
            known_tools: The tool names installed packs and plugins provide; ``None`` judges
                only argument patterns without an alias unresolved.

        Returns:
            The skills as registered (renamed, qualified, with their unresolved entries).
        """
        config = self._config_or_defaults()
        registered: list[Skill] = []
        for skill in skills:
            name = config.name_for(skill.name, skill.bundle)
            if name != skill.name:
                skill = dataclasses.replace(skill, name=name)
            with self._lock:
                held = self._skills.get(skill.name)
                if held is not None and held.bundle != skill.bundle:
                    qualified = f"{skill.bundle}:{skill.name}" if skill.bundle else skill.name
                    logger.warning(
                        "skill %r from %s has the name of the one from %s; it is registered as "
                        "%r. To choose the names, rename either under [tool.nucleo.skills."
                        'rename] ("%s:%s" = "new-name"), or give its bundle a prefix under '
                        "[tool.nucleo.skills.prefix]",
                        skill.name,
                        skill.location or skill.bundle or "(no bundle)",
                        held.location or held.bundle or "(no bundle)",
                        qualified,
                        skill.bundle,
                        skill.name,
                    )
                    skill = dataclasses.replace(skill, name=qualified)
            skill = self._with_unresolved(skill, known_tools)
            try:
                registered.append(self.register(skill))
            except SkillCollisionError as exc:  # a qualified name held too: no third name
                logger.warning("skill skipped: %s: %s", skill.location, exc)
        return registered

    def _with_unresolved(self, skill: Skill, known: Collection[str] | None) -> Skill:
        if skill.allowed_tools is None:
            return skill
        resolution = self.tool_aliases.resolve(skill.allowed_tools, known=known)
        if not resolution.unresolved:
            return skill
        # Another agent's tool names (Claude Code's Read, Bash(...)) can only be aliases: a
        # warning. A plain name may be a tool a thinker defines in code, which loading cannot
        # see: it is kept on the skill and logged at INFO; attaching tells for sure.
        foreign = [entry for entry in resolution.unresolved if _foreign(entry)]
        logger.log(
            logging.WARNING if foreign else logging.INFO,
            "skill %r: its allowed-tools %s name no tool installed here (no pack or plugin "
            "provides a tool of that name, and no alias maps it); while the skill is attached "
            "they allow nothing%s. Map each to nucleo tools under [tool.nucleo.skills.aliases] "
            '(Read = "read_text_file"), unless a thinker defines tools of these names in code',
            skill.name,
            ", ".join(resolution.unresolved),
            _narrowing(resolution, known),
        )
        return dataclasses.replace(skill, unresolved_tools=resolution.unresolved)

    def restriction_for(
        self, skill: Skill, *, held: Collection[str], holder: str = "a thinker"
    ) -> frozenset[str]:
        """The tool names ``skill``'s ``allowed-tools`` narrow a palette to, through the aliases.

        Fails closed: an entry that resolves to no tool allows nothing. When ``held`` (the
        tools the thinker has: its palette and catalog) holds none of what an entry grants, a
        warning says so once per ``holder`` and skill, and when nothing at all resolves, that
        the palette narrows to the meta-tools alone.

        Args:
            skill: The skill being attached; its ``allowed-tools`` must not be ``None``.
            held: The tool names (and source ids) the thinker has.
            holder: How to name the thinker in the warning (its class).
        """
        resolution = self.tool_aliases.resolve(skill.allowed_tools, known=held)
        if resolution.unresolved:
            key = (holder, skill.name, resolution.unresolved)
            with self._lock:
                first = key not in self._reported
                self._reported.add(key)
            if first:
                kept = sorted(resolution.names & set(held))
                if kept:
                    outcome = f"the palette narrows to {', '.join(kept)} and the meta-tools"
                else:
                    outcome = (
                        "nothing it names resolves, so the palette narrows to the meta-tools "
                        "alone (request_skill, read_skill_file)"
                    )
                logger.warning(
                    "skill %r attached to %s: its allowed-tools %s name no tool %s has (fail "
                    "closed: %s). Map them to its tools under [tool.nucleo.skills.aliases], or "
                    "see `nucleo skills show %s`",
                    skill.name,
                    holder,
                    ", ".join(resolution.unresolved),
                    holder,
                    outcome,
                    skill.name,
                )
        return resolution.names

    def resolve_tools(
        self, skill: Skill, *, known: Collection[str] | None = None
    ) -> ToolResolution:
        """What ``skill``'s ``allowed-tools`` come to through the aliases (`restriction_for`)."""
        return self.tool_aliases.resolve(skill.allowed_tools, known=known)

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


#: Tools of other agents (Claude Code's) that skills name in allowed-tools: never a nucleo tool.
_FOREIGN_TOOLS = frozenset(
    {
        "Bash",
        "Edit",
        "Glob",
        "Grep",
        "LS",
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
        "Read",
        "Task",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "Write",
    }
)


def _foreign(entry: str) -> bool:
    """Whether ``entry`` is another agent's tool: an argument pattern, or a name it defines."""
    return "(" in entry or entry in _FOREIGN_TOOLS or entry.startswith("mcp__")


def _narrowing(resolution: ToolResolution, known: Collection[str] | None) -> str:
    granted = sorted(resolution.names if known is None else resolution.names & set(known))
    return (
        f" (the skill allows {', '.join(granted)} alone)"
        if granted
        else " (the skill allows no tool)"
    )
