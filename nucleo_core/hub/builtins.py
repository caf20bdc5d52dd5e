"""The hub layer's builtin plugins: ``request_tools``, ``search_tools``, ``request_skill``, files.

They are ordinary plugins: registered first on every `PluginHost` (pytest's default plugins
are the model), they contribute the meta-tools through ``nucleo_palette_tools`` exactly as a
third party contributes its own per-thinker tools, so the hook specifications are proven
sufficient, and a host switches either off by blocking its name. Both come last in the
palette (``trylast``), so the front of the prompt stays the thinker's own tools.
``builtin:skill_files`` offers ``read_skill_file`` while an attached skill has files.
``builtin:search_tools`` offers ``search_tools`` while the catalog is searched rather than
enumerated, and the deferred catalog under the ``provider`` offer.
"""

from __future__ import annotations

from typing import Any

from nucleo_core.hub._offering import request_skill_offer, request_tools_offer, search_tools_offer
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.plugins.markers import hookimpl
from nucleo_core.tools.provider import ToolProvider

__all__ = [
    "REQUEST_SKILL_PLUGIN",
    "REQUEST_TOOLS_PLUGIN",
    "SEARCH_TOOLS_PLUGIN",
    "SKILL_FILES_PLUGIN",
]


class _RequestTools:
    """``builtin:request_tools``: the meta-tool over the turn's tool catalog, while non-empty."""

    @hookimpl(trylast=True)
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        if not isinstance(thinker, ThinkerBase):
            return []
        offer = request_tools_offer(thinker, ThinkerBase)
        return [] if offer is None else [offer]


class _SearchTools:
    """``builtin:search_tools``: ``search_tools``, or the deferred catalog, per the offer mode."""

    @hookimpl(trylast=True)
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        if not isinstance(thinker, ThinkerBase):
            return []
        return search_tools_offer(thinker, ThinkerBase)


class _RequestSkill:
    """``builtin:request_skill``: the meta-tool over the skills not yet attached."""

    @hookimpl(trylast=True)
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        if not isinstance(thinker, ThinkerBase):
            return []
        offer = request_skill_offer(thinker, ThinkerBase)
        return [] if offer is None else [offer]


class _SkillFiles:
    """``builtin:skill_files``: ``read_skill_file`` over the attached skills that have files.

    Offered only while one is attached: before, it could read nothing. A skill whose record
    the conversation keeps (a resumed durable chat) reads its files from the skill of the same
    name and bundle in the hub's registry.
    """

    @hookimpl(trylast=True)
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        if not isinstance(thinker, ThinkerBase):
            return []
        readable = []
        for skill in thinker._skill_binding.synced():
            if skill.root is None:
                found = thinker.hub.skills.get(skill.name)
                if found is None or found.bundle != skill.bundle or found.root is None:
                    continue
                skill = found
            if skill.resources:
                readable.append(skill)
        if not readable:
            return []
        from nucleo_core.skills.files import SkillFilesProvider

        return [SkillFilesProvider(readable)]


REQUEST_TOOLS_PLUGIN = _RequestTools()
SEARCH_TOOLS_PLUGIN = _SearchTools()
REQUEST_SKILL_PLUGIN = _RequestSkill()
SKILL_FILES_PLUGIN = _SkillFiles()
