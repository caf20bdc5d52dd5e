"""`ToolOffer`: how a thinker's catalog is offered to its model, and what enumerating costs.

A thinker's catalog is offered one of four ways (`ToolOffer`), chosen per thinker class
(``ThinkerBase.tool_offer``) or for every class of a hub (``ToolHub.tool_offer``):

- ``"enumerate"``: ``request_tools`` lists every catalog name in its input schema;
- ``"search"``: ``search_tools`` ranks the catalog by a query (a `ToolIndex` kept per
  thinker, updated in place as the catalog widens and narrows) and asks for the matches
  through the admission door; ``request_tools`` takes plain names, checked by a set lookup;
- ``"auto"`` (the default): enumerate while the ``request_tools`` definition stays within
  `OFFER_BUDGET` bytes of JSON, search beyond it;
- ``"provider"``: the catalog is sent deferred (`DeferredToolSpec`, Anthropic's
  ``defer_loading``) and the model provider searches it; a deferred tool's first call is
  admitted through the door before it runs. A model client that cannot defer falls back to
  ``"search"``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Final, Literal, TypeAlias

from nucleo_core.hub.meta_tools import RequestToolsProvider
from nucleo_core.tools.provider import ToolProvider

__all__ = [
    "OFFER_BUDGET",
    "OFFER_MODES",
    "ToolOffer",
    "enumeration_exceeds",
    "enumeration_fixed_size",
]

#: How a thinker's catalog is offered to its model (see the module docstring).
ToolOffer: TypeAlias = Literal["auto", "enumerate", "search", "provider"]
#: Every `ToolOffer`, for checking a declared one.
OFFER_MODES: Final = frozenset({"auto", "enumerate", "search", "provider"})
#: Bytes of JSON (as ``json.dumps`` writes it) the enumerated ``request_tools`` definition
#: (name, description, input schema) may take under ``"auto"``: about 2,000 tokens, some 60
#: tools with one-line descriptions. Beyond it the catalog is searched instead.
OFFER_BUDGET: Final = 8 * 1024


#: What one ``oneOf`` entry adds beyond its name and description: ``{"const": "",
#: "description": ""}`` and the ``", "`` that separates it from the next.
_ENTRY_OVERHEAD: Final = len(json.dumps({"const": "", "description": ""})) + 2


def enumeration_exceeds(catalog: Sequence[ToolProvider], fixed: int, budget: int) -> bool:
    """Whether enumerating ``catalog`` in ``request_tools`` takes more than ``budget`` bytes.

    ``fixed`` is the definition's size without any member. Each member costs its name, its
    description and `_ENTRY_OVERHEAD` (characters ``json.dumps`` escapes count once: an
    estimate from below, by a few bytes a tool at most). The walk stops as soon as the budget
    is passed, so a catalog of 20,000 tools costs as much as one of a hundred.
    """
    size = fixed
    for provider in catalog:
        size += len(provider.name) + len(provider.description) + _ENTRY_OVERHEAD
        if size > budget:
            return True
    return False


@cache
def enumeration_fixed_size() -> int:
    """Bytes of the enumerated ``request_tools`` definition without any member."""
    empty = RequestToolsProvider(())
    definition = {
        "name": empty.name,
        "description": empty.description,
        "input_schema": empty.input_schema,
    }
    return len(json.dumps(definition))
