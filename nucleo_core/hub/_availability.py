"""Whether what a thinker's palette offers still holds: its catalog now, its grants, its surface.

A palette is built once a turn; a system-wide tool can be withdrawn, a catalog narrowed or a
delegator's palette changed while the model thinks. These read a `ThinkerBase`'s palette state
(`PaletteHolder`) to tell, at the call, what is still offered, revoking the grants this
moment's catalog no longer holds. ``base`` is the class whose own implementations count
(`ThinkerBase`): an override of its per-turn hooks is asked, an override of these never.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from nucleo_core.hub._catalog_view import CatalogView
from nucleo_core.hub._palette_assembly import Ceiling, narrowed, within
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from nucleo_core.hub.hub import ToolHub

__all__ = [
    "PaletteHolder",
    "SkillCatalogHolder",
    "grants_still_held",
    "offered_now",
    "reconciled_catalog",
    "reconciled_skill_catalog",
    "revoke_grants_off",
    "still_in_catalog",
    "surface_now",
]


class PaletteHolder(Protocol):
    """The palette state of a `ThinkerBase` these functions read (and its grants, revoked)."""

    _granted: list[ToolProvider]

    @property
    def _lock(self) -> threading.RLock:
        """The thinker's lock."""

    @property
    def _hub(self) -> ToolHub:
        """The hub the thinker draws from."""

    @property
    def _registry(self) -> ToolRegistry:
        """The palette."""

    @property
    def _added(self) -> list[ToolProvider]:
        """The tools added to the running thinker (`ThinkerBase.add_tool`)."""

    @property
    def _offered(self) -> dict[str, ToolProvider]:
        """What the thinker itself put in its palette, by name."""

    @property
    def _conditional(self) -> dict[str, str]:
        """The names offered because of state outside the thinker, with why."""

    @property
    def _ceiling(self) -> Ceiling | None:
        """A delegate's ceiling (``None``: none)."""

    @property
    def _inherited(self) -> dict[str, ToolProvider]:
        """A delegate's tools taken from its parent's palette at launch."""

    @property
    def _delegator(self) -> PaletteHolder | None:
        """The thinker that launched this one, if any."""

    @property
    def _read_only(self) -> bool:
        """Whether the palette is bound read-only."""

    @property
    def _catalog_at_assembly(self) -> Sequence[ToolProvider]:
        """The catalog view the palette was last built from."""

    def _catalog_base(self) -> Sequence[ToolProvider]:
        """What the thinker's catalog is drawn from."""

    def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
        """The thinker's per-turn narrowing of its catalog."""


class SkillCatalogHolder(Protocol):
    """What a `ThinkerBase`'s skill catalog is read from."""

    def _skill_catalog_base(self) -> Sequence[Skill]:
        """What the thinker's skill catalog is drawn from."""

    def reconcile_skill_catalog(self, catalog: list[Skill]) -> list[Skill]:
        """The thinker's per-turn narrowing of its skill catalog."""


def reconciled_catalog(
    thinker: PaletteHolder, base: type[Any], *, within_surface: bool
) -> Sequence[ToolProvider]:
    """The class's catalog less what is withheld now; inside the surface if asked.

    Grants are judged against it without the surface restriction (a skill's
    ``allowed-tools`` hides a granted tool while it is attached; it does not revoke it).
    """
    catalog: Sequence[ToolProvider] = thinker._catalog_base()
    withheld = thinker._hub.withheld(thinker, catalog)
    if withheld:
        catalog = [provider for provider in catalog if provider.name not in withheld]
    if within_surface:
        surface = thinker._registry.surface_restriction()
        if surface is not None:
            catalog = [p for p in catalog if p.name in surface or p.source in surface]
    if type(thinker).reconcile_catalog is not base.reconcile_catalog:
        # An override may only narrow: what it returns beyond its input is dropped.
        catalog = narrowed(catalog, thinker.reconcile_catalog(list(catalog)))
    return catalog


def reconciled_skill_catalog(
    thinker: SkillCatalogHolder, base: type[Any], *, by_user: bool
) -> Sequence[Skill]:
    """The class's skill catalog, narrowed by ``reconcile_skill_catalog`` (which only narrows).

    A person's catalog (``by_user``) keeps the skills kept from the model
    (``disable-model-invocation``).
    """
    catalog: Sequence[Skill] = thinker._skill_catalog_base()
    if not by_user and catalog and any(skill.disable_model_invocation for skill in catalog):
        # disable-model-invocation: never offered to the model nor granted to it.
        catalog = [skill for skill in catalog if not skill.disable_model_invocation]
    if type(thinker).reconcile_skill_catalog is not base.reconcile_skill_catalog:
        catalog = narrowed(catalog, thinker.reconcile_skill_catalog(list(catalog)))
    return catalog


