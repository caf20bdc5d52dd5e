"""`ToolHub`: the process catalog, each thinker class's resolved catalog, and admission."""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from nucleo_core.hub._admission_desk import AdmissionDesk, checked_timeout
from nucleo_core.hub._catalog_view import CatalogView
from nucleo_core.hub._catalogs import CatalogBook, reserved_skipped, unreserved
from nucleo_core.hub._governance import MEMORY_AUDIT_RECORDS as MEMORY_AUDIT_RECORDS  # re-exported
from nucleo_core.hub._governance import guard_of, memory_log
from nucleo_core.hub._guardrail_asking import INTERNAL_ERROR as INTERNAL_ERROR  # re-exported
from nucleo_core.hub._skill_loading import load_plugin_skills
from nucleo_core.hub._system_wide import SystemWideTools
from nucleo_core.hub.admission import (
    Admission,
    AdmissionEvent,
    AdmissionRule,
    SkillAdmissionRule,
    SkillGuardrail,
    ToolGuardrail,
    ToolMatch,
)
from nucleo_core.plugins.host import PluginHost
from nucleo_core.skills.registry import SkillRegistry
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import ToolLike, provider_for
from nucleo_core.tools.scan import tools_in_module

if TYPE_CHECKING:
    from nucleo_core.guard.approvals import Approver
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.guard.permission_guard import PermissionGuard
    from nucleo_core.guard.policy import PermissionPolicy
    from nucleo_core.hub._observer import AdmissionObserver
    from nucleo_core.hub.search_tool import ToolOffer
    from nucleo_core.plugins.record import PluginRecord
    from nucleo_core.search.semantic import Embedder

__all__ = ["ToolHub"]

logger = logging.getLogger("nucleo.hub")

#: Seconds one name's admission may take by default (`ToolHub`'s ``admission_timeout``).
DEFAULT_ADMISSION_TIMEOUT = 5.0


