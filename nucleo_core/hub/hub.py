"""`ToolHub`: the process catalog, each thinker class's resolved catalog, and admission."""

from __future__ import annotations

import contextvars
import fnmatch
import importlib
import logging
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from nucleo_core.errors import ReservedToolName
from nucleo_core.hub._catalog_view import CatalogView
from nucleo_core.hub.admission import (
    Admission,
    AdmissionEvent,
    AdmissionRule,
    GuardrailOutcome,
    SkillAdmissionRule,
    SkillGuardrail,
    ToolGuardrail,
    ToolMatch,
)
from nucleo_core.plugins.contributions import HookVerdict
from nucleo_core.plugins.errors import PluginError
from nucleo_core.plugins.host import PluginHost
from nucleo_core.plugins.verdict import Verdict, checked_verdict
from nucleo_core.skills.registry import SkillRegistry
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import ToolLike, provider_for
from nucleo_core.tools.reserved import RESERVED_TOOL_NAMES
from nucleo_core.tools.scan import tools_in_module

if TYPE_CHECKING:
    from nucleo_core.guard.approvals import Approver
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.guard.audit.records import AuditRecord
    from nucleo_core.guard.permission_guard import PermissionGuard
    from nucleo_core.guard.policy import PermissionPolicy
    from nucleo_core.hub.search_tool import ToolOffer
    from nucleo_core.hub.selector import ToolSelector
    from nucleo_core.plugins.record import PluginRecord
    from nucleo_core.search.semantic import Embedder
    from nucleo_core.skills.selector import SkillSelector
    from nucleo_core.telemetry.observer import RunObserver

__all__ = ["ToolHub"]

logger = logging.getLogger("nucleo.hub")

#: What the model is told when a guardrail crashed: never the crash itself, never a verdict.
INTERNAL_ERROR = "internal error in an admission guardrail; the request was not granted"

#: Seconds one name's admission may take by default (`ToolHub`'s ``admission_timeout``).
DEFAULT_ADMISSION_TIMEOUT = 5.0