def revoke_grants_off(
    thinker: PaletteHolder, catalog: Sequence[ToolProvider]
) -> list[ToolProvider]:
    """Revoke every grant ``catalog`` (this moment's catalog) no longer holds."""
    held = {provider.name: provider for provider in catalog}
    with thinker._lock:
        revoked = [p for p in thinker._granted if held.get(p.name) != p]
        if not revoked:
            return []
        thinker._granted = [p for p in thinker._granted if p not in revoked]
        for provider in revoked:
            if thinker._registry.get_provider_by_name(provider.name) == provider:
                thinker._registry.unregister(provider.name)
                thinker._offered.pop(provider.name, None)
            thinker._conditional.pop(provider.name, None)
    for provider in revoked:
        thinker._hub.record_revocation(
            thinker, provider.name, "no longer in this thinker's catalog; the grant is revoked"
        )
    return revoked


def grants_still_held(
    thinker: PaletteHolder, base: type[Any], previous: Sequence[ToolProvider]
) -> bool:
    """Whether every grant is known held without walking the catalog (else walk it).

    Known when nothing can narrow the class's catalog per thinker (no override of the
    catalog or of `reconcile_catalog`, no ``nucleo_reconcile_catalog`` hook): then an
    unchanged catalog view holds them still, and so does a view that only widened the last
    one (a widening appends; a narrowing starts a new list, `CatalogView.widens`), so a turn
    after a widening of 20,000 tools costs O(1); any other change is asked per grant, in
    O(1) each.
    """
    if (
        type(thinker)._catalog_base is not base._catalog_base
        or type(thinker).reconcile_catalog is not base.reconcile_catalog
        or thinker._hub.plugins.implements("nucleo_reconcile_catalog")
    ):
        return False
    current = thinker._catalog_at_assembly
    if current is previous or (type(current) is CatalogView and current.widens(previous)):
        return True
    holds = thinker._hub.catalog_holds
    return all(holds(type(thinker), provider) for provider in thinker._granted)


def surface_now(thinker: PaletteHolder, base: type[Any]) -> dict[str, ToolProvider]:
    """What the call door would let run right now, by name (a delegate's ceiling)."""
    registry = thinker._registry
    surface: dict[str, ToolProvider] = {}
    for provider in registry.providers():
        if registry.available(provider.name) is not provider:
            continue
        if thinker._read_only and not provider.read_only:
            continue
        if not within(thinker._ceiling, provider):
            continue
        if offered_now(thinker, base, provider):
            surface[provider.name] = provider
    return surface


def offered_now(thinker: PaletteHolder, base: type[Any], provider: ToolProvider) -> bool:
    """Whether ``provider``, in the palette, is still offered at this moment.

    Only what the thinker itself put in its palette is (a tool registered in its registry
    any other way is not). Declared, added and family tools are; a system-wide tool while
    the hub still offers it; a granted tool while this moment's catalog holds it (else the
    grant is revoked); a delegate's tool taken from its parent while the parent still
    offers it.
    Cheap when nothing changed since the palette was built: the hub's catalog view is the
    same object, and no hook or override can narrow it per call.
    """
    with thinker._lock:
        offered = thinker._offered.get(provider.name)
        origin = thinker._conditional.get(provider.name)
    if offered is None or (offered is not provider and offered != provider):
        return False  # not put in the palette by the thinker itself
    if origin is None:
        return True
    if origin == "system-wide":
        return thinker._hub.offers_system_wide(provider)
    if origin == "inherited":
        parent = thinker._delegator
        if parent is None or thinker._inherited.get(provider.name) != provider:
            return False
        with parent._lock:
            held = parent._registry.get_provider_by_name(provider.name)
        return held == provider and offered_now(parent, base, provider)
    if _unchanged(thinker, base):
        return True
    catalog = reconciled_catalog(thinker, base, within_surface=False)
    return provider not in revoke_grants_off(thinker, catalog)


def still_in_catalog(thinker: PaletteHolder, base: type[Any], provider: ToolProvider) -> bool:
    """Whether this moment's catalog still holds ``provider`` (O(1) while unchanged)."""
    if _unchanged(thinker, base):
        return True
    catalog = reconciled_catalog(thinker, base, within_surface=False)
    return any(each is provider or each == provider for each in catalog)


def _unchanged(thinker: PaletteHolder, base: type[Any]) -> bool:
    """Whether the catalog is the one the palette was built from, and nothing narrows it."""
    return (
        thinker._catalog_base() is thinker._catalog_at_assembly
        and type(thinker).reconcile_catalog is base.reconcile_catalog
        and not thinker._hub.plugins.implements("nucleo_reconcile_catalog")
    )
