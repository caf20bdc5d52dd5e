"""How a thinker's catalog is offered to its model this turn: the meta-tools built over it.

``request_tools`` (enumerating the catalog, or taking plain names), ``search_tools``, the
deferred stand-ins a provider searches itself, and ``request_skill``: what the builtin
plugins contribute to every palette (`nucleo_core.hub.builtins`), each kept from turn to turn
while what it was built from is the same (`MetaToolOffers`). ``base`` is the class whose own
catalogs count (`ThinkerBase`), never an override.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from nucleo_core.hub._availability import (
    SkillCatalogHolder,
    reconciled_catalog,
    reconciled_skill_catalog,
)
from nucleo_core.hub._tool_requests import RequestingThinker, closest_names
from nucleo_core.hub.meta_tools import REQUEST_TOOLS, RequestSkillProvider, RequestToolsProvider
from nucleo_core.tools.palette import ReadOnlyPalette
from nucleo_core.tools.provider import ToolProvider

if TYPE_CHECKING:
    from nucleo_core.hub._skill_binding import SkillBinding
    from nucleo_core.hub.search_tool import ToolOffer

__all__ = [
    "OfferingThinker",
    "offer_catalog",
    "request_skill_offer",
    "request_tools_offer",
    "restrictions_changed",
    "search_tools_offer",
]


class OfferingThinker(RequestingThinker, SkillCatalogHolder, Protocol):
    """A `ThinkerBase`'s state its offers read."""

    tool_offer: ClassVar[ToolOffer | None]

    @property
    def _skill_binding(self) -> SkillBinding:
        """The skills the thinker holds."""


def request_tools_offer(thinker: OfferingThinker, base: type[Any]) -> RequestToolsProvider | None:
    """``request_tools`` over this turn's catalog, or ``None`` while it is empty."""
    catalog = reconciled_catalog(thinker, base, within_surface=True)  # base.tool_catalog
    if not catalog:
        return None
    mode = _offer_mode(thinker, catalog)
    if mode == "provider":
        return None
    return thinker._offers.request_tools_for(
        catalog,
        enumerated=mode == "enumerate",
        suggest=lambda name: closest_names(thinker, base, name),
    )


def search_tools_offer(thinker: OfferingThinker, base: type[Any]) -> list[ToolProvider]:
    """``search_tools`` (``search`` offer) or the deferred catalog (``provider`` offer).

    Nothing while the catalog is enumerated or empty. Deferred, every catalog tool the
    palette does not hold is offered as a `DeferredToolProvider` (the same object while its
    tool is the same), after every other tool, so the front of the tool list never changes.
    """
    catalog = reconciled_catalog(thinker, base, within_surface=True)  # base.tool_catalog
    if not catalog:
        return []
    mode = _offer_mode(thinker, catalog)
    offers = thinker._offers
    if mode == "search":
        return [offers.search_tools]
    if mode != "provider" or thinker._read_only:  # read-only: no offer, as request_tools
        return []
    # Names the palette holds otherwise (a stand-in must not take one).
    hub = thinker._hub
    taken = {name for name in thinker._registry.names() if name not in offers.deferred}
    for each in (hub.default_tools(type(thinker)), hub.system_wide_tools()):
        taken.update(provider.name for provider in each)
    taken.update(provider.name for provider in [*thinker._added, *thinker._granted])
    return list[ToolProvider](offers.stand_ins(catalog, taken))


def request_skill_offer(thinker: OfferingThinker, base: type[Any]) -> RequestSkillProvider | None:
    """``request_skill`` over the catalog's skills not attached yet, or ``None``."""
    catalog = reconciled_skill_catalog(thinker, base, by_user=False)  # base.skill_catalog
    if not catalog:
        return None
    held = thinker._skill_binding.held
    skills = [skill for skill in catalog if skill not in held]
    return thinker._offers.request_skill_for(skills) if skills else None


def offer_catalog(thinker: OfferingThinker, base: type[Any]) -> None:
    """Narrow ``request_tools`` to this moment's catalog, or remove it when empty.

    Called when a skill attaches mid-turn; only while ``request_tools`` is offered (its
    builtin plugin may be switched off).
    """
    if REQUEST_TOOLS not in thinker._offered:
        return
    provider = request_tools_offer(thinker, base)
    if provider is not None:
        thinker._registry.register(provider)
        thinker._offered[REQUEST_TOOLS] = provider
    else:
        thinker._registry.unregister(REQUEST_TOOLS)
        thinker._offered.pop(REQUEST_TOOLS, None)


def restrictions_changed(thinker: OfferingThinker, base: type[Any]) -> None:
    """A skill's restriction was set or lifted: the narrowed request_tools applies at once."""
    if thinker._assembled:
        offer_catalog(thinker, base)
        if thinker._read_only:
            ReadOnlyPalette.sweep(thinker._registry)


def _offer_mode(
    thinker: OfferingThinker, catalog: Sequence[ToolProvider]
) -> Literal["enumerate", "search", "provider"]:
    """How ``catalog`` is offered this turn: the declared `tool_offer`, resolved.

    ``"auto"`` enumerates while the ``request_tools`` definition would fit `OFFER_BUDGET`;
    ``"provider"`` falls back to ``"search"`` when the model client cannot defer.

    Raises:
        ValueError: The class or the hub declares an offer that is not a `ToolOffer`.
    """
    declared = type(thinker).tool_offer
    if declared is None:
        declared = getattr(thinker._hub, "tool_offer", "auto")
    return thinker._offers.mode(
        declared,
        type(thinker).__qualname__,
        catalog,
        defers=lambda: _defers_natively(thinker),
    )


def _defers_natively(thinker: OfferingThinker) -> bool:
    """Whether this thinker's model client sends deferred tools for the provider to search.

    Read from the client the thinker was given (``client``: its ``defers_tools``); a
    thinker whose client is resolved per call from the model catalog is not known to
    defer, and searches instead.
    """
    client = getattr(thinker, "client", None)
    return bool(getattr(client, "defers_tools", False))
