"""``search_tools``, the offer modes, and provider-native deferral: catalogs of any size.

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
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, TypeAlias

from nucleo_core.errors import CorrectableError, InvalidToolInput
from nucleo_core.hub._catalog_view import CatalogView
from nucleo_core.hub.meta_tools import Refusal, _MetaToolProvider
from nucleo_core.tools.provider import RawInput, ToolProvider
from nucleo_core.tools.reserved import SEARCH_TOOLS
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.schema_input import SchemaInput
from nucleo_core.tools.spec import ToolSpec
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from nucleo_core.search.index import ToolIndex
    from nucleo_core.search.semantic import Embedder

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

#: How a thinker's catalog is offered to its model (see the module docstring).
ToolOffer: TypeAlias = Literal["auto", "enumerate", "search", "provider"]
#: Every `ToolOffer`, for checking a declared one.
OFFER_MODES: Final = frozenset({"auto", "enumerate", "search", "provider"})
#: Bytes of JSON (as ``json.dumps`` writes it) the enumerated ``request_tools`` definition
#: (name, description, input schema) may take under ``"auto"``: about 2,000 tokens, some 60
#: tools with one-line descriptions. Beyond it the catalog is searched instead.
OFFER_BUDGET: Final = 8 * 1024
#: Matches ``search_tools`` asks for when the model gives no limit, and the most it may ask.
DEFAULT_SEARCH_LIMIT: Final = 8
MAX_SEARCH_LIMIT: Final = 20


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
    from nucleo_core.hub.meta_tools import RequestToolsProvider

    empty = RequestToolsProvider(())
    definition = {
        "name": empty.name,
        "description": empty.description,
        "input_schema": empty.input_schema,
    }
    return len(json.dumps(definition))


class ToolNotAdmitted(CorrectableError):
    """A deferred tool's first call, refused at the admission door.

    Attributes:
        tool: The tool's name.
        reason: Why admission refused it (what the model reads).
    """

    def __init__(self, tool: str, reason: str) -> None:
        self.tool = tool
        self.reason = reason
        super().__init__(
            f"Tool '{tool}' was not granted to you: {reason or 'refused by admission'}. "
            "Do not call it again; use another tool."
        )


@dataclass(frozen=True, slots=True)
class FoundTool:
    """One tool ``search_tools`` granted: callable from the next turn on."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SearchToolsResult:
    """What ``search_tools`` answers: the matches granted (with schemas) and those refused.

    A match already in the palette reads as granted. No match at all leaves both empty.
    """

    granted: tuple[FoundTool, ...]
    refused: tuple[Refusal, ...]
    note: str = ""

    def __str__(self) -> str:
        data = asdict(self)
        if not self.note:
            del data["note"]
        return json.dumps(data, default=dict)


@dataclass(slots=True)
class CatalogIndex:
    """A `ToolIndex` that follows one catalog: synced by difference, never rebuilt.

    `synced` compares the catalog it is handed with the one it last saw: the very same
    sequence costs nothing; a catalog that only widened costs the new tools (found by object
    identity, at C speed, without reading 20,000 names); otherwise the names gone are removed
    and the tools new (or replaced by another provider) are added, in place.
    """

    index: ToolIndex | None = None
    members: Sequence[ToolProvider] = ()
    by_id: dict[int, ToolProvider] = field(default_factory=dict)
    embedder: Embedder | None = None

    def synced(
        self, catalog: Sequence[ToolProvider], *, embedder: Embedder | None = None
    ) -> ToolIndex:
        """The index, brought in line with ``catalog`` first.

        ``embedder`` (the hub's ``search_embedder``) adds semantic ranking; another one than
        the index was built with builds it anew.
        """
        if embedder is not self.embedder:
            self.index, self.members, self.by_id, self.embedder = None, (), {}, embedder
        if self.index is not None and catalog is self.members:
            return self.index
        members = self.members
        if (
            self.index is not None
            and isinstance(catalog, CatalogView)
            and isinstance(members, CatalogView)
            and catalog.widens(members)
        ):
            # The hub's view of a catalog that only widened: its delta, not a re-read.
            added = catalog.added_since(members)
            adding = _by_name(added)
            if len(adding) == len(added) and not any(name in self.index for name in adding):
                self.index.add(list(adding.values()))
                self.by_id.update((id(provider), provider) for provider in added)
                self.members = catalog
                return self.index
        # Keyed by id(): the members are held (self.members), so no id is reused meanwhile.
        now = dict(zip(map(id, catalog), catalog, strict=True))
        index = self.index
        if index is None:
            from nucleo_core.search.index import ToolIndex

            index = self.index = ToolIndex(list(_by_name(catalog).values()), embedder=embedder)
        else:
            new = _widening(self.by_id, now, len(catalog), index)
            if new is not None:
                if new:
                    new.sort(key=lambda provider: provider.name)  # set order is arbitrary
                    index.add(new)
            else:
                by_name = _by_name(catalog)
                indexed = _by_name(list(self.by_id.values()))
                gone = [name for name in indexed if name not in by_name]
                fresh = [p for name, p in by_name.items() if indexed.get(name) is not p]
                if gone:
                    index.remove(gone)
                if fresh:
                    index.add(fresh)
        self.members = catalog
        self.by_id = now
        return index