@dataclass
class _Catalog:
    """One thinker class's resolved catalogs, kept from first resolution on."""

    selector: ToolSelector | None
    skill_selector: SkillSelector | None
    tools: dict[str, ToolProvider] = field(default_factory=dict)
    skills: dict[str, Skill] = field(default_factory=dict)
    # The tools in catalog order, append-only: a widening appends, a narrowing starts a new
    # list, so every view handed out (a prefix of one list) stays as it was.
    order: list[ToolProvider] = field(default_factory=list)
    # Immutable views handed out until the catalog widens: a thinker compares them by
    # identity to know, in O(1), that its catalog did not change since its last turn, and
    # reads a widening's delta from them (`CatalogView.added_since`).
    tools_view: CatalogView | None = None
    skills_view: tuple[Skill, ...] | None = None


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
    observer: RunObserver | None = None

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
        if (
            isinstance(admission_timeout, bool)
            or not isinstance(admission_timeout, int | float)
            or not math.isfinite(admission_timeout)
            or admission_timeout <= 0
        ):
            raise ValueError(
                "admission_timeout must be a positive, finite number of seconds "
                f"(got {admission_timeout!r})"
            )
        self.admission_timeout = float(admission_timeout)
        self.plugins = plugins if plugins is not None else PluginHost()
        self.skills = skills if skills is not None else SkillRegistry()
        self.guard = _guard_of(guard, self.plugins)
        self.approver = approver
        self.audit: AuditLog = audit if audit is not None else _memory_log()
        # Names this hub's admissions on the log, which other hubs (and other processes, on a
        # shared file) write to too: `admission_record` shows this hub's only.
        self._audit_id = os.urandom(8).hex()
        self._lock = threading.RLock()
        self._system_wide: dict[str, ToolProvider] = {}
        self._scans: dict[str, tuple[ToolProvider, ...]] = {}
        self._packs: dict[str, list[ToolProvider]] = {}
        self._catalogs: dict[type[Any], _Catalog] = {}
        self._pending_tools: dict[type[Any], list[ToolProvider]] = {}
        self._pending_skills: dict[type[Any], list[Skill | str]] = {}
        self._defaults: dict[type[Any], tuple[ToolProvider, ...]] = {}
        # Names withdrawn from a class's catalog (key None: from every catalog), kept so a
        # catalog resolved later, or widened by a plugin, leaves them out too.
        self._withdrawn: dict[type[Any] | None, set[str]] = {}
        self._clashes: set[tuple[type[Any], str]] = set()
        self._rules: list[AdmissionRule] = []
        self._skill_rules: list[SkillAdmissionRule] = []
        self._closers: list[Callable[[], None]] = []

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
        providers = _unreserved([provider_for(tool) for tool in tools])
        with self._lock:
            for provider in providers:
                self._system_wide.setdefault(provider.name, provider)

    def withdraw_system_wide_tool(self, name: str) -> ToolProvider | None:
        """Stop offering a system-wide tool (an MCP server withdrew it, say).

        Palettes drop it at their next turn; a call to it is refused at the call, since
        dispatch goes through what is available.
        """
        with self._lock:
            return self._system_wide.pop(name, None)

    def offers_system_wide(self, provider: ToolProvider) -> bool:
        """Whether ``provider`` is a system-wide tool now (the call door asks, per call)."""
        with self._lock:
            present = self._system_wide.get(provider.name)
        return present is not None and (present is provider or present == provider)

    def note_clash(
        self, thinker_class: type[Any], system_wide: ToolProvider, holder: ToolProvider
    ) -> None:
        """Report, once per class and name, a system-wide tool a thinker's own tool outranks.

        The thinker keeps its own tool (a default, added, granted or family tool) and is not
        offered the system-wide one of the same name.
        """
        key = (thinker_class, system_wide.name)
        with self._lock:
            if key in self._clashes:
                return
            self._clashes.add(key)
        logger.warning(
            "system-wide tool %s is not offered to %s: its own tool %s holds the name %r; "
            "rename one of them (an MCP server's tools: give the server a prefix)",
            system_wide.source,
            thinker_class.__qualname__,
            holder.source,
            system_wide.name,
        )

    def native_tool_holders(self) -> dict[str, str]:
        """Tool names held by tool packs and by resolved default tools, with their holders.

        Every thinker may meet these next to a system-wide tool: an MCP server bound for every
        thinker is refused a name listed here (reported with its fix) rather than taking it.
        """
        holders: dict[str, str] = {}
        with self._lock:
            for pack, providers in self._packs.items():
                for provider in providers:
                    holders.setdefault(provider.name, f"the tool {provider.source} of pack {pack}")
            for thinker_class, defaults in self._defaults.items():
                for provider in defaults:
                    holders.setdefault(
                        provider.name,
                        f"the default tool {provider.source} of {thinker_class.__qualname__}",
                    )
        return holders

    def record_revocation(self, thinker: Any, name: str, reason: str) -> None:
        """Put on the record that ``thinker``'s grant of the tool ``name`` was revoked."""
        outcome = GuardrailOutcome(guardrail="revocation", verdict=Verdict.refuse(reason))
        event = AdmissionEvent(
            thinker_class=type(thinker).__qualname__,
            thinker=repr(thinker),
            kind="tool",
            name=name,
            granted=False,
            reason=reason,
            outcomes=(outcome,),
        )
        self._audit_admission(thinker, event, "revocation")
        logger.info("revoked tool %r for %s: %s", name, event.thinker, reason)

    def _audit_admission(
        self, thinker: Any, event: AdmissionEvent, kind: Literal["grant", "refusal", "revocation"]
    ) -> None:
        """Put an admission on the audit record, whence `admission_record` reads it back.

        A guardrail that crashed is recorded as a ``failure`` as well, with what it raised
        (for the developer only).
        """
        if self.observer is not None:
            self.observer.admission(thinker, event, kind)
        from nucleo_core.guard.audit.events import AuditEvent, DeveloperDetails
        from nucleo_core.hub._audit import requester_of

        log = self.audit
        requester = requester_of(thinker)
        tool = event.name if event.kind == "tool" else None
        skill = event.name if event.kind == "skill" else None
        try:
            for outcome in event.outcomes:
                if outcome.error is not None:
                    log.record(
                        AuditEvent(
                            kind="failure",
                            requester=requester,
                            rule=outcome.guardrail,
                            reason=INTERNAL_ERROR,
                            developer=DeveloperDetails(
                                exception_type=outcome.error.partition(":")[0],
                                message=outcome.error,
                            ),
                            tool=tool,
                            skill=skill,
                        )
                    )
            decided_by = [o.guardrail for o in event.outcomes if o.refuses]
            log.record(
                AuditEvent(
                    kind=kind,
                    requester=requester,
                    rule=", ".join(decided_by) or None,
                    reason=event.reason or None,
                    tool=tool,
                    skill=skill,
                    admission=_admission_details(self._audit_id, event),
                )
            )
        except Exception:
            logger.exception("the audit log could not take the %s of %r", kind, event.name)

    def system_wide_tools(self) -> list[ToolProvider]:
        """The system-wide tools, in registration order."""
        with self._lock:
            return list(self._system_wide.values())

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
        with self._lock:
            found = self._defaults.get(thinker_class)
            if found is None:
                declared = [provider_for(t) for t in thinker_class.declare_default_tools()]
                declared += list(thinker_class.declare_default_providers())
                found = self._defaults[thinker_class] = tuple(_unreserved(declared))
            return found

    def compatible_catalog(self, thinker_class: type[Any]) -> CatalogView:
        """A thinker class's tool catalog: resolved on first call, kept, widened later.

        An immutable sequence (equal to the tuple of its tools); the same object is returned
        until the catalog changes, and a new one costs O(1) after a widening.
        """
        catalog = self._catalog(thinker_class)
        view = catalog.tools_view
        if view is None:
            with self._lock:
                view = catalog.tools_view
                if view is None:
                    view = catalog.tools_view = CatalogView(catalog.order, len(catalog.order))
        return view

    def catalog_holds(self, thinker_class: type[Any], provider: ToolProvider) -> bool:
        """Whether ``thinker_class``'s catalog holds ``provider`` now, in O(1)."""
        catalog = self._catalog(thinker_class)
        with self._lock:
            present = catalog.tools.get(provider.name)
        return present is not None and (present is provider or present == provider)

    def compatible_skills(self, thinker_class: type[Any]) -> tuple[Skill, ...]:
        """A thinker class's skill catalog: resolved on first call, kept, widened later.

        The same tuple is returned until the catalog widens.
        """
        catalog = self._catalog(thinker_class)
        view = catalog.skills_view
        if view is None:
            with self._lock:
                view = catalog.skills_view = tuple(catalog.skills.values())
        return view

    def default_skills(self, thinker_class: type[Any]) -> list[Skill]:
        """The skills a thinker class declares it always runs with (missing ones skipped)."""
        found: list[Skill] = []
        for name in thinker_class.declare_default_skills():
            skill = self.skills.get(name)
            if skill is None:
                logger.warning(
                    "%s declares default skill %r, which no skill source provides; skipped",
                    thinker_class.__qualname__,
                    name,
                )
            else:
                found.append(skill)
        return found

    def register_compatible(self, thinker_class: type[Any], *tools: ToolLike) -> None:
        """Widen ``thinker_class``'s catalog with tools, without rebuilding any thinker.

        Raises:
            ReservedToolName: A tool takes a name nucleo keeps for its own tools.
        """
        providers = _unreserved([provider_for(tool) for tool in tools])
        with self._lock:
            for withdrawn in self._withdrawn.values():  # registered again: offered again
                withdrawn.difference_update(provider.name for provider in providers)
            catalog = self._catalogs.get(thinker_class)
            if catalog is None:
                self._pending_tools.setdefault(thinker_class, []).extend(providers)
            else:
                self._widen(catalog, providers, thinker_class)

    def withdraw_compatible(self, thinker_class: type[Any] | None, name: str) -> None:
        """Narrow catalogs: remove the tool ``name`` from a thinker class's catalog.

        ``thinker_class`` ``None`` narrows every catalog (a source withdrew the tool).

        It holds for a catalog not resolved yet too: the name is kept out when it is. A
        thinker granted the tool from that catalog has the grant revoked at its next call or
        turn; `admit_tool` no longer grants it. A later `register_compatible` of the tool
        widens the catalog again.
        """
        with self._lock:
            self._withdrawn.setdefault(thinker_class, set()).add(name)
            for cls, catalog in self._catalogs.items():
                if thinker_class is not None and cls is not thinker_class:
                    continue
                if catalog.tools.pop(name, None) is not None:
                    # A new list: the views handed out keep the old one as it was.
                    catalog.order = [p for p in catalog.order if p.name != name]
                    catalog.tools_view = None
            for cls, pending in self._pending_tools.items():
                if thinker_class is None or cls is thinker_class:
                    pending[:] = [provider for provider in pending if provider.name != name]

    def register_tool(self, thinker_class: type[Any], tool: ToolLike) -> None:
        """Widen ``thinker_class``'s catalog with one tool class or function."""
        self.register_compatible(thinker_class, tool)

    def register_compatible_skills(self, thinker_class: type[Any], *skills: Skill | str) -> None:
        """Widen ``thinker_class``'s skill catalog with skills (or names in the registry)."""
        with self._lock:
            catalog = self._catalogs.get(thinker_class)
            if catalog is None:
                self._pending_skills.setdefault(thinker_class, []).extend(skills)
            else:
                self._widen_skills(catalog, skills, thinker_class)

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
        new_packs: set[str] = set()
        for pack_tool in self.plugins.pack_tools(new):
            if _reserved_skipped(pack_tool.provider, f"tool pack {pack_tool.pack}"):
                continue
            self._packs.setdefault(pack_tool.pack, []).append(pack_tool.provider)
            new_packs.add(pack_tool.pack)
        for contributed in self.plugins.system_wide_tools(plugins=new):
            if _reserved_skipped(contributed.provider, f"plugin {contributed.plugin}"):
                continue
            self._system_wide.setdefault(contributed.provider.name, contributed.provider)
        self._load_skills(new)
        for thinker_class, catalog in self._catalogs.items():
            widened = self._pack_tools_for(catalog.selector, only=new_packs)
            widened += [
                c.provider
                for c in self.plugins.compatible_tools(thinker_class, plugins=new)
                if not _reserved_skipped(c.provider, f"plugin {c.plugin}")
            ]
            withdrawn = self._withdrawn_from(thinker_class)
            widened = [provider for provider in widened if provider.name not in withdrawn]
            self._widen(catalog, widened, thinker_class)
            if catalog.skill_selector is not None:
                self._widen_skills(
                    catalog, catalog.skill_selector.resolve(self.skills), thinker_class
                )

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
        rule = AdmissionRule(
            thinker_class, match, factory, name or _rule_name(factory, match, "tool")
        )
        with self._lock:
            self._rules.append(rule)
        return rule

    def register_skill_admission(
        self,
        thinker_class: type[Any] | None,
        match: str | Callable[[Skill], bool],
        factory: Callable[[Any], SkillGuardrail],
        *,
        name: str | None = None,
    ) -> SkillAdmissionRule:
        """Add a skill admission rule, matching by skill name or glob, or a predicate."""
        rule = SkillAdmissionRule(
            thinker_class, match, factory, name or _rule_name(factory, match, "skill")
        )
        with self._lock:
            self._skill_rules.append(rule)
        return rule

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
        try:
            catalog = {provider.name: provider for provider in _tool_catalog_of(thinker)}
            provider = catalog.get(name) if isinstance(name, str) else None
            if provider is None:
                return self._decide(thinker, "tool", name, (), off_catalog=True)
            if thinker.read_only and not provider.read_only:
                refusal = GuardrailOutcome(
                    guardrail="read-only palette",
                    verdict=Verdict.refuse(
                        f"'{provider.name}' is not declared read-only and this palette is bound "
                        "read-only"
                    ),
                )
                return self._decide(thinker, "tool", name, (refusal,), provider=provider)
            with self._lock:
                rules = list(self._rules)

            def ask_everyone(outcomes: list[GuardrailOutcome]) -> None:
                outcomes.extend(_rule_outcomes(rules, thinker, provider))
                for index, factory in enumerate(provider.admission_guardrails):
                    label = f"{provider.name} declared guardrail {index + 1}"
                    outcomes.append(_ask(label, factory, thinker, provider))
                outcomes.extend(_hook_outcomes(self.plugins.admit_tool(thinker, provider)))

            asked = self._within_time_limit(ask_everyone)
            return self._decide(thinker, "tool", name, asked, provider=provider)
        except PluginError:
            raise  # a strict host makes a failing plugin fatal, as it asked
        except Exception as exc:
            return self._decide_after_crash(thinker, "tool", name, exc)

    def admit_skill(self, thinker: Any, name: str, *, by_user: bool = False) -> Admission:
        """Decide whether ``thinker`` may be granted the skill ``name``; as `admit_tool`.

        Args:
            thinker: The thinker asking.
            name: The skill's name.
            by_user: A person asks (``nucleo chat --skill``), not the model: the skills kept
                from the model (``disable-model-invocation``) are in the catalog too. Every
                guardrail is asked all the same.
        """
        try:
            catalog = {skill.name: skill for skill in _skill_catalog_of(thinker, by_user=by_user)}
            skill = catalog.get(name) if isinstance(name, str) else None
            if skill is None:
                return self._decide(thinker, "skill", name, (), off_catalog=True)
            with self._lock:
                rules = list(self._skill_rules)

            def ask_everyone(outcomes: list[GuardrailOutcome]) -> None:
                outcomes.extend(_rule_outcomes(rules, thinker, skill))
                outcomes.extend(_hook_outcomes(self.plugins.admit_skill(thinker, skill)))

            asked = self._within_time_limit(ask_everyone)
            return self._decide(thinker, "skill", name, asked, skill=skill)
        except PluginError:
            raise
        except Exception as exc:
            return self._decide_after_crash(thinker, "skill", name, exc)

    def _within_time_limit(
        self, ask: Callable[[list[GuardrailOutcome]], None]
    ) -> tuple[GuardrailOutcome, ...]:
        """Run ``ask`` (which appends outcomes) in a daemon thread, for `admission_timeout`.

        Past the limit the outcomes gathered so far are kept for the record, one more outcome
        says the limit was reached (which refuses), and whatever the thread appends later is
        never read: the decision is taken here, once.
        """
        outcomes: list[GuardrailOutcome] = []
        failures: list[BaseException] = []
        done = threading.Event()

        def run() -> None:
            try:
                ask(outcomes)
            except BaseException as exc:  # handed to the caller, which decides what it means
                failures.append(exc)
            finally:
                done.set()

        context = contextvars.copy_context()  # guardrails see the caller's context variables
        worker = threading.Thread(
            target=context.run, args=(run,), name="nucleo-admission", daemon=True
        )
        worker.start()
        if not done.wait(self.admission_timeout):
            asked = tuple(outcomes)
            logger.error(
                "admission took longer than %g s; refused (%d guardrail(s) had answered)",
                self.admission_timeout,
                len(asked),
            )
            limit = GuardrailOutcome(
                guardrail="admission time limit",
                error=f"no decision within {self.admission_timeout:g} s",
            )
            return (*asked, limit)
        if failures:
            raise failures[0]
        return tuple(outcomes)

    def _decide_after_crash(
        self, thinker: Any, kind: str, name: object, exc: Exception
    ) -> Admission:
        """Refuse ``name`` after admission itself failed, on the record like any decision."""
        logger.exception("admission of %s %r failed", kind, name)
        crash = GuardrailOutcome(guardrail="admission", error=f"{type(exc).__name__}: {exc}")
        return self._decide(thinker, kind, name, (crash,))

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
        from nucleo_core.guard.audit.store import AuditQuery

        query = AuditQuery(kinds=_ADMISSION_KINDS)
        found: list[AdmissionEvent] = []
        for record in self.audit.read(query):
            details = record.admission
            if details is not None and details.get("hub") == self._audit_id:
                found.append(_admission_event(record, details))
        return tuple(found)

    # -- internals ----------------------------------------------------------------------------

    def _catalog(self, thinker_class: type[Any]) -> _Catalog:
        with self._lock:
            catalog = self._catalogs.get(thinker_class)
            if catalog is not None:
                return catalog
            selector = thinker_class.declare_compatible_tools()
            skill_selector = thinker_class.declare_compatible_skills()
            catalog = _Catalog(selector=selector, skill_selector=skill_selector)
            providers: list[ToolProvider] = []
            if selector is not None:
                for module in selector.modules:
                    providers += self.scan_module(module)
                providers += self._pack_tools_for(selector, only=None)
                providers += selector.tools
            providers = _unreserved(providers)  # the class's own declarations: its code's error
            providers += [
                c.provider
                for c in self.plugins.compatible_tools(thinker_class)
                if not _reserved_skipped(c.provider, f"plugin {c.plugin}")
            ]
            withdrawn = self._withdrawn_from(thinker_class)
            providers = [provider for provider in providers if provider.name not in withdrawn]
            providers += self._pending_tools.pop(thinker_class, [])
            self._widen(catalog, providers, thinker_class)
            skills: list[Skill | str] = []
            if skill_selector is not None:
                skills += skill_selector.resolve(self.skills)
            skills += self._pending_skills.pop(thinker_class, [])
            self._widen_skills(catalog, skills, thinker_class)
            self._catalogs[thinker_class] = catalog
            return catalog

    def _withdrawn_from(self, thinker_class: type[Any]) -> set[str]:
        """The names withdrawn from ``thinker_class``'s catalog (or from every catalog)."""
        return self._withdrawn.get(None, set()) | self._withdrawn.get(thinker_class, set())

    def _pack_tools_for(
        self, selector: ToolSelector | None, *, only: set[str] | None
    ) -> list[ToolProvider]:
        if selector is None or not selector.packs:
            return []
        found: list[ToolProvider] = []
        for pack, providers in self._packs.items():
            if only is not None and pack not in only:
                continue
            if any(fnmatch.fnmatchcase(pack, pattern) for pattern in selector.packs):
                found += providers
        return found

    def _widen(
        self, catalog: _Catalog, providers: Iterable[ToolProvider], thinker_class: type[Any]
    ) -> None:
        for provider in providers:
            present = catalog.tools.get(provider.name)
            if present is None:
                catalog.tools[provider.name] = provider
                catalog.order.append(provider)
                catalog.tools_view = None
            elif present != provider:
                logger.warning(
                    "%s's catalog already holds a tool named %r (%s); %s not added",
                    thinker_class.__qualname__,
                    provider.name,
                    present.source,
                    provider.source,
                )

    def _widen_skills(
        self, catalog: _Catalog, skills: Iterable[Skill | str], thinker_class: type[Any]
    ) -> None:
        for item in skills:
            skill = self.skills.get(item) if isinstance(item, str) else item
            if skill is None:
                logger.warning(
                    "skill %r offered to %s is not in the skill registry; skipped",
                    item,
                    thinker_class.__qualname__,
                )
                continue
            if skill.name not in catalog.skills:
                catalog.skills[skill.name] = skill
                catalog.skills_view = None

    def _load_skills(self, plugins: set[str]) -> None:
        from nucleo_core.skills.loading import skills_in, skills_in_package
        from nucleo_core.skills.scan import SkillScan

        scans: list[SkillScan] = []
        for package in self.plugins.skill_packages(plugins):
            try:
                scans.append(skills_in_package(package.package))
            except ModuleNotFoundError as exc:
                logger.warning("skilljar %s skipped: %s", package.package, exc)
        loose: list[Skill] = []
        for source in self.plugins.skill_sources(plugins=plugins):
            item = source.source
            if isinstance(item, Skill):
                loose.append(item)
            else:
                scans.append(skills_in(item))
        # Aliases packs declare for their own tools, then the skills, judged against them.
        known = {p.name for providers in self._packs.values() for p in providers}
        known.update(self._system_wide)
        for plugin, aliases in self.plugins.skill_tool_aliases(plugins):
            own = {t.provider.name for t in self.plugins.pack_tools({plugin})}
            own.update(c.provider.name for c in self.plugins.system_wide_tools(plugins={plugin}))
            for refused in self.skills.tool_aliases.add_pack(plugin, aliases, own):
                logger.warning(
                    "alias %r of plugin %s not taken: %s", refused.alias, plugin, refused.reason
                )
        self.skills.register_loaded(loose, known_tools=known)
        for scan in scans:
            for problem in scan.problems:
                logger.warning("skill skipped: %s: %s", problem.location, problem.reason)
            self.skills.register_loaded(scan.skills, known_tools=known)

    def _decide(
        self,
        thinker: Any,
        kind: Any,
        name: object,
        outcomes: tuple[GuardrailOutcome, ...],
        *,
        provider: ToolProvider | None = None,
        skill: Skill | None = None,
        off_catalog: bool = False,
    ) -> Admission:
        if off_catalog:
            noun = "tool" if kind == "tool" else "skill"
            reason = f"no {noun} of that name is in this thinker's catalog"
            outcomes = (GuardrailOutcome(guardrail="catalog", verdict=Verdict.refuse(reason)),)
        reasons = []
        for outcome in outcomes:
            if outcome.error is not None:
                reasons.append(INTERNAL_ERROR)
            elif outcome.verdict is not None and not outcome.verdict.granted:
                reasons.append(outcome.verdict.reason)
        granted = not reasons
        reason = "; ".join(dict.fromkeys(reasons))
        event = AdmissionEvent(
            thinker_class=type(thinker).__qualname__,
            thinker=repr(thinker),
            kind=kind,
            name=name if isinstance(name, str) else repr(name),
            granted=granted,
            reason=reason,
            outcomes=outcomes,
        )
        self._audit_admission(thinker, event, "grant" if granted else "refusal")
        # Refusals are routine (the model is told why), so both go at INFO; the record keeps all.
        logger.info(
            "%s %s %r for %s%s",
            "granted" if granted else "refused",
            kind,
            event.name,
            event.thinker,
            f": {reason}" if reason else "",
        )
        return Admission(
            name=event.name,
            granted=granted,
            reason=reason,
            provider=provider if granted else None,
            skill=skill if granted else None,
            outcomes=outcomes,
        )


