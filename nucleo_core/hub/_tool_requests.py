"""A thinker's requests for tools: decided by the hub's admission, granted into its palette.

What ``request_tools``, ``search_tools`` and a deferred stand-in's first call do on the
thinker's side (`ThinkerBase.request_tools` and the rest): each name is decided on its own,
the grants join the palette at once and are checked at every call from then on.
``base`` is the class whose own implementations are called (`ThinkerBase`), never an override.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from nucleo_core.hub._availability import PaletteHolder, offered_now, still_in_catalog
from nucleo_core.hub._off_loop import decided_off_loop
from nucleo_core.hub._palette_assembly import within
from nucleo_core.hub.meta_tools import REQUEST_SKILL, REQUEST_TOOLS, Refusal, RequestToolsResult
from nucleo_core.hub.search_tool import SEARCH_TOOLS, FoundTool, SearchToolsResult, ToolNotAdmitted
from nucleo_core.tools.provider import ToolProvider

if TYPE_CHECKING:
    from nucleo_core.hub._meta_offers import MetaToolOffers
    from nucleo_core.hub.admission import Admission

__all__ = [
    "RequestingThinker",
    "add_tool",
    "admitted_deferred",
    "apply_tools",
    "closest_names",
    "decide_tools",
    "search_tools",
]

#: Each distinct name asked for, with the hub's admission (``None``: already present).
Decisions = Sequence[tuple[str, "Admission | None"]]


class RequestingThinker(PaletteHolder, Protocol):
    """A `ThinkerBase`'s state its tool requests read and write."""

    @property
    def _offers(self) -> MetaToolOffers:
        """Its meta-tools' state: the catalog's search index, the deferred tools admitted."""

    @property
    def _assembled(self) -> bool:
        """Whether its palette was assembled once (the thinker is running)."""


def add_tool(thinker: RequestingThinker, provider: ToolProvider) -> ToolProvider:
    """Add ``provider`` to ``thinker``'s palette: from its next turn, or at once while it runs."""
    with thinker._lock:
        if provider not in thinker._added:
            thinker._added.append(provider)
        if thinker._assembled:  # a running thinker: the tool joins the palette at once
            thinker._registry.register(provider)
            thinker._offered[provider.name] = provider
    return provider


def decide_tools(
    thinker: RequestingThinker, base: type[Any], names: Sequence[str]
) -> list[tuple[str, Admission | None]]:
    """Each distinct name with the hub's admission, or ``None`` when already present."""
    decisions: list[tuple[str, Admission | None]] = []
    for name in dict.fromkeys(names):
        with thinker._lock:
            present = thinker._registry.get_provider_by_name(name)
        # "Already present" is what the call door would run: a provider the thinker put in
        # its palette itself and still offers. One registered any other way (a subclass or
        # plugin writing to the registry) is not, and goes through admission like any ask.
        if (
            present is not None
            and name not in (REQUEST_TOOLS, REQUEST_SKILL, SEARCH_TOOLS)
            and within(thinker._ceiling, present)
            and offered_now(thinker, base, present)
        ):
            decisions.append((name, None))
        else:
            decisions.append((name, thinker._hub.admit_tool(thinker, name)))
    return decisions


def apply_tools(thinker: RequestingThinker, decisions: Decisions) -> RequestToolsResult:
    """Grant the admitted names into the palette; the answer the model is given."""
    granted: list[str] = []
    refused: list[Refusal] = []
    for name, admission in decisions:
        if admission is None:
            granted.append(name)
        elif admission.granted and admission.provider is not None:
            with thinker._lock:
                if admission.provider not in thinker._granted:
                    thinker._granted.append(admission.provider)
                thinker._registry.register(admission.provider)
                thinker._offered[admission.provider.name] = admission.provider
                # Checked at the call from now on, not only from the next turn.
                thinker._conditional.setdefault(name, "granted")
            granted.append(name)
        else:
            refused.append(Refusal(name, admission.reason))
    return RequestToolsResult(granted=tuple(granted), refused=tuple(refused))


async def search_tools(
    thinker: RequestingThinker, base: type[Any], query: str, limit: int
) -> SearchToolsResult:
    """Rank this turn's catalog by ``query``; ask for the best ``limit`` matches."""
    catalog: Sequence[ToolProvider] = base.tool_catalog(thinker)

    def search() -> list[str]:
        if not catalog:
            return []
        embedder = getattr(thinker._hub, "search_embedder", None)
        with thinker._lock:  # one thinker's index is synced by one search at a time
            index = thinker._offers.index.synced(catalog, embedder=embedder)
            return [hit.name for hit in index.search(query, limit)]

    names = await decided_off_loop(search)
    if not names:
        note = "no tool of your catalog matches; try other words"
        return SearchToolsResult(granted=(), refused=(), note=note)
    answer: RequestToolsResult = await base.request_tools_async(thinker, names)
    found = []
    for name in answer.granted:
        with thinker._lock:
            provider = thinker._registry.get_provider_by_name(name)
        if provider is not None:
            found.append(FoundTool(name, provider.description, provider.input_schema))
    return SearchToolsResult(granted=tuple(found), refused=answer.refused)


def closest_names(thinker: RequestingThinker, base: type[Any], name: str) -> list[str]:
    """The catalog names closest to ``name`` (a few), for a wrong name's correction."""
    catalog: Sequence[ToolProvider] = base.tool_catalog(thinker)
    if not catalog:
        return []
    with thinker._lock:
        embedder = getattr(thinker._hub, "search_embedder", None)
        return thinker._offers.index.synced(catalog, embedder=embedder).suggest(name, limit=3)


async def admitted_deferred(
    thinker: RequestingThinker, base: type[Any], provider: ToolProvider
) -> ToolProvider:
    """The catalog tool a deferred stand-in runs, admitted through the door at its first call.

    Admitted once per thinker (on the record like any grant); every later call finds it
    admitted while this moment's catalog still holds it, and is admitted again otherwise.

    Raises:
        ToolNotAdmitted: Admission refused it (the call's correctable error).
    """
    name = provider.name
    offers = thinker._offers
    with thinker._lock:
        admitted = offers.deferred_admitted.get(name)
    if admitted is provider and still_in_catalog(thinker, base, provider):
        return provider
    admission = await decided_off_loop(lambda: thinker._hub.admit_tool(thinker, name))
    if not admission.granted or admission.provider is None:
        with thinker._lock:
            offers.deferred_admitted.pop(name, None)
        raise ToolNotAdmitted(name, admission.reason)
    with thinker._lock:
        offers.deferred_admitted[name] = admission.provider
    return admission.provider
