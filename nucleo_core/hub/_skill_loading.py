"""Taking in the skills newly loaded plugins bring: skilljars, skill sources, tool aliases."""

from __future__ import annotations

import logging
from collections.abc import Set
from typing import TYPE_CHECKING

from nucleo_core.skills.skill import Skill

if TYPE_CHECKING:
    from nucleo_core.plugins.host import PluginHost
    from nucleo_core.skills.registry import SkillRegistry
    from nucleo_core.skills.scan import SkillScan

__all__ = ["load_plugin_skills"]

logger = logging.getLogger("nucleo.hub")


def load_plugin_skills(
    host: PluginHost, registry: SkillRegistry, plugins: set[str], known: Set[str]
) -> None:
    """Register in ``registry`` the skills the plugins ``plugins`` of ``host`` bring.

    Args:
        host: The plugin host that loaded them.
        registry: The hub's skill registry.
        plugins: The names of the newly loaded plugins.
        known: The tool names a skill's ``allowed-tools`` are judged against (besides the
            aliases): the tool packs' and the system-wide tools'.
    """
    from nucleo_core.skills.loading import skills_in, skills_in_package

    scans: list[SkillScan] = []
    for package in host.skill_packages(plugins):
        try:
            scans.append(skills_in_package(package.package))
        except ModuleNotFoundError as exc:
            logger.warning("skilljar %s skipped: %s", package.package, exc)
    loose: list[Skill] = []
    for source in host.skill_sources(plugins=plugins):
        item = source.source
        if isinstance(item, Skill):
            loose.append(item)
        else:
            scans.append(skills_in(item))
    # Aliases packs declare for their own tools, then the skills, judged against them.
    for plugin, aliases in host.skill_tool_aliases(plugins):
        own = {t.provider.name for t in host.pack_tools({plugin})}
        own.update(c.provider.name for c in host.system_wide_tools(plugins={plugin}))
        for refused in registry.tool_aliases.add_pack(plugin, aliases, own):
            logger.warning(
                "alias %r of plugin %s not taken: %s", refused.alias, plugin, refused.reason
            )
    registry.register_loaded(loose, known_tools=known)
    for scan in scans:
        for problem in scan.problems:
            logger.warning("skill skipped: %s: %s", problem.location, problem.reason)
        registry.register_loaded(scan.skills, known_tools=known)