#: How many records the audit log a hub makes for itself (given none) keeps in memory.
MEMORY_AUDIT_RECORDS = 10_000
_ADMISSION_KINDS = frozenset({"grant", "refusal", "revocation"})


def _memory_log() -> AuditLog:
    """The audit log of a hub given none: in memory, bounded."""
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.guard.audit.memory_store import MemoryAuditStore

    return AuditLog(MemoryAuditStore(max_records=MEMORY_AUDIT_RECORDS))


def _admission_details(hub: str, event: AdmissionEvent) -> dict[str, object]:
    """What an admission's audit record keeps for `ToolHub.admission_record` to read back."""
    outcomes: list[dict[str, object]] = []
    for outcome in event.outcomes:
        said: dict[str, object] = {"guardrail": outcome.guardrail}
        if outcome.verdict is not None:
            said["granted"] = outcome.verdict.granted
            said["reason"] = outcome.verdict.reason
        if outcome.error is not None:
            said["error"] = outcome.error
        outcomes.append(said)
    return {
        "hub": hub,
        "thinker": event.thinker,
        "thinker_qualname": event.thinker_class,
        "outcomes": outcomes,
    }


def _admission_event(record: AuditRecord, details: Mapping[str, Any]) -> AdmissionEvent:
    """The `AdmissionEvent` an admission's audit record was written from."""
    outcomes = []
    for said in details.get("outcomes", ()):
        granted = said.get("granted")
        verdict = (
            None if granted is None else Verdict(granted=granted, reason=said.get("reason", ""))
        )
        outcomes.append(
            GuardrailOutcome(guardrail=said["guardrail"], verdict=verdict, error=said.get("error"))
        )
    return AdmissionEvent(
        thinker_class=details.get("thinker_qualname", ""),
        thinker=details.get("thinker", ""),
        kind="tool" if record.skill is None else "skill",
        name=record.tool if record.tool is not None else (record.skill or ""),
        granted=record.kind == "grant",
        reason=record.reason or "",
        outcomes=tuple(outcomes),
        at=record.at,
    )


