"""``request_tools`` and ``request_skill``: how a model asks for more, through the one door.

Both are dynamic providers: their input schema is built fresh per turn from the thinker's
reconciled catalog, as ``oneOf`` ``const`` entries each carrying the member's own description,
so the model provider's own validation refuses any name off the catalog before it can reach
admission, and the catalog never appears in the prompt as free text. Two instances are the same
registry entry (equality by type), so per-turn re-registration replaces rather than duplicates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from nucleo_core.errors import InvalidToolInput
from nucleo_core.hub._catalog_view import frozen_members
from nucleo_core.hub._thinker_entries import entries_of
from nucleo_core.hub.meta_results import Refusal, RequestSkillResult, RequestToolsResult
from nucleo_core.tools.builtin_provider import BuiltinToolProvider
from nucleo_core.tools.provider import RawInput, ToolProvider
from nucleo_core.tools.reserved import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.tools.schema_input import SchemaInput
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from nucleo_core.skills.skill import Skill

__all__ = [
    "REQUEST_SKILL",
    "REQUEST_TOOLS",
    "Refusal",
    "RequestSkillProvider",
    "RequestSkillResult",
    "RequestToolsProvider",
    "RequestToolsResult",
]


class _Requester(Protocol):
    """The thinker side the meta-tools call into."""

    async def request_tools_async(self, names: Sequence[str]) -> RequestToolsResult:
        """Ask for tools by name; admitted ones join the palette."""
        ...

    async def request_skill_async(self, name: str) -> RequestSkillResult:
        """Ask for a skill by name; an admitted one is attached to the conversation."""
        ...


class _MetaToolProvider(BuiltinToolProvider):
    """A meta-tool's provider: it changes the palette, and stays in a restricted surface."""

    __slots__ = ()

    @property
    def sequential(self) -> bool:
        """``True``: it changes the palette; the turn's next call must see what it left."""
        return True

    @property
    def restricting(self) -> bool:
        """``True``: it stays in the surface whatever a loaded skill restricts it to."""
        return True


class _CatalogProvider(_MetaToolProvider):
    """A meta-tool's provider: a ``oneOf`` of the turn's catalog names, validated strictly."""

    __slots__ = ("_members", "_schema")

    _field: str
    _many: bool

    def __init__(self, members: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self._members = tuple(members)
        choices = [{"const": name, "description": about} for name, about in self._members]
        # No uniqueItems: a name asked twice is one ask (`parse_input`), not a refusal — small
        # models repeat names, and refusing them lost whole turns.
        value: dict[str, Any] = (
            {"type": "array", "items": {"oneOf": choices}, "minItems": 1}
            if self._many
            else {"oneOf": choices}
        )
        value["description"] = self._field_description
        self._schema: dict[str, Any] = {
            "type": "object",
            "properties": {self._field: value},
            "required": [self._field],
            "additionalProperties": False,
        }

    _field_description = ""

    @property
    def members(self) -> tuple[str, ...]:
        """The catalog names this turn's schema offers, in catalog order."""
        return tuple(name for name, _ in self._members)

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """The turn's schema: the catalog as ``oneOf`` ``const`` names."""
        return self._schema

    def parse_input(self, raw: RawInput) -> Any:
        """Validate against this turn's schema: a name off the catalog is refused.

        A name given more than once is asked for once, at its first place.
        """
        data = self.checked_input(raw)
        if self._many:
            return list(dict.fromkeys(data[self._field]))
        return data[self._field]


class RequestToolsProvider(_CatalogProvider):
    """``request_tools``: ask for tools of the thinker's catalog by name.

    Not read-only: it can admit any tool of the catalog, so a read-only palette sweeps it.
    Restricting: while a loaded skill restricts the surface, ``request_tools`` stays in it,
    with its catalog narrowed to the tools the restriction names, so a procedure can ask
    for the tools it needs and no others.

    Enumerated (the default), its schema lists every catalog name; with ``enumerated=False``
    (a catalog too large to list: the ``search`` offer) it takes plain names. Either way a
    name is checked against the catalog by a set lookup, and a name off it is refused with the
    closest catalog names (``suggest``), never the catalog.

    Args:
        catalog: The turn's catalog.
        enumerated: List the catalog's names in the input schema.
        suggest: The closest catalog names to a wrong one (a few); ``None``: none suggested.
    """

    __slots__ = ("_catalog", "_enumerated", "_names", "_suggest")
    _field = "tools"
    _many = True
    _field_description = "The names of the tools to add to your palette."

    def __init__(
        self,
        catalog: Sequence[ToolProvider],
        *,
        enumerated: bool = True,
        suggest: Callable[[str], list[str]] | None = None,
    ) -> None:
        self._catalog = frozen_members(catalog)
        self._enumerated = enumerated
        # The catalog's names, built at the first check, with the catalog they are of.
        self._names: tuple[Sequence[ToolProvider], frozenset[str]] | None = None
        self._suggest = suggest
        if enumerated:
            super().__init__([(provider.name, provider.description) for provider in catalog])
        else:
            super().__init__(())
            # Sent on every turn of a searched catalog: the shape only (`parse_input` checks
            # it as `_PLAIN_NAMES`, non-empty names included).
            self._schema["properties"][self._field] = {
                "type": "array",
                "items": {"type": "string"},
                "description": "Tool names.",
            }

    @property
    def members(self) -> tuple[str, ...]:
        """The catalog names it admits from, in catalog order."""
        return tuple(provider.name for provider in self._catalog)

    def rebase(self, catalog: Sequence[ToolProvider]) -> None:
        """Check names against ``catalog`` from now on (plain names only).

        A plain-names definition does not depend on the catalog, so a changed catalog keeps
        the same provider (and the registry its cached spec) instead of a new one per change.

        Raises:
            ValueError: The provider enumerates its catalog (its schema is the catalog).
        """
        if self._enumerated:
            raise ValueError("an enumerating request_tools lists its catalog; make a new one")
        self._catalog = frozen_members(catalog)

    @property
    def enumerated(self) -> bool:
        """Whether the input schema lists the catalog's names."""
        return self._enumerated

    @property
    def name(self) -> str:
        """``request_tools``."""
        return REQUEST_TOOLS

    @property
    def description(self) -> str:
        """What the model reads about the tool."""
        if not self._enumerated:
            return (
                "Add tools by exact name (search_tools finds them). Granted ones are callable "
                "next turn; refused ones come back with the reason."
            )
        return (
            "Request more tools. Each name you may ask for is listed in the input schema with "
            "what it does; granted tools can be called from your next turn, refused ones come "
            "back with the reason."
        )

    def parse_input(self, raw: RawInput) -> Any:
        """The names asked for, each checked against the catalog by a set lookup.

        The shape is checked against a schema of plain names (a ``oneOf`` of thousands of
        names costs a validation per entry); a name off the catalog is refused with the
        closest catalog names.
        """
        data = _PLAIN_NAMES.parse(raw)
        catalog = self._catalog
        held = self._names
        if held is None or held[0] is not catalog:
            held = self._names = (catalog, frozenset(provider.name for provider in catalog))
        names = held[1]
        problems = []
        for position, name in enumerate(data[self._field]):
            if name in names:
                continue
            close = self._suggest(name) if self._suggest is not None else []
            hint = (
                f"the closest names in your catalog: {', '.join(close)}"
                if close
                else "search_tools finds tools by what they do"
                if not self._enumerated
                else "the names you may ask for are listed in the input schema"
            )
            problems.append(f"tools[{position}]: no tool of that name is in your catalog; {hint}")
        if problems:
            raise InvalidToolInput(self.name, problems)
        return list(dict.fromkeys(data[self._field]))

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """The tool that asks ``parent`` (the thinker) for the tools."""
        return _RequestToolsTool(parent)


#: The shape of a plain-names call, checked by a set lookup afterwards (non-empty names).
_PLAIN_NAMES = SchemaInput(
    REQUEST_TOOLS,
    {
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
                "description": "The names of the tools to add to your palette.",
            }
        },
        "required": ["tools"],
        "additionalProperties": False,
    },
)


