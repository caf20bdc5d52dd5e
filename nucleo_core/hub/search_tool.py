"""``search_tools``: find tools of a catalog by what they do, and ask for them in one call.

Under the ``"search"`` offer (`ToolOffer`, in `nucleo_core.hub.tool_offer`) a thinker's
catalog is ranked by a query (a `CatalogIndex` kept per thinker); the matches are asked for
through the admission door. This module also re-exports what catalogs of any size are offered
with: the offer modes (`nucleo_core.hub.tool_offer`), the per-thinker index
(`nucleo_core.hub.catalog_index`) and provider-native deferral (`nucleo_core.hub.deferred`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nucleo_core.errors import InvalidToolInput
from nucleo_core.hub._thinker_entries import entries_of
from nucleo_core.hub.catalog_index import CatalogIndex
from nucleo_core.hub.deferred import DeferredToolProvider, DeferredToolSpec, ToolNotAdmitted
from nucleo_core.hub.meta_results import FoundTool, SearchToolsResult
from nucleo_core.hub.meta_tools import _MetaToolProvider
from nucleo_core.hub.tool_offer import (
    OFFER_BUDGET,
    OFFER_MODES,
    ToolOffer,
    enumeration_exceeds,
    enumeration_fixed_size,
)
from nucleo_core.tools.provider import RawInput
from nucleo_core.tools.reserved import SEARCH_TOOLS
from nucleo_core.tools.schema_input import SchemaInput
from nucleo_core.tools.tool import Tool

__all__ = [
    "DEFAULT_SEARCH_LIMIT",
    "MAX_SEARCH_LIMIT",
    "OFFER_BUDGET",
    "OFFER_MODES",
    "SEARCH_TOOLS",
    "CatalogIndex",
    "DeferredToolProvider",
    "DeferredToolSpec",
    "FoundTool",
    "SearchToolsProvider",
    "SearchToolsResult",
    "ToolNotAdmitted",
    "ToolOffer",
    "enumeration_exceeds",
    "enumeration_fixed_size",
]

#: Matches ``search_tools`` asks for when the model gives no limit, and the most it may ask.
DEFAULT_SEARCH_LIMIT: Final = 8
MAX_SEARCH_LIMIT: Final = 20


class SearchToolsProvider(_MetaToolProvider):
    """``search_tools``: find tools of the thinker's catalog by what they do, and ask for them.

    Every match goes through the admission door (`ThinkerBase.request_tools_async`), so a
    rule that refuses a tool keeps it out whether it was named or found. Not read-only: it can
    admit any tool of the catalog, so a read-only palette sweeps it (as ``request_tools``).
    Restricting: while a loaded skill restricts the surface it stays, and searches the
    narrowed catalog. Two instances are the same registry entry (equality by type).
    """

    __slots__ = ()

    # What the model is sent: the fields of `_SEARCH_INPUT`, the bounds said in words (a few
    # bytes on every turn of a searched catalog); `_SEARCH_INPUT` holds them as checks, applied
    # to every call.
    _OFFERED: Final[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the tools should do."},
            "limit": {
                "type": "integer",
                "description": f"Most tools to add, 1-{MAX_SEARCH_LIMIT} "
                f"(default {DEFAULT_SEARCH_LIMIT}).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    @property
    def name(self) -> str:
        """``search_tools``."""
        return SEARCH_TOOLS

    @property
    def description(self) -> str:
        """What the model reads about the tool."""
        # Sent on every turn of a searched catalog: every word here is paid per request.
        return (
            "Find tools by what they do. Matches you may use are added (callable next turn) "
            "and returned with their schemas; refused ones with the reason."
        )

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """``query`` (text) and an optional ``limit`` (checked as `_SEARCH_INPUT` at the call)."""
        return self._OFFERED

    def parse_input(self, raw: RawInput) -> tuple[str, int]:
        """The query and the limit (`DEFAULT_SEARCH_LIMIT` when none is given)."""
        data = _SEARCH_INPUT.parse(raw)
        if not data["query"].strip():
            raise InvalidToolInput(self.name, ["query: must hold some words"])
        return data["query"], int(data.get("limit", DEFAULT_SEARCH_LIMIT))

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """The tool that searches ``parent``'s (the thinker's) catalog."""
        return _SearchToolsTool(parent)


#: What a ``search_tools`` call is checked against: the offered fields, with their bounds.
_SEARCH_INPUT = SchemaInput(
    SEARCH_TOOLS,
    {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 1000,
                "description": "What the tools should do, in a few words.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_LIMIT,
                "description": f"Most tools to add (default {DEFAULT_SEARCH_LIMIT}).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)


class _SearchToolsTool(Tool[Any, Any]):
    # Awaited on the loop, so a call abandoned before admission answers applies no grant.
    is_async = True

    async def run(self, input: Any) -> SearchToolsResult:
        query, limit = input
        entries = entries_of(self.parent)  # the thinker's own door, not an override
        if entries is None:
            raise TypeError("search_tools runs for a thinker (ThinkerBase)")
        found: SearchToolsResult = await entries.search_tools_async(query, limit)
        return found
