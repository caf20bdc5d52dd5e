"""What plugins contribute, each attributed to the plugin and distribution that brought it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from nucleo_core.plugins.decision import Decision
    from nucleo_core.plugins.verdict import Verdict
    from nucleo_core.skills.skill import Skill
    from nucleo_core.tools.provider import ToolProvider

__all__ = [
    "Attributed",
    "ContributedSource",
    "ContributedTool",
    "HookDecision",
    "HookVerdict",
    "PackTool",
    "SkillPackage",
    "SkillSource",
]

#: What ``nucleo_skill_sources`` may yield: a skill, or a folder holding skill folders.
SkillSource: TypeAlias = "Skill | str | os.PathLike[str] | Traversable"


@dataclass(frozen=True, slots=True, kw_only=True)
class Attributed:
    """What every contribution (and every hook's answer) carries: who brought it.

    Attributes:
        plugin: The name of the plugin that brought it (`PluginRecord.plugin`).
        distribution: The distribution that ships that plugin, or ``None`` when unknown.
    """

    plugin: str
    distribution: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributedTool(Attributed):
    """A tool a plugin's discovery hook returned, with the plugin that returned it.

    Attributes:
        provider: The tool's provider.
    """

    provider: ToolProvider


@dataclass(frozen=True, slots=True, kw_only=True)
class PackTool(Attributed):
    """A tool a ``nucleo.tools`` entry point (a tool pack) brought.

    Its ``plugin`` is the entry point's plugin name (``nucleo.tools:<pack>``); its
    ``distribution``, the distribution that ships the pack.

    Attributes:
        provider: The tool's provider.
        pack: The entry point's name: what ``ToolSelector.add_pack`` patterns match.
    """

    provider: ToolProvider
    pack: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributedSource(Attributed):
    """A skill, or a folder of skill folders, a plugin's ``nucleo_skill_sources`` returned.

    Attributes:
        source: The skill, path or ``importlib.resources`` traversable.
    """

    source: SkillSource


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillPackage(Attributed):
    """A package of skill folders named by a ``nucleo.skills`` entry point (a skilljar).

    The host does not read the skills: the skills layer does, through ``importlib.resources``
    so that it works from an installed wheel.

    Its ``plugin`` is the entry point that named it.

    Attributes:
        package: The package's dotted name (also the skills' bundle id).
    """

    package: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HookVerdict(Attributed):
    """One admission hook implementation's answer: a verdict, no opinion, or a failure.

    Its ``plugin`` is the plugin whose implementation answered.

    Attributes:
        verdict: Its `Verdict`, or ``None`` when it had no opinion or failed.
        error: Why it failed (it raised, or returned something other than a `Verdict` or
            ``None``), else ``None``. A failure is never a verdict: the hub treats it as an
            internal error, which refuses.
    """

    verdict: Verdict | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HookDecision(Attributed):
    """One ``nucleo_permission`` implementation's answer: a decision, no opinion, or a failure.

    Its ``plugin`` is the plugin whose implementation answered.

    Attributes:
        decision: Its `Decision`, or ``None`` when it had no opinion or failed.
        error: Why it failed (it raised, answered something other than a decision or ``None``,
            or did not answer in time), else ``None``. The guard counts a failure as a denial,
            never as ``auto``.
    """

    decision: Decision | None = None
    error: str | None = None
