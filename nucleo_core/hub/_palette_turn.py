"""This turn's palette of a thinker: what it is made of, in order, put into its registry.

The body of `ThinkerBase.reconcile_tool_registry`: the grants a narrowed catalog no longer
holds are revoked, the parts are gathered (defaults, system-wide tools, added, granted,
the family's extras, what plugins build), and the registry is brought in line with them, as
a delta of the last assembly when it allows (`nucleo_core.hub._palette_assembly`).
``base`` is the class whose own implementations count (`ThinkerBase`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from nucleo_core.hub._availability import (
    PaletteHolder,
    grants_still_held,
    reconciled_catalog,
    revoke_grants_off,
)
from nucleo_core.hub._palette_assembly import Assembly, assemble, reassembled_in_place
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.registry import ToolRegistry

__all__ = ["AssemblingThinker", "reconcile_palette", "skill_restriction"]


class AssemblingThinker(PaletteHolder, Protocol):
    """A `ThinkerBase`'s palette state an assembly reads and writes."""

    _catalog_at_assembly: Sequence[ToolProvider]
    _palette_at_assembly: Assembly | None
    _offered: dict[str, ToolProvider]
    _conditional: dict[str, str]
    _assembled: bool

    def palette_extras(self) -> Iterable[ToolProvider]:
        """The family's own per-turn tools."""


def reconcile_palette(thinker: AssemblingThinker, base: type[Any]) -> ToolRegistry:
    """Assemble ``thinker``'s palette for this turn (`ThinkerBase.reconcile_tool_registry`)."""
    with thinker._lock:
        registry = thinker._registry
        hub = thinker._hub
        previous = thinker._catalog_at_assembly
        thinker._catalog_at_assembly = thinker._catalog_base()
        if thinker._granted and not grants_still_held(thinker, base, previous):
            # a narrowed catalog revokes the grants made from it
            revoke_grants_off(thinker, reconciled_catalog(thinker, base, within_surface=False))
        defaults = hub.default_tools(type(thinker))
        # The family's extras, asked only of a family that has any (not ThinkerBase's none).
        extras = (
            []
            if type(thinker).palette_extras is base.palette_extras
            else list(thinker.palette_extras())
        )
        fixed = [*defaults, *thinker._added, *extras]
        # A system-wide tool never takes a name this thinker's own tools hold (the hub
        # reports the clash once): a third-party name cannot take the thinker down.
        system_wide: list[ToolProvider] = []
        offered_system_wide = hub.system_wide_tools()
        own = (
            {provider.name: provider for provider in [*fixed, *thinker._granted]}
            if offered_system_wide
            else {}
        )
        for provider in offered_system_wide:
            mine = own.get(provider.name)
            if mine is not None and mine != provider:
                hub.note_clash(type(thinker), provider, mine)
                continue
            system_wide.append(provider)
        contributed = hub.plugins.palette_providers(thinker)
        wanted: list[ToolProvider] = [
            *defaults,
            *system_wide,
            *thinker._added,
            *thinker._granted,
            *extras,
            *contributed,
        ]
        segments = (
            len(defaults),
            len(system_wide),
            len(thinker._added),
            len(thinker._granted),
            len(extras),
            len(contributed),
        )
        last = thinker._palette_at_assembly
        if last is not None:
            delta = reassembled_in_place(
                registry,
                last,
                wanted,
                segments,
                ceiling=thinker._ceiling,
                inherited=thinker._inherited,
                offered=thinker._offered,
                read_only=thinker._read_only,
            )
            if delta is not None:
                thinker._palette_at_assembly = delta
                return registry
        thinker._conditional, thinker._offered, thinker._palette_at_assembly = assemble(
            registry,
            wanted,
            segments,
            fixed=[*fixed, *contributed],
            system_wide=system_wide,
            granted=thinker._granted,
            inherited=thinker._inherited,
            ceiling=thinker._ceiling,
            read_only=thinker._read_only,
        )
        thinker._assembled = True
        return registry


def skill_restriction(thinker: AssemblingThinker, skill: Skill) -> frozenset[str]:
    """``skill``'s ``allowed-tools`` as tool names, through the hub's tool aliases.

    Judged against every name the palette may hold: its registry's, the defaults', the
    catalog's (by name and by source), the added tools' and the system-wide tools'.
    """
    hub = thinker._hub
    held = set(thinker._registry.names())
    for provider in [*hub.default_tools(type(thinker)), *thinker._catalog_base()]:
        held.update((provider.name, provider.source))
    held.update(provider.name for provider in thinker._added)
    held.update(provider.name for provider in hub.system_wide_tools())
    return hub.skills.restriction_for(skill, held=held, holder=type(thinker).__qualname__)
