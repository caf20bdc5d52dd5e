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
class ContributedTool:
    """A tool a plugin's discovery hook returned.

    Attributes:
        provider: The tool's provider.
        plugin: The name of the plugin that returned it (`PluginRecord.plugin`).
        distribution: The distribution that ships that plugin, or ``None`` when unknown.
    """

    provider: ToolProvider
    plugin: str
    distribution: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PackTool:
    """A tool a ``nucleo.tools`` entry point (a tool pack) brought.

    Attributes:
        provider: The tool's provider.
        pack: The entry point's name: what ``ToolSelector.add_pack`` patterns match.
        plugin: The entry point's plugin name (`PluginRecord.plugin`: ``nucleo.tools:<pack>``).
        distribution: The distribution that ships the pack, or ``None`` when unknown.
    """

    provider: ToolProvider
    pack: str
    plugin: str
    distribution: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributedSource:
    """A skill, or a folder of skill folders, a plugin's ``nucleo_skill_sources`` returned.

    Attributes:
        source: The skill, path or ``importlib.resources`` traversable.
        plugin: The name of the plugin that returned it.
        distribution: The distribution that ships that plugin, or ``None`` when unknown.
    """

    source: SkillSource
    plugin: str
    distribution: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillPackage:
    """A package of skill folders named by a ``nucleo.skills`` entry point (a skilljar).

    The host does not read the skills: the skills layer does, through ``importlib.resources``
    so that it works from an installed wheel.

    Attributes:
        package: The package's dotted name (also the skills' bundle id).
        plugin: The name of the plugin (entry point) that named it.
        distribution: The distribution that ships it, or ``None`` when unknown.
    """

    package: str
    plugin: str
    distribution: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HookVerdict:
    """One admission hook implementation's answer: a verdict, no opinion, or a failure.

    Attributes:
        plugin: The name of the plugin whose implementation answered.
        distribution: The distribution that ships that plugin, or ``None`` when unknown.
        verdict: Its `Verdict`, or ``None`` when it had no opinion or failed.
        error: Why it failed (it raised, or returned something other than a `Verdict` or
            ``None``), else ``None``. A failure is never a verdict: the hub treats it as an
            internal error, which refuses.
    """

    plugin: str
    distribution: str | None
    verdict: Verdict | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HookDecision:
    """One ``nucleo_permission`` implementation's answer: a decision, no opinion, or a failure.

    Attributes:
        plugin: The name of the plugin whose implementation answered.
        distribution: The distribution that ships that plugin, or ``None`` when unknown.
        decision: Its `Decision`, or ``None`` when it had no opinion or failed.
        error: Why it failed (it raised, answered something other than a decision or ``None``,
            or did not answer in time), else ``None``. The guard counts a failure as a denial,
            never as ``auto``.
    """

    plugin: str
    distribution: str | None
    decision: Decision | None = None
    error: str | None = None
