"""The builtin plugins of the hub layer: ``request_tools`` and ``request_skill``.

They are ordinary plugins: registered first on every `PluginHost` (pytest's default plugins
are the model), they contribute the meta-tools through ``nucleo_palette_tools`` exactly as a
third party contributes its own per-thinker tools, so the hook specifications are proven
sufficient, and a host switches either off by blocking its name. Both come last in the
palette (``trylast``), so the front of the prompt stays the thinker's own tools.
"""

from __future__ import annotations

from typing import Any

from nucleo_core.plugins.markers import hookimpl
from nucleo_core.tools.provider import ToolProvider

__all__ = ["REQUEST_SKILL_PLUGIN", "REQUEST_TOOLS_PLUGIN"]


class _RequestTools:
    """``builtin:request_tools``: the meta-tool over the turn's tool catalog, while non-empty."""

    @hookimpl(trylast=True)
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        from nucleo_core.hub.thinker_base import ThinkerBase

        if not isinstance(thinker, ThinkerBase):
            return []
        offer = ThinkerBase._request_tools_offer(thinker)
        return [] if offer is None else [offer]


class _RequestSkill:
    """``builtin:request_skill``: the meta-tool over the skills not yet attached."""

    @hookimpl(trylast=True)
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        from nucleo_core.hub.thinker_base import ThinkerBase

        if not isinstance(thinker, ThinkerBase):
            return []
        offer = ThinkerBase._request_skill_offer(thinker)
        return [] if offer is None else [offer]


REQUEST_TOOLS_PLUGIN = _RequestTools()
REQUEST_SKILL_PLUGIN = _RequestSkill()
