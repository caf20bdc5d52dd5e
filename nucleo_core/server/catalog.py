"""`ServedCatalog`: the tools the server lists and executes, and which thinker classes hold them.

The tools are those ``nucleo tools`` lists (the installed tool packs, the system-wide tools
plugins and the project's MCP servers add, the ``--from`` sources), and the default tools and
catalogs of the thinker classes served with ``--thinker``. A tool is found by its source id
(``native:<name>``, ``mcp:<server>:<tool>``) or by its bare name.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nucleo_core.server.models import (
    PolicyDecision,
    ToolDetail,
    ToolFilter,
    ToolHolder,
    ToolSummary,
)

if TYPE_CHECKING:
    from nucleo_core.hub import ThinkerBase, ToolHub
    from nucleo_core.tools import ToolProvider

__all__ = ["ServedCatalog"]

_GLOB = frozenset("*?[")


class ServedCatalog:
    """The served tools, in a stable order, with their holders and the policy's decisions.

    Args:
        hub: The server's hub (its guard decides; its catalogs say who holds what).
        tools: The process's tools with their origins, in order.
        thinkers: The thinker classes served (``--thinker``).
        caller: The API caller, whose class the policy decides for.
    """

    def __init__(
        self,
        hub: ToolHub,
        tools: Sequence[tuple[ToolProvider, str]],
        thinkers: Sequence[type[ThinkerBase]],
        caller: ThinkerBase,
    ) -> None:
        self._hub = hub
        self._caller = caller
        self._thinkers = tuple(thinkers)
        self._providers: dict[str, ToolProvider] = {}
        self._origins: dict[str, str] = {}
        self._holders: dict[str, list[ToolHolder]] = {}
        for provider, origin in tools:
            self._add(provider, origin)
        system_wide = {provider.name for provider in hub.system_wide_tools()}
        for thinker in self._thinkers:
            qualified = f"{thinker.__module__}.{thinker.__qualname__}"
            palette = {p.name: p for p in hub.default_tools(thinker)}
            catalog = {p.name: p for p in hub.compatible_catalog(thinker)}
            for provider in [*palette.values(), *catalog.values()]:
                self._add(provider, f"thinker {qualified}")
            for name in self._providers:
                in_palette = name in palette or name in system_wide
                in_catalog = name in catalog
                if in_palette or in_catalog:
                    self._holders.setdefault(name, []).append(
                        ToolHolder(thinker=qualified, palette=in_palette, catalog=in_catalog)
                    )

    def _add(self, provider: ToolProvider, origin: str) -> None:
        if provider.name not in self._providers:
            self._providers[provider.name] = provider
            self._origins[provider.name] = origin

    @property
    def providers(self) -> tuple[ToolProvider, ...]:
        """The served tools, in order."""
        return tuple(self._providers.values())

    def find(self, tool_id: str) -> ToolProvider | None:
        """The tool ``tool_id`` names: a source id, or a bare name; ``None`` when none."""
        by_name = self._providers.get(tool_id)
        if by_name is not None:
            return by_name
        for provider in self._providers.values():
            if provider.source == tool_id:
                return provider
        return None

    def ids(self) -> list[str]:
        """Every served tool's source id, in order."""
        return [provider.source for provider in self._providers.values()]

    def summary(self, provider: ToolProvider) -> ToolSummary:
        """``provider`` as the listing shows it."""
        return ToolSummary(**self._summary_fields(provider))

    def detail(self, provider: ToolProvider) -> ToolDetail:
        """``provider`` in full, its schemas included."""
        return ToolDetail(
            **self._summary_fields(provider),
            input_schema=dict(provider.input_schema),
            output_schema=(
                dict(provider.output_schema) if provider.output_schema is not None else None
            ),
        )

    def listed(self, wanted: ToolFilter) -> list[ToolSummary]:
        """The tools ``wanted`` selects, in order."""
        found = []
        for provider in self._providers.values():
            summary = self.summary(provider)
            if _selected(summary, wanted):
                found.append(summary)
        return found

    def decision(self, provider: ToolProvider) -> PolicyDecision:
        """The policy's decision for a call of ``provider`` by the API caller."""
        guard = self._hub.guard
        if guard is None:
            return PolicyDecision(
                decision="auto", decided_by="no guard", reason="the hub asks no permission"
            )
        decided = guard.policy.decide(self._caller, provider)
        return PolicyDecision(
            decision=decided.decision.value,
            decided_by=decided.decided_by,
            reason=decided.reason,
        )

    def _summary_fields(self, provider: ToolProvider) -> dict[str, Any]:
        source = provider.source
        return {
            "id": source,
            "name": provider.name,
            "display_name": provider.display_name,
            "description": provider.description,
            "source": source,
            "source_kind": "mcp" if source.startswith("mcp:") else "native",
            "origin": self._origins.get(provider.name, ""),
            "read_only": provider.read_only,
            "risk": provider.risk.value if provider.risk_declared else "high",
            "risk_declared": provider.risk_declared,
            "decision": self.decision(provider),
            "thinkers": list(self._holders.get(provider.name, ())),
        }


def _selected(summary: ToolSummary, wanted: ToolFilter) -> bool:
    if wanted.source is not None and not _source_matches(summary.source, wanted.source):
        return False
    if wanted.risk is not None and summary.risk not in wanted.risk:
        return False
    if wanted.read_only is not None and summary.read_only is not wanted.read_only:
        return False
    if wanted.decision is not None and summary.decision.decision not in wanted.decision:
        return False
    if wanted.thinker is not None and not any(
        _class_named(holder.thinker, wanted.thinker) for holder in summary.thinkers
    ):
        return False
    if wanted.text is not None:
        text = wanted.text.casefold()
        haystack = (summary.name, summary.display_name, summary.description)
        if not any(text in item.casefold() for item in haystack):
            return False
    return True


def _source_matches(source: str, wanted: str) -> bool:
    if not _GLOB.isdisjoint(wanted):
        return fnmatch.fnmatchcase(source, wanted)
    return source == wanted or source.startswith(wanted.rstrip(":") + ":")


def _class_named(qualified: str, wanted: str) -> bool:
    return qualified == wanted or qualified.endswith("." + wanted)