class RequestSkillProvider(_CatalogProvider):
    """``request_skill``: ask for a skill of the thinker's skill catalog by name.

    Read-only: admitting a skill changes the conversation's own instructions and nothing
    outside it, so a read-only palette keeps it. Restricting: a skill's ``allowed-tools``
    narrows the surface, and ``request_skill`` stays in it.
    """

    __slots__ = ()
    _field = "skill"
    _many = False
    _field_description = "The name of the skill to load."

    def __init__(self, catalog: Sequence[Skill]) -> None:
        super().__init__([(skill.name, skill.description) for skill in catalog])

    @property
    def name(self) -> str:
        """``request_skill``."""
        return REQUEST_SKILL

    @property
    def description(self) -> str:
        """What the model reads about the tool."""
        return (
            "Load a skill: a set of instructions for a kind of task. Each skill you may load is "
            "listed in the input schema with what it is for; its instructions apply from your "
            "next turn on."
        )

    @property
    def read_only(self) -> bool:
        """``True``: a skill changes only the conversation's instructions."""
        return True

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """The tool that asks ``parent`` (the thinker) for the skill."""
        return _RequestSkillTool(parent)


class _RequestToolsTool(Tool[Any, Any]):
    # Awaited on the loop, so a call abandoned before admission answers applies no grant.
    is_async = True

    async def run(self, input: Any) -> RequestToolsResult:
        parent = self.parent  # the thinker that created this tool
        entries = entries_of(parent)
        if entries is not None:  # its own door, whatever a subclass overrides
            granted: RequestToolsResult = await entries.request_tools_async(
                list(dict.fromkeys(input))
            )
            return granted
        return await cast("_Requester", parent).request_tools_async(list(dict.fromkeys(input)))


class _RequestSkillTool(Tool[Any, Any]):
    is_async = True

    async def run(self, input: Any) -> RequestSkillResult:
        parent = self.parent
        entries = entries_of(parent)
        if entries is not None:
            attached: RequestSkillResult = await entries.request_skill_async(str(input))
            return attached
        return await cast("_Requester", parent).request_skill_async(str(input))