def _ask(label: str, factory: Callable[[Any], Any], thinker: Any, subject: Any) -> GuardrailOutcome:
    """Build one guardrail for ``thinker`` and ask it about ``subject``.

    A crash (building or checking), or an answer that is not a `Verdict`, is an internal
    error, which refuses and is never read as a verdict.
    """
    try:
        answer = factory(thinker).check(subject)
    except Exception as exc:
        logger.exception("admission guardrail %s raised", label)
        return GuardrailOutcome(guardrail=label, error=f"{type(exc).__name__}: {exc}")
    try:
        verdict = checked_verdict(answer)
    except TypeError as exc:
        logger.error("admission guardrail %s answered malformed: %s", label, exc)
        return GuardrailOutcome(guardrail=label, error=f"malformed answer: {exc}")
    return GuardrailOutcome(guardrail=label, verdict=verdict)


def _unreserved(providers: list[ToolProvider]) -> list[ToolProvider]:
    """``providers``, or `ReservedToolName` for the first that takes a reserved name."""
    for provider in providers:
        if provider.name in RESERVED_TOOL_NAMES:
            raise ReservedToolName(provider.name, f"the tool {provider.source}")
    return providers


def _reserved_skipped(provider: ToolProvider, origin: str) -> bool:
    """Whether a plugin's tool takes a reserved name: then it is reported and skipped."""
    if provider.name not in RESERVED_TOOL_NAMES:
        return False
    logger.warning("%s skipped: %s", provider.source, ReservedToolName(provider.name, origin))
    return True


