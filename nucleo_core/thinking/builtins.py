"""The builtin plugins of the thinking layer: the artifact tools and ``sub_thinker``.

Registered first on every `PluginHost`, like the hub's (`nucleo_core.hub.builtins`), they
contribute a running thinker's own tools through ``nucleo_palette_tools``: the artifact tools
bound to its run's conversation once it keeps an artifact, and ``sub_thinker`` from its
delegation depth on. A host switches either off by blocking its name.
"""

from __future__ import annotations

from typing import Any

from nucleo_core.plugins.markers import hookimpl
from nucleo_core.thinking.thinker import Thinker
from nucleo_core.tools.provider import ToolProvider

__all__ = ["ARTIFACT_TOOLS_PLUGIN", "SUB_THINKER_PLUGIN"]


class _ArtifactTools:
    """``builtin:artifact_tools``: ``get_artifact_field`` and ``search_artifact_content``.

    Offered only while the conversation keeps an artifact: before, they could do nothing, and
    small models call whatever tool they are shown. The palette is reconciled every turn, so
    they appear on the turn after a large output was kept aside.
    """

    @hookimpl
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        if not isinstance(thinker, Thinker):
            return []
        context = thinker._context
        if context is None or not len(context.artifacts):  # nothing to read (yet)
            return []
        from nucleo_core.conversations import artifact_tools

        return list(artifact_tools(context))


class _SubThinker:
    """``builtin:sub_thinker``: delegation, from the thinker's `delegation_threshold` on.

    A read-only thinker's is the read-only variant, which the sweep keeps.
    """

    @hookimpl
    def nucleo_palette_tools(self, thinker: Any) -> list[ToolProvider]:
        if not isinstance(thinker, Thinker) or thinker.depth < thinker.delegation_threshold():
            return []
        from nucleo_core.thinking.sub_thinker import sub_thinker_tool

        return [sub_thinker_tool(thinker)]


ARTIFACT_TOOLS_PLUGIN = _ArtifactTools()
SUB_THINKER_PLUGIN = _SubThinker()