def _widening(
    held: dict[int, ToolProvider], now: dict[int, ToolProvider], size: int, index: ToolIndex
) -> list[ToolProvider] | None:
    """The tools a catalog that only widened added; ``None`` if it did anything else.

    Only widened: every provider held is still there, each object once, and no new provider
    takes a name already indexed or another new provider's. Costs set operations on ids and
    the new tools' names, not a read of the whole catalog's names.
    """
    if len(now) != size or not held.keys() <= now.keys():
        return None
    new = [now[key] for key in now.keys() - held.keys()]
    names = {provider.name for provider in new}
    if len(names) != len(new) or any(name in index for name in names):
        return None
    return new


def _by_name(catalog: Sequence[ToolProvider]) -> dict[str, ToolProvider]:
    """The catalog by name (a name given twice: its last provider, as a catalog reads)."""
    return {provider.name: provider for provider in catalog}


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
        from nucleo_core.hub.thinker_base import ThinkerBase

        query, limit = input
        parent = self.parent
        if not isinstance(parent, ThinkerBase):
            raise TypeError("search_tools runs for a thinker (ThinkerBase)")
        return await ThinkerBase.search_tools_async(parent, query, limit)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferredToolSpec(ToolSpec):
    """The spec of a tool sent deferred.

    A model client that defers sends it with ``defer_loading`` (its definition stays out of
    the prompt until the provider's own tool search loads it); one that cannot is never handed
    it (the thinker falls back to ``search_tools``).
    """

    #: What a model client reads to send the spec deferred.
    deferred: ClassVar[bool] = True


class DeferredToolProvider(ToolProvider):
    """A catalog tool offered deferred: the door checks it like any tool, admission first.

    Everything the door reads (name, schema, input parsing, read-only, risk, source) is the
    catalog tool's own, so the per-call check is unchanged; its first call is sent through the
    admission door before the tool runs, and a refusal is the call's correctable error
    (`ToolNotAdmitted`). It stays the palette's entry once admitted, so the tool list the
    provider was sent never changes for it.
    """

    __slots__ = ("_provider", "_spec")

    def __init__(self, provider: ToolProvider) -> None:
        self._provider = provider
        self._spec: DeferredToolSpec | None = None

    @property
    def provider(self) -> ToolProvider:
        """The catalog tool this defers."""
        return self._provider

    @property
    def name(self) -> str:
        """The catalog tool's name."""
        return self._provider.name

    @property
    def description(self) -> str:
        """The catalog tool's description."""
        return self._provider.description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """The catalog tool's input schema."""
        return self._provider.input_schema

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The catalog tool's output schema."""
        return self._provider.output_schema

    @property
    def display_name(self) -> str:
        """The catalog tool's display name."""
        return self._provider.display_name

    @property
    def read_only(self) -> bool:
        """Whether the catalog tool is declared read-only."""
        return self._provider.read_only

    @property
    def risk(self) -> Risk:
        """The catalog tool's risk (the permission guard reads it as the tool's own)."""
        return self._provider.risk

    @property
    def risk_declared(self) -> bool:
        """Whether the catalog tool declared its risk."""
        return self._provider.risk_declared

    @property
    def source(self) -> str:
        """The catalog tool's source."""
        return self._provider.source

    @property
    def sequential(self) -> bool:
        """``True``: a first call admits the tool, which changes what the thinker holds."""
        return True

    @property
    def input_type(self) -> type[Any] | None:
        """The catalog tool's input type."""
        return self._provider.input_type

    def parse_input(self, raw: RawInput) -> Any:
        """Parsed by the catalog tool itself."""
        return self._provider.parse_input(raw)

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """A tool that admits the catalog tool (first call only), then runs it."""
        tool: Tool[Any, Any] = _deferred_tool_class()(parent, self._provider)
        return tool

    def spec(self) -> DeferredToolSpec:
        """The catalog tool's spec, marked deferred."""
        spec = self._spec
        if spec is None:
            own = self._provider.spec()
            spec = self._spec = DeferredToolSpec(
                name=own.name,
                description=own.description,
                input_schema=own.input_schema,
                output_schema=own.output_schema,
                display_name=own.display_name,
                read_only=own.read_only,
                risk=own.risk,
                source=own.source,
            )
        return spec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeferredToolProvider) and self._provider == other._provider

    def __hash__(self) -> int:
        return hash((type(self), self._provider.name))


@cache
def _deferred_tool_class() -> Any:
    """The deferred tool's class, made on first use.

    It mixes in the executor's awareness markers to hand the conversation and registry on to
    the catalog tool.
    """
    from nucleo_core.tools.awareness import ConversationAware, RegistryAware
    from nucleo_core.tools.tool import run_tool

    class _DeferredTool(Tool[Any, Any], ConversationAware, RegistryAware):
        is_async = True

        def __init__(self, parent: object | None, provider: ToolProvider) -> None:
            super().__init__(parent)
            self._provider = provider
            self._conversation: Any = None
            self._registry: Any = None

        def bind_conversation(self, conversation: Any) -> None:
            self._conversation = conversation

        def bind_registry(self, registry: Any) -> None:
            self._registry = registry

        async def run(self, input: Any) -> Any:
            from nucleo_core.hub.thinker_base import ThinkerBase

            parent = self.parent
            if not isinstance(parent, ThinkerBase):
                raise TypeError("a deferred tool runs for a thinker (ThinkerBase)")
            provider = await ThinkerBase._admitted_deferred(parent, self._provider)
            tool = provider.create(parent)
            if isinstance(tool, ConversationAware) and self._conversation is not None:
                tool.bind_conversation(self._conversation)
            if isinstance(tool, RegistryAware) and self._registry is not None:
                tool.bind_registry(self._registry)
            return await run_tool(tool, input)

    return _DeferredTool