def _tool_catalog_of(thinker: Any) -> Sequence[ToolProvider]:
    """The thinker's catalog now, as `ThinkerBase` computes it (an override cannot widen it)."""
    from nucleo_core.hub.thinker_base import ThinkerBase

    if isinstance(thinker, ThinkerBase):
        return ThinkerBase.tool_catalog(thinker)
    return cast("Sequence[ToolProvider]", thinker.tool_catalog())  # a duck-typed thinker


def _skill_catalog_of(thinker: Any, *, by_user: bool = False) -> Sequence[Skill]:
    """The thinker's skill catalog now, as `ThinkerBase` computes it (for a person, if asked)."""
    from nucleo_core.hub.thinker_base import ThinkerBase

    if isinstance(thinker, ThinkerBase):
        return ThinkerBase.skill_catalog(thinker, by_user=by_user)
    return cast("Sequence[Skill]", thinker.skill_catalog())


def _rule_outcomes(
    rules: Sequence[AdmissionRule] | Sequence[SkillAdmissionRule], thinker: Any, subject: Any
) -> Iterator[GuardrailOutcome]:
    """What each applicable rule's guardrail says about ``subject``; a crashed match included."""
    for rule in rules:
        outcome = _applies(rule, thinker, subject)
        if outcome is None:
            yield _ask(rule.name, rule.factory, thinker, subject)
        elif outcome.error is not None:
            yield outcome


