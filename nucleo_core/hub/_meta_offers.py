"""`MetaToolOffers`: how a thinker's catalog is offered to its model, turn after turn.

The meta-tools built over the catalog (``request_tools``, ``request_skill``, ``search_tools``)
and the deferred stand-ins, each kept while what it was built from is the same, so the
palette's delta stays empty and the registry keeps its cached specs; and the offer mode
``"auto"`` resolved to, kept likewise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from nucleo_core.hub._catalog_view import CatalogView, frozen_members
from nucleo_core.hub._palette_assembly import same_members
from nucleo_core.hub.meta_tools import RequestSkillProvider, RequestToolsProvider
from nucleo_core.hub.search_tool import (
    OFFER_BUDGET,
    OFFER_MODES,
    CatalogIndex,
    DeferredToolProvider,
    SearchToolsProvider,
    ToolOffer,
    enumeration_exceeds,
    enumeration_fixed_size,
)
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.provider import ToolProvider

__all__ = ["MetaToolOffers"]


class MetaToolOffers:
    """One thinker's meta-tools and deferred stand-ins, and its resolved offer mode."""

    def __init__(self) -> None:
        # The meta-tools of the last turn, kept while their catalogs are unchanged: the
        # registry then holds the very same provider, and its cached specs stay valid.
        # (the catalog, its provider, whether the provider enumerates the catalog)
        self._request_tools: tuple[Sequence[ToolProvider], RequestToolsProvider, bool] | None
        self._request_tools = None
        self._request_skill: tuple[Sequence[Skill], RequestSkillProvider] | None = None
        # The catalog's search index (built at the first search, then synced by difference),
        # ``search_tools``, the deferred stand-ins by name, and the deferred tools admitted at
        # their first call (each the very catalog provider admitted).
        self.index = CatalogIndex()
        self.search_tools = SearchToolsProvider()
        self.deferred: dict[str, DeferredToolProvider] = {}
        self.deferred_admitted: dict[str, ToolProvider] = {}
        self._offer_decided: tuple[Sequence[ToolProvider], Literal["enumerate", "search"]] | None
        self._offer_decided = None

    def request_tools_for(
        self,
        catalog: Sequence[ToolProvider],
        *,
        enumerated: bool,
        suggest: Callable[[str], list[str]],
    ) -> RequestToolsProvider:
        """``request_tools`` over ``catalog``: the last turn's while the catalog is the same."""
        # An immutable sequence of the members, not the caller's list: a list reused and
        # changed in place by reconcile_catalog must not pass for an unchanged catalog. (The
        # hub's own view is immutable already and kept as is, so the check stays O(1).)
        members = frozen_members(catalog)
        last = self._request_tools
        if last is not None and last[2] == enumerated:
            if last[0] is members:
                return last[1]
            if not enumerated:
                # Plain names: the same definition over the changed catalog (no new provider,
                # so the palette's delta is empty and the registry keeps its cached spec).
                last[1].rebase(members)
                self._request_tools = (members, last[1], enumerated)
                return last[1]
            if same_members(last[0], members):
                return last[1]
        provider = RequestToolsProvider(members, enumerated=enumerated, suggest=suggest)
        self._request_tools = (members, provider, enumerated)
        return provider

    def request_skill_for(self, skills: Sequence[Skill]) -> RequestSkillProvider:
        """``request_skill`` over ``skills``: the last turn's while they are the same."""
        members = tuple(skills)
        last = self._request_skill
        if last is not None and same_members(last[0], members):
            return last[1]
        provider = RequestSkillProvider(members)
        self._request_skill = (members, provider)
        return provider

    def stand_ins(
        self, catalog: Sequence[ToolProvider], taken: set[str]
    ) -> list[DeferredToolProvider]:
        """A `DeferredToolProvider` for every tool of ``catalog`` not named in ``taken``.

        The same object while its tool is the same.
        """
        kept: dict[str, DeferredToolProvider] = {}
        for provider in catalog:
            if provider.name in taken:
                continue
            stand_in = self.deferred.get(provider.name)
            if stand_in is None or stand_in.provider is not provider:
                stand_in = DeferredToolProvider(provider)
            kept[provider.name] = stand_in
        self.deferred = kept
        return list(kept.values())

    def mode(
        self,
        declared: ToolOffer | None,
        holder: str,
        catalog: Sequence[ToolProvider],
        *,
        defers: Callable[[], bool],
    ) -> Literal["enumerate", "search", "provider"]:
        """How ``catalog`` is offered this turn: the ``declared`` `ToolOffer`, resolved.

        ``"auto"`` enumerates while the ``request_tools`` definition would fit `OFFER_BUDGET`;
        ``"provider"`` falls back to ``"search"`` when the model client cannot (``defers``).

        Raises:
            ValueError: ``declared`` (of the class named ``holder``) is not a `ToolOffer`.
        """
        if declared is None or declared not in OFFER_MODES:
            raise ValueError(
                f"{holder}: tool_offer must be one of "
                f"{', '.join(sorted(OFFER_MODES))}, not {declared!r}"
            )
        if declared == "provider":
            return "provider" if defers() else "search"
        if declared != "auto":
            return declared
        members = frozen_members(catalog)
        last = self._offer_decided
        if last is not None:
            if last[0] is members:
                return last[1]
            if last[1] == "search" and type(members) is CatalogView and members.widens(last[0]):
                # More tools only make the enumeration longer: still past the budget.
                self._offer_decided = (members, "search")
                return "search"
            if same_members(last[0], members):
                return last[1]
        exceeds = enumeration_exceeds(members, enumeration_fixed_size(), OFFER_BUDGET)
        mode: Literal["enumerate", "search"] = "search" if exceeds else "enumerate"
        self._offer_decided = (members, mode)
        return mode