class ToolHub:
    """The process's catalog of every tool it ships, and the one door to more.

    - **System-wide tools** join every thinker's palette (`register_system_wide_tool`,
      ``nucleo_system_wide_tools`` hooks).
    - **Module scans** are cached forever (`scan_module`).
    - **Catalogs**: each thinker class's compatible catalog is resolved once, on first use,
      and kept; `register_compatible`, `register_tool`, `register_compatible_skills` and
      `load_plugins` widen it later without rebuilding any thinker.
    - **Admission**: `admit_tool` / `admit_skill` ask every applicable rule, the tool's own
      guardrails and the hook implementations; every grant and refusal is recorded
      (`admission_record`).

    `ToolHub.default()` is the process hub (it loads installed plugins when first made);
    every other hub is constructible, for tests and embedding, and loads nothing until
    `load_plugins` is called. A hub is safe to use from several threads and event loops.

    Args:
        plugins: The plugin host; a new one (loading nothing yet) when omitted.
        skills: The skill registry; a new empty one when omitted.
        admission_timeout: Seconds one name's admission may take, every guardrail included
            (default 5). A decision not reached by then refuses, and what a slow guardrail
            says afterwards is ignored. Guardrails run in daemon threads, so one that never
            returns cannot keep the interpreter from exiting.

        guard: The permission guard every call passes after the call door's availability,
            read-only and input checks (`nucleo_core.guard`). By default (``True``) the default
            policy — declared risk low → auto, medium → notify, high or undeclared → confirm —
            over this hub's ``nucleo_permission`` hooks; a `PermissionPolicy` of your own is
            made a guard over those hooks too, and a `PermissionGuard` is used as it is.
            ``False`` asks no permission at all (the tools' declared risk is then not
            enforced at the call: for code that decides permission itself).
        approver: Approves or rejects ``confirm``-level calls of every thinker on this hub
            that has no approver of its own (`nucleo_core.guard.approvals`).
        audit: The audit log every grant, refusal, revocation, permission decision,
            approval and call of this hub's thinkers is written to (`nucleo_core.guard.audit`;
            `AuditLog.open()` is the project's SQLite record). ``None`` gives the hub a log
            of its own in memory (`MemoryAuditStore`, its latest `MEMORY_AUDIT_RECORDS`
            records kept), so that a plain ``ToolHub()`` writes no file;
            `admission_record` reads either.

    Raises:
        ValueError: ``admission_timeout`` is not a positive, finite number of seconds.
    """

    #: How the catalogs of thinker classes that declare no ``tool_offer`` are offered:
    #: ``"auto"`` (the default), ``"enumerate"``, ``"search"`` or ``"provider"``
    #: (`nucleo_core.hub.search_tool`). Set it on a hub (``hub.tool_offer = "search"``).
    tool_offer: ToolOffer = "auto"
    #: What ranks ``search_tools``' matches besides the lexical index: an `Embedder`
    #: (``nucleo_core.search.semantic.MiniLMEmbedder()``, the ``semantic`` extra) fuses a
    #: semantic ranking with it; ``None``, the default, ranks lexically only.
    search_embedder: Embedder | None = None
    #: What observes this hub's runs, model calls, tool calls and admissions (tracing:
    #: `nucleo_core.telemetry.instrument` sets one); ``None``, the default, observes nothing.
    #: The hub itself calls its ``admission`` only (an `AdmissionObserver`); the thinkers and
    #: executions call the rest of a ``nucleo_core.telemetry.RunObserver``, a layer above,
    #: which they read it as (`nucleo_core.thinking._run_observer.run_observer`).
    observer: AdmissionObserver | None = None

    _default: ClassVar[ToolHub | None] = None
    _default_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        *,
        plugins: PluginHost | None = None,
        skills: SkillRegistry | None = None,
        admission_timeout: float = DEFAULT_ADMISSION_TIMEOUT,
        guard: PermissionGuard | PermissionPolicy | bool = True,
        approver: Approver | None = None,
        audit: AuditLog | None = None,
    ) -> None:
        self.admission_timeout = checked_timeout(admission_timeout)
        self.plugins = plugins if plugins is not None else PluginHost()
        self.skills = skills if skills is not None else SkillRegistry()
        self.guard = guard_of(guard, self.plugins)
        self.approver = approver
        self.audit: AuditLog = audit if audit is not None else memory_log()
        self._lock = threading.RLock()
        self._system_wide = SystemWideTools(self._lock)
        self._scans: dict[str, tuple[ToolProvider, ...]] = {}
        self._closers: list[Callable[[], None]] = []
        self._catalogs = CatalogBook(self, self._lock)
        self._admission = AdmissionDesk(self)

    def on_close(self, closer: Callable[[], None]) -> None:
        """Call ``closer`` when the hub is closed (MCP servers bound to it register theirs)."""
        with self._lock:
            self._closers.append(closer)

    def close(self) -> None:
        """Close what was bound to the hub, last bound first (every MCP session); idempotent."""
        with self._lock:
            closers, self._closers = self._closers[::-1], []
        for closer in closers:  # outside the lock: closing joins threads that use the hub
            try:
                closer()
            except Exception:
                logger.exception("closing %r failed", closer)

    @classmethod
    def default(cls) -> ToolHub:
        """The process hub, made (and its installed plugins loaded) on first call."""
        with cls._default_lock:
            if cls._default is None:
                hub = cls()
                hub.load_plugins()
                cls._default = hub
            return cls._default

    # -- system-wide tools and scans ----------------------------------------------------------

    def register_system_wide_tool(self, *tools: ToolLike) -> None:
        """Add tools every thinker's palette holds, from its next turn on.

        Raises:
            ReservedToolName: A tool takes a name nucleo keeps for its own tools.
        """
        self._system_wide.add(unreserved([provider_for(tool) for tool in tools]))

    def withdraw_system_wide_tool(self, name: str) -> ToolProvider | None:
        """Stop offering a system-wide tool (an MCP server withdrew it, say).

        Palettes drop it at their next turn; a call to it is refused at the call, since
        dispatch goes through what is available.
        """
        return self._system_wide.withdraw(name)

    def offers_system_wide(self, provider: ToolProvider) -> bool:
        """Whether ``provider`` is a system-wide tool now (the call door asks, per call)."""
        return self._system_wide.offers(provider)

    def note_clash(
        self, thinker_class: type[Any], system_wide: ToolProvider, holder: ToolProvider
    ) -> None:
        """Report, once per class and name, a system-wide tool a thinker's own tool outranks.

        The thinker keeps its own tool (a default, added, granted or family tool) and is not
        offered the system-wide one of the same name.
        """
        self._system_wide.note_clash(thinker_class, system_wide, holder)

    def native_tool_holders(self) -> dict[str, str]:
        """Tool names held by tool packs and by resolved default tools, with their holders.

        Every thinker may meet these next to a system-wide tool: an MCP server bound for every
        thinker is refused a name listed here (reported with its fix) rather than taking it.
        """
        return self._catalogs.native_holders()

    def record_revocation(self, thinker: Any, name: str, reason: str) -> None:
        """Put on the record that ``thinker``'s grant of the tool ``name`` was revoked."""
        self._admission.record_revocation(thinker, name, reason)

    def system_wide_tools(self) -> list[ToolProvider]:
        """The system-wide tools, in registration order."""
        return self._system_wide.providers()

    def scan_module(self, module: str | ModuleType) -> tuple[ToolProvider, ...]:
        """The tools ``module`` itself defines; scanned once per module, cached forever."""
        name = module if isinstance(module, str) else module.__name__
        with self._lock:
            cached = self._scans.get(name)
            if cached is None:
                loaded = importlib.import_module(name) if isinstance(module, str) else module
                cached = self._scans[name] = tuple(tools_in_module(loaded))
            return cached

    # -- catalogs -----------------------------------------------------------------------------

    def default_tools(self, thinker_class: type[Any]) -> tuple[ToolProvider, ...]:
        """A thinker class's declared default tools and providers, resolved once."""
        return self._catalogs.default_tools(thinker_class)

    def compatible_catalog(self, thinker_class: type[Any]) -> CatalogView:
        """A thinker class's tool catalog: resolved on first call, kept, widened later.

        An immutable sequence (equal to the tuple of its tools); the same object is returned
        until the catalog changes, and a new one costs O(1) after a widening.
        """
        return self._catalogs.tools_of(thinker_class)

    def catalog_holds(self, thinker_class: type[Any], provider: ToolProvider) -> bool:
        """Whether ``thinker_class``'s catalog holds ``provider`` now, in O(1)."""
        return self._catalogs.holds(thinker_class, provider)

    def compatible_skills(self, thinker_class: type[Any]) -> tuple[Skill, ...]:
        """A thinker class's skill catalog: resolved on first call, kept, widened later.

        The same tuple is returned until the catalog widens.
        """
        return self._catalogs.skills_of(thinker_class)

    def default_skills(self, thinker_class: type[Any]) -> list[Skill]:
        """The skills a thinker class declares it always runs with (missing ones skipped)."""
        return self._catalogs.default_skills(thinker_class)

    def register_compatible(self, thinker_class: type[Any], *tools: ToolLike) -> None:
        """Widen ``thinker_class``'s catalog with tools, without rebuilding any thinker.

        Raises:
            ReservedToolName: A tool takes a name nucleo keeps for its own tools.
        """
        self._catalogs.add_tools(thinker_class, unreserved([provider_for(t) for t in tools]))

    def withdraw_compatible(self, thinker_class: type[Any] | None, name: str) -> None:
        """Narrow catalogs: remove the tool ``name`` from a thinker class's catalog.

        ``thinker_class`` ``None`` narrows every catalog (a source withdrew the tool).

        It holds for a catalog not resolved yet too: the name is kept out when it is. A
        thinker granted the tool from that catalog has the grant revoked at its next call or
        turn; `admit_tool` no longer grants it. A later `register_compatible` of the tool
        widens the catalog again.
        """
        self._catalogs.withdraw(thinker_class, name)

    def register_tool(self, thinker_class: type[Any], tool: ToolLike) -> None:
        """Widen ``thinker_class``'s catalog with one tool class or function."""
        self.register_compatible(thinker_class, tool)

    def register_compatible_skills(self, thinker_class: type[Any], *skills: Skill | str) -> None:
        """Widen ``thinker_class``'s skill catalog with skills (or names in the registry)."""
        self._catalogs.add_skills(thinker_class, skills)

    def withheld(self, thinker: object, catalog: Sequence[ToolProvider]) -> set[str]:
        """The names plugins withhold from ``thinker``'s catalog this turn."""
        if not self.plugins.implements("nucleo_reconcile_catalog"):
            return set()
        return self.plugins.withheld(thinker, [provider.name for provider in catalog])

    # -- plugins ------------------------------------------------------------------------------

    def load_plugins(self) -> list[PluginRecord]:
        """Load plugins installed since the last load.

        Their tools and skills widen every cached catalog that selects them, without
        rebuilding any thinker.

        Returns:
            The records of the entry points read by this load.
        """
        with self._lock:
            records = self.plugins.load()
            self._absorb({record.plugin for record in records if record.status == "loaded"})
            return records

    def register_plugin(
        self, plugin: object, *, name: str | None = None, distribution: str | None = None
    ) -> PluginRecord:
        """Register a hook plugin from code (a module or an object with ``nucleo_*`` hooks).

        What it brings is taken in at once, as `load_plugins` does for an installed one: its
        system-wide tools and skill sources are collected, and its compatible tools widen
        every catalog already resolved.
        """
        with self._lock:
            record = self.plugins.register_plugin(plugin, name=name, distribution=distribution)
            if record.status == "loaded":
                self._absorb({record.plugin})
            return record

    def _absorb(self, new: set[str]) -> None:
        """Take in what the newly loaded plugins ``new`` bring, widening cached catalogs."""
        new_packs = self._catalogs.add_packs(self.plugins.pack_tools(new))
        for contributed in self.plugins.system_wide_tools(plugins=new):
            if reserved_skipped(contributed.provider, f"plugin {contributed.plugin}"):
                continue
            self._system_wide.add([contributed.provider])
        known = self._catalogs.pack_tool_names() | self._system_wide.names()
        load_plugin_skills(self.plugins, self.skills, new, known)
        self._catalogs.absorb(new, new_packs)

    # -- admission ----------------------------------------------------------------------------

    def register_admission(
        self,
        thinker_class: type[Any] | None,
        match: ToolMatch,
        factory: Callable[[Any], ToolGuardrail],
        *,
        name: str | None = None,
    ) -> AdmissionRule:
        """Add a tool admission rule.

        Args:
            thinker_class: The thinker class it applies to (and subclasses), or ``None`` for
                every thinker.
            match: A tool class or ``@tool`` function, a name or glob (``"github_*"``), or a
                predicate over the requested tool's provider.
            factory: Builds a fresh guardrail per check from the requesting thinker.
            name: How the rule appears in the admission record; derived when omitted.
        """
        return self._admission.add_rule(thinker_class, match, factory, name)

    def register_skill_admission(
        self,
        thinker_class: type[Any] | None,
        match: str | Callable[[Skill], bool],
        factory: Callable[[Any], SkillGuardrail],
        *,
        name: str | None = None,
    ) -> SkillAdmissionRule:
        """Add a skill admission rule, matching by skill name or glob, or a predicate."""
        return self._admission.add_skill_rule(thinker_class, match, factory, name)

    def admit_tool(self, thinker: Any, name: str) -> Admission:
        """Decide whether ``thinker`` may be granted the tool ``name``; the one door.

        A name off the thinker's reconciled catalog is refused whatever any guardrail says; a
        read-only thinker is refused any tool not declared read-only. Otherwise every
        applicable rule, the tool's own guardrails and every ``nucleo_admit_tool`` hook
        implementation are asked, each even when another refused or raised, and the tool is
        granted only if none refused, raised or answered malformed, and all answered within
        ``admission_timeout``. A rule whose match predicate raises is an internal error for
        this name only. The decision is recorded, whatever happened.
        """
        return self._admission.admit_tool(thinker, name)

    def admit_skill(self, thinker: Any, name: str, *, by_user: bool = False) -> Admission:
        """Decide whether ``thinker`` may be granted the skill ``name``; as `admit_tool`.

        Args:
            thinker: The thinker asking.
            name: The skill's name.
            by_user: A person asks (``nucleo chat --skill``), not the model: the skills kept
                from the model (``disable-model-invocation``) are in the catalog too. Every
                guardrail is asked all the same.
        """
        return self._admission.admit_skill(thinker, name, by_user=by_user)

    @property
    def admission_record(self) -> tuple[AdmissionEvent, ...]:
        """Every grant, refusal and revocation this hub decided, oldest first.

        A view of the hub's audit log (`audit`): its ``grant``, ``refusal`` and
        ``revocation`` records written by this hub, read back (the queued ones stored
        first). With the hub's own memory log, as far back as it keeps records
        (`MEMORY_AUDIT_RECORDS`); with a file, as far back as the file goes.

        Raises:
            AuditStoreError: The log cannot be read.
        """
        return self._admission.record()