def _applies(
    rule: AdmissionRule | SkillAdmissionRule, thinker: Any, subject: Any
) -> GuardrailOutcome | None:
    """``None`` when ``rule`` applies to ``subject``; an outcome when it does not, or crashed.

    A match predicate that raises is an internal error for this subject only: it refuses this
    name, and the request's other names are decided on their own.
    """
    try:
        applies = rule.applies(thinker, subject)
    except Exception as exc:
        logger.exception("the match of admission rule %s raised", rule.name)
        return GuardrailOutcome(
            guardrail=rule.name, error=f"its match raised {type(exc).__name__}: {exc}"
        )
    return None if applies else GuardrailOutcome(guardrail=rule.name)


def _hook_outcomes(said: Iterable[HookVerdict]) -> list[GuardrailOutcome]:
    return [
        GuardrailOutcome(guardrail=f"hook {each.plugin}", verdict=each.verdict, error=each.error)
        for each in said
    ]


def _rule_name(factory: Callable[..., Any], match: object, kind: str) -> str:
    factory_name = getattr(factory, "__qualname__", None) or type(factory).__qualname__
    if isinstance(match, str):
        shown = match
    else:
        shown = getattr(match, "__qualname__", None) or type(match).__qualname__
    return f"{kind} rule {factory_name} for {shown}"


def _guard_of(
    guard: PermissionGuard | PermissionPolicy | bool, plugins: PluginHost
) -> PermissionGuard | None:
    """The hub's guard: the default policy's, a policy's over the hub's hooks, or ``guard``."""
    if guard is False:
        return None
    from nucleo_core.guard.permission_guard import PermissionGuard
    from nucleo_core.guard.policy import PermissionPolicy

    if guard is True:
        return PermissionGuard(PermissionPolicy(), plugins)
    if isinstance(guard, PermissionGuard):
        return guard
    if isinstance(guard, PermissionPolicy):
        return PermissionGuard(guard, plugins)
    raise TypeError(
        "guard must be True (the default policy), False (no permission step), a "
        f"PermissionPolicy or a PermissionGuard, not {type(guard).__name__}"
    )
