"""What a delegate takes from its parent at launch: the tools it inherits, and its ceiling."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nucleo_core.conversations.artifact_tools import (
    GET_ARTIFACT_FIELD,
    SEARCH_ARTIFACT_CONTENT,
    ArtifactToolProvider,
)
from nucleo_core.hub.meta_tools import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.tools.reserved import SUB_THINKER

if TYPE_CHECKING:
    from nucleo_core.thinking.thinker import Thinker
    from nucleo_core.tools.provider import ToolProvider

__all__: list[str] = []


def _delegable(parent: Thinker[Any, Any]) -> list[ToolProvider]:
    """The providers a sub-thinker inherits: what the parent's door lets run, in palette order.

    Less what every thinker gets on its own (system-wide tools, meta-tools, artifact tools,
    ``sub_thinker``).
    """
    own = {provider.name for provider in parent.hub.system_wide_tools()}
    own |= {REQUEST_TOOLS, REQUEST_SKILL, SUB_THINKER}
    return [
        provider
        for provider in ThinkerBase._surface_now(parent).values()
        if provider.name not in own and not isinstance(provider, ArtifactToolProvider)
    ]


def _ceiling_from(parent: Thinker[Any, Any]) -> dict[str, ToolProvider | None]:
    """The most a delegate of ``parent`` may ever reach: the parent's surface at launch.

    What the parent's call door lets run now (its phase, restrictions, read-only binding,
    withdrawals and its own ceiling applied), by provider; the catalog tools the parent could
    be granted and run in its current phase, when its ``request_tools`` is available; and the
    delegate's own instances of the framework's tools (its meta-tools, over catalogs taken
    from the parent's; its artifact tools, over its own conversation; ``sub_thinker``, whose
    delegates get this same ceiling).
    """
    if not parent._assembled:  # launched before the parent's first turn: its palette now
        parent.reconcile_tool_registry()
    surface: dict[str, ToolProvider | None] = dict(ThinkerBase._surface_now(parent))
    registry = parent.registry
    if REQUEST_TOOLS in surface:
        phase = registry.phase
        for provider in ThinkerBase.tool_catalog(parent):
            if (phase is None or phase.permits(provider)) and ThinkerBase._within_ceiling(
                parent, provider
            ):
                surface.setdefault(provider.name, provider)
    for own in (REQUEST_TOOLS, REQUEST_SKILL):
        if own in surface:
            surface[own] = None
    for own in (SUB_THINKER, GET_ARTIFACT_FIELD, SEARCH_ARTIFACT_CONTENT):
        surface[own] = None
    return surface
