"""`ThinkerBase`: the declaring side of a thinker, and its palette assembly.

A thinker declares, in code, what its model is offered: the tools it always has, the catalog
it may ask for, the skills it runs with and those it may pull in. The hub keys catalogs by
thinker class, so the declarations are class methods. The thinker families put the LLM loop on
top of this class; nothing here calls a model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from nucleo_core.hub._availability import (
    offered_now,
    reconciled_catalog,
    reconciled_skill_catalog,
    surface_now,
)
from nucleo_core.hub._meta_offers import MetaToolOffers
from nucleo_core.hub._off_loop import decided_off_loop
from nucleo_core.hub._offering import restrictions_changed
from nucleo_core.hub._palette_assembly import Assembly, within
from nucleo_core.hub._palette_turn import reconcile_palette, skill_restriction
from nucleo_core.hub._skill_binding import SkillBinding
from nucleo_core.hub._thinker_entries import ThinkerEntries
from nucleo_core.hub._tool_requests import (
    add_tool,
    admitted_deferred,
    apply_tools,
    decide_tools,
    search_tools,
)
from nucleo_core.hub.call_door import available_provider
from nucleo_core.hub.meta_results import RequestSkillResult, RequestToolsResult, SearchToolsResult
from nucleo_core.hub.search_tool import ToolOffer
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import ToolLike, provider_for
from nucleo_core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from nucleo_core.guard.approvals import Approver
    from nucleo_core.hub._skill_binding import SkillConversation
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.hub.selector import ToolSelector
    from nucleo_core.skills.selector import SkillSelector
    from nucleo_core.skills.skill import Skill

__all__ = ["ThinkerBase"]


class ThinkerBase:
    """A thinker's declarations and its per-turn palette.

    Override the ``declare_*`` class methods to declare; override `reconcile_catalog` /
    `reconcile_skill_catalog` to narrow the catalogs per turn. Call `reconcile_tool_registry`
    before every turn's tool definitions are built (it is idempotent), and `check_call`
    before every call: the palette can grow after the model was shown it, so the check at
    the call is the one that holds.

    How the catalog is offered to the model is `tool_offer` (``None``: the hub's
    ``tool_offer``, ``"auto"`` unless set; see `nucleo_core.hub.search_tool`).

    Args:
        hub: The hub to draw catalogs and admission from; `ToolHub.default()` when omitted.
        read_only: Bind the palette read-only: tools not declared read-only are removed from
            what the model is offered and refused at the call. Fixed at construction.
    """

    #: How this class's catalog is offered: ``"enumerate"`` (``request_tools`` lists it),
    #: ``"search"`` (``search_tools``, and ``request_tools`` by plain name), ``"auto"``
    #: (enumerate within `OFFER_BUDGET` bytes, search beyond) or ``"provider"`` (sent
    #: deferred for the model provider to search; ``"search"`` where it cannot). ``None``:
    #: the hub's ``tool_offer``.
    tool_offer: ClassVar[ToolOffer | None] = None

    def __init__(self, *, hub: ToolHub | None = None, read_only: bool = False) -> None:
        if hub is None:
            from nucleo_core.hub.hub import ToolHub

            hub = ToolHub.default()
        self._hub = hub
        self._read_only = bool(read_only)
        # Its own implementations, for admission, the call door and the meta-tools.
        self._entries = ThinkerEntries.bound(self, ThinkerBase)
        self._registry = ToolRegistry()
        self._lock = threading.RLock()
        self._added: list[ToolProvider] = []
        self._granted: list[ToolProvider] = []
        # The skills held and the conversation they are attached to (`SkillBinding`).
        self._skill_binding = SkillBinding(
            lock=self._lock,
            registry=self._registry,
            restriction_for=lambda skill: skill_restriction(self, skill),
            lookup=lambda name: self._hub.skills.get(name),
            restricted=lambda: restrictions_changed(self, ThinkerBase),
        )
        # Palette names offered because of state outside the thinker ("system-wide" or
        # "granted"), which the call door checks again at each call; and the hub's catalog
        # view the palette was built from, so an unchanged catalog is known in O(1).
        self._conditional: dict[str, str] = {}
        self._offered: dict[str, ToolProvider] = {}
        self._catalog_at_assembly: Sequence[ToolProvider] = ()
        # A delegate's ceiling, captured from its parent at launch: the tools it may ever
        # reach, by name, each the very provider allowed (``None``: the delegate's own
        # instance of a framework tool, such as its meta-tools). ``None``: no ceiling.
        self._ceiling: Mapping[str, ToolProvider | None] | None = None
        # A delegate's tools taken from its parent's palette at launch, by name, and that
        # parent: each stays offered only while the parent still offers it.
        self._inherited: dict[str, ToolProvider] = {}
        self._delegator: ThinkerBase | None = None
        # Who asked from outside the process, root first, for the audit record's requester
        # (`hub._audit.requester_of`): the MCP gateway sets it on the thinker acting for one
        # client (the token's holder, the client's name and version). Empty: nobody outside.
        self._requested_for: tuple[str, ...] = ()
        self._assembled = False
        # What the last assembly was made of (the wanted tools, the ceiling, the inherited
        # tools) and the registry it left: a turn with the same inputs and registry skips it.
        self._palette_at_assembly: Assembly | None = None
        # The meta-tools, deferred stand-ins and offer mode kept from turn to turn, and the
        # catalog's search index (built at the first search, then synced by difference).
        self._offers = MetaToolOffers()
        self._catalog_index = self._offers.index
        #: Approves or rejects this thinker's ``confirm``-level calls; ``None``: its
        #: delegator's, else the hub's (`approver_now`).
        self.approver: Approver | None = None
        self._skill_binding.defaults = tuple(hub.default_skills(type(self)))
        for skill in self._skill_binding.defaults:
            self._skill_binding.attach(skill)

    # -- declarations -------------------------------------------------------------------------

    @classmethod
    def declare_default_tools(cls) -> Iterable[ToolLike]:
        """Tool classes and function tools every instance's palette holds."""
        return ()

    @classmethod
    def declare_default_providers(cls) -> Iterable[ToolProvider]:
        """Providers every instance's palette holds (tools that are not classes of your own)."""
        return ()

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector | None:
        """The catalog the model may ask for through ``request_tools`` (``None``: no catalog)."""
        return None

    @classmethod
    def declare_default_skills(cls) -> Iterable[str]:
        """Names of the skills every instance runs with from the start."""
        return ()

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector | None:
        """The skills the model may pull in through ``request_skill`` (``None``: none)."""
        return None

    # -- per-turn hooks -----------------------------------------------------------------------

    def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
        """Narrow this turn's tool catalog; a tool removed here is neither listed nor admitted."""
        return catalog

    def reconcile_skill_catalog(self, catalog: list[Skill]) -> list[Skill]:
        """Narrow this turn's skill catalog."""
        return catalog

    # -- state --------------------------------------------------------------------------------

    @property
    def hub(self) -> ToolHub:
        """The hub this thinker draws from."""
        return self._hub

    @property
    def read_only(self) -> bool:
        """Whether the palette is bound read-only (latched at construction)."""
        return self._read_only

    @property
    def registry(self) -> ToolRegistry:
        """The palette: what the model is offered this turn."""
        return self._registry

    @property
    def skills(self) -> tuple[Skill, ...]:
        """The skills attached to the conversation: the declared defaults, then those granted.

        While a run or turn is in progress, its conversation's skills (a skill attached to the
        conversation directly shows here, its restriction applied, the next time this is
        read); between runs, the declared defaults and the skills attached since, which the
        next conversation receives.
        """
        return self._skill_binding.synced()

    def add_tool(self, tool: ToolLike) -> ToolProvider:
        """Add a tool to this running thinker's palette (checked at the call like any other)."""
        return add_tool(self, provider_for(tool))

    # -- catalogs -----------------------------------------------------------------------------

    def tool_catalog(self) -> Sequence[ToolProvider]:
        """This turn's tool catalog.

        The class's catalog, less what plugins and `reconcile_catalog` withhold this turn,
        and narrowed to the surface restriction while one is active (a loaded skill's
        ``allowed-tools``): the model may ask for the tools its procedure names, no others.
        """
        return reconciled_catalog(self, ThinkerBase, within_surface=True)

    def skill_catalog(self, *, by_user: bool = False) -> Sequence[Skill]:
        """This turn's skill catalog: the class's, narrowed by `reconcile_skill_catalog`.

        `reconcile_skill_catalog` can only narrow: a skill it returns that the class's
        catalog does not hold is dropped.

        Args:
            by_user: The catalog a person chooses from (``nucleo chat --skill``): the skills
                kept from the model (``disable-model-invocation``) stay in it.
        """
        return reconciled_skill_catalog(self, ThinkerBase, by_user=by_user)

    def _catalog_base(self) -> Sequence[ToolProvider]:
        """What this thinker's catalog is drawn from: its class's catalog on the hub.

        Framework-internal: a sub-thinker draws from its parent's catalog, captured at
        launch. The same object is returned while it does not change.
        """
        return self._hub.compatible_catalog(type(self))

    def _skill_catalog_base(self) -> Sequence[Skill]:
        """What this thinker's skill catalog is drawn from (as `_catalog_base`)."""
        return self._hub.compatible_skills(type(self))

    def _within_ceiling(self, provider: ToolProvider) -> bool:
        """Whether a delegate's ceiling (if it has one) allows ``provider``."""
        return within(self._ceiling, provider)

    def _surface_now(self) -> dict[str, ToolProvider]:
        """What the call door would let run right now, by name (a delegate's ceiling)."""
        return surface_now(self, ThinkerBase)

    def _offered_now(self, provider: ToolProvider) -> bool:
        """Whether ``provider``, in the palette, is still offered at this moment (`offered_now`)."""
        return offered_now(self, ThinkerBase, provider)

    # -- the palette --------------------------------------------------------------------------

    def reconcile_tool_registry(self) -> ToolRegistry:
        """Assemble this turn's palette; idempotent, run before every turn's definitions.

        In order: the declared defaults, the system-wide tools, tools added with `add_tool`,
        tools granted through ``request_tools`` (in grant order), the family's own per-turn
        tools (`palette_extras`), then what plugins build for this thinker
        (``nucleo_palette_tools``: the builtin plugins' artifact tools and ``sub_thinker``,
        other plugins' tools, and last the meta-tools while their catalogs are non-empty); a
        tool no longer among these (a withdrawn system-wide tool) leaves the palette; then a
        delegate's ceiling and the read-only sweep. Re-registration keeps each tool's place,
        so the front of the prompt stays stable across turns.
        """
        return reconcile_palette(self, ThinkerBase)

    def palette_extras(self) -> Iterable[ToolProvider]:
        """Tools a thinker family adds to every turn's palette (none here)."""
        return ()

    def approver_now(self) -> Approver | None:
        """Who approves this thinker's ``confirm``-level calls now.

        Its own `approver`, else the nearest delegator's (a sub-thinker's approvals go to the
        thinker that delegated), else the hub's; ``None`` when nobody can approve, and such a
        call is then refused.
        """
        thinker: ThinkerBase | None = self
        while thinker is not None:
            if thinker.approver is not None:
                return thinker.approver
            thinker = thinker._delegator
        return self._hub.approver

    def check_call(self, name: str | None) -> ToolProvider:
        """The provider a call to ``name`` may run now: the call door's first two steps.

        The thinker loop passes each call to `call_door` itself (availability, read-only,
        input): overriding this method changes what your own code gets from it, never what
        may run.

        Raises:
            UnknownTool: The name is not available (not registered, or outside the current
                restrictions or phase).
            ReadOnlyViolation: The palette is read-only and the tool is not.
        """
        return available_provider(self, name)

    # -- the meta-tools' side -----------------------------------------------------------------

    def request_tools(self, names: Sequence[str]) -> RequestToolsResult:
        """Ask the hub for tools by name; the admitted ones join the palette at once.

        Their definitions are sent from the next turn on. A name already in the palette reads
        as granted. Every name is decided on its own: one that fails admission is refused
        with its reason while the others are granted or refused by theirs.
        """
        return apply_tools(self, decide_tools(self, ThinkerBase, names))

    async def request_tools_async(self, names: Sequence[str]) -> RequestToolsResult:
        """`request_tools` for the ``request_tools`` meta-tool, which awaits it.

        The decisions are taken off the event loop; the grants join the palette only once
        they are all in. A call abandoned before that (past its tool timeout, or its turn
        cancelled) grants nothing: the model was told the call did not finish.
        """
        decisions = await decided_off_loop(lambda: decide_tools(self, ThinkerBase, names))
        return apply_tools(self, decisions)

    async def search_tools_async(self, query: str, limit: int) -> SearchToolsResult:
        """Rank this turn's catalog by ``query``; ask for the best ``limit`` matches.

        What the ``search_tools`` meta-tool awaits. The matches go through `request_tools`'
        own door (rules, guardrails, hooks, the record); the admitted ones join the palette,
        and are answered with their descriptions and input schemas.
        """
        return await search_tools(self, ThinkerBase, query, limit)

    async def _admitted_deferred(self, provider: ToolProvider) -> ToolProvider:
        """The catalog tool a deferred stand-in runs, admitted at its first call."""
        return await admitted_deferred(self, ThinkerBase, provider)

    def request_skill(self, name: str, *, by_user: bool = False) -> RequestSkillResult:
        """Ask the hub for a skill; an admitted one is attached to the conversation.

        Attached to the conversation of the run in progress (durably, for a durable one), so
        its instructions go with every later call of that conversation, whichever thinker
        object resumes it; with no run in progress, it is carried into the next
        conversation. Its ``allowed-tools`` restrict the surface (the union with other
        skills' restrictions; ``request_skill`` itself stays in it). A skill the conversation
        holds already reads as granted.

        Args:
            name: The skill's name.
            by_user: A person asks for it (``nucleo run --skill``), not the model: a skill
                kept from the model (``disable-model-invocation``) may be granted too.
        """
        if self._skill_binding.is_attached(name):
            return RequestSkillResult(skill=name, granted=True)
        admission = self._hub.admit_skill(self, name, by_user=by_user)
        return self._skill_binding.granted(name, admission)

    async def request_skill_async(self, name: str) -> RequestSkillResult:
        """`request_skill` for the ``request_skill`` meta-tool; as `request_tools_async`."""
        if self._skill_binding.is_attached(name):
            return RequestSkillResult(skill=name, granted=True)
        admission = await decided_off_loop(lambda: self._hub.admit_skill(self, name))
        return self._skill_binding.granted(name, admission)

    def _enter_conversation(self, context: SkillConversation) -> None:
        """Bind the skills to ``context``, as a run or turn starts on it (`SkillBinding.enter`).

        Framework-internal: the thinker families call it as a run or turn starts.
        """
        self._skill_binding.enter(context)

    def _leave_conversation(self) -> None:
        """Unbind the skills as the run or turn ends: back to the declared defaults alone."""
        self._skill_binding.leave()

    def __repr__(self) -> str:
        return f"<{type(self).__qualname__} at {id(self):#x}>"
