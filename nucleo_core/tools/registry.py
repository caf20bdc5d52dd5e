"""`ToolRegistry`: names to providers, in a stable order, with the surface a call may reach."""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, final

from nucleo_core.errors import ToolCollisionError, UnknownTool
from nucleo_core.tools._run_all import run_all
from nucleo_core.tools.declaration import declaration_of, describe_target
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import ToolLike, provider_for
from nucleo_core.tools.shadow import ShadowRecord

if TYPE_CHECKING:
    from nucleo_core.tools.phase import Phase
    from nucleo_core.tools.spec import ToolSpec
    from nucleo_core.tools.state import CarriedState
    from nucleo_core.tools.tool import Tool

__all__ = ["ShadowRecord", "ToolRegistry", "ToolSkippedWarning"]


class ToolSkippedWarning(UserWarning):
    """A class or function handed to a registry has no tool declaration and was skipped."""


@final
class ToolRegistry:
    """Maps tool names to providers; the catalog every tool call resolves through.

    - **Order** is registration order: re-registering keeps a tool's place and a new tool
      appends, so the bytes of earlier tool definitions (the front of the prompt) never change.
    - **Duplicates**: a registration under an existing name by the same concrete provider type
      is an upsert; by a different provider type it raises `ToolCollisionError`, unless
      ``shadow=True`` asks for a deliberate replacement, recorded in `shadowed`.
    - **Idempotence**: register and unregister are state-idempotent, so per-turn reconcile
      hooks can run every turn.
    - **Surface**: `available` is what dispatch goes through: registered, inside the union of
      the active restrictions, and permitted by the current phase. A narrowing enforced only
      in the spec list would be advisory, since a model can name a tool it saw turns ago.
    - **None names**: every lookup that resolves a provider (`get_provider_by_name`,
      `create_tool`, `input_type`, `display_name`, `action_verb`, `available`) treats ``None``
      as an unknown name; `has_tool` and `unregister` raise ``TypeError`` on ``None``.
    - Lookups accept the bare name or the prefixed id (``native:search``).
    """

    __slots__ = (
        "_lock",
        "_phase",
        "_providers",
        "_restriction_union",
        "_restrictions",
        "_shadowed",
        "_sources",
        "_specs_cache",
    )

    def __init__(self, tools: Iterable[ToolLike] = ()) -> None:
        self._providers: dict[str, ToolProvider] = {}
        self._sources: dict[str, str] = {}
        self._restrictions: dict[str, frozenset[str]] = {}
        self._restriction_union: frozenset[str] | None = None
        self._phase: Phase | None = None
        self._shadowed: list[ShadowRecord] = []
        self._specs_cache: dict[Phase | None, tuple[ToolSpec, ...]] = {}
        self._lock = threading.RLock()
        for item in tools:
            self.register(item)

    # -- registration -----------------------------------------------------------------------

    def register(self, tool: ToolLike, *, shadow: bool = False) -> ToolProvider | None:
        """Register a provider, or a ``@tool``-declared class or function.

        Args:
            tool: What to register; a class or function not declared with ``@tool`` is
                skipped with a `ToolSkippedWarning`.
            shadow: Replace a tool of a different provider type under the same name instead
                of raising; the replacement is recorded in `shadowed`.

        Returns:
            The provider now registered, or ``None`` when ``tool`` was skipped.

        Raises:
            ToolCollisionError: The name is held by a different provider type and ``shadow``
                is false.
        """
        name = getattr(tool, "name", None)
        held = self._providers.get(name) if isinstance(name, str) else None
        if held is tool:  # re-registering the very provider held: every turn's reconcile
            return held
        if not isinstance(tool, ToolProvider) and declaration_of(tool) is None:
            warnings.warn(
                f"{describe_target(tool)} has no tool name (it is not declared with @tool); "
                "skipped",
                ToolSkippedWarning,
                stacklevel=2,
            )
            return None
        provider = provider_for(tool)
        name = provider.name
        with self._lock:
            existing = self._providers.get(name)
            if existing is not None:
                if type(existing) is not type(provider):
                    if not shadow:
                        raise ToolCollisionError(
                            name, type(existing).__name__, type(provider).__name__
                        )
                    self._shadowed.append(
                        ShadowRecord(
                            name=name,
                            replaced=existing.source,
                            replaced_kind=type(existing).__name__,
                            by=provider.source,
                            by_kind=type(provider).__name__,
                        )
                    )
                if existing is provider:
                    return provider
                self._sources.pop(existing.source, None)
            # Assigning to an existing key keeps its position: a re-registration keeps its place.
            self._providers[name] = provider
            self._sources[provider.source] = name
            self._specs_cache.clear()
        return provider

    def register_all(
        self, tools: Iterable[ToolLike], *, shadow: bool = False
    ) -> list[ToolProvider]:
        """Register each of ``tools`` in order; returns the providers registered."""
        registered = (self.register(item, shadow=shadow) for item in tools)
        return [provider for provider in registered if provider is not None]

    def unregister(self, tool: ToolLike | str) -> ToolProvider | None:
        """Remove a tool by name (bare or prefixed), provider, class or function.

        Unregistering what is not registered is a no-op. A provider, class or function is
        removed only when the registry holds an equal provider under its name.

        Returns:
            The provider removed, or ``None``.

        Raises:
            TypeError: ``tool`` is ``None``.
        """
        if tool is None:
            raise TypeError("unregister() needs a tool name, provider, class or function")
        with self._lock:
            if isinstance(tool, str):
                provider = self._lookup(tool)
            else:
                if not isinstance(tool, ToolProvider) and declaration_of(tool) is None:
                    warnings.warn(
                        f"{describe_target(tool)} has no tool name; nothing to unregister",
                        ToolSkippedWarning,
                        stacklevel=2,
                    )
                    return None
                wanted = provider_for(tool)
                provider = self._providers.get(wanted.name)
                if provider is not None and provider != wanted:
                    provider = None
            if provider is None:
                return None
            del self._providers[provider.name]
            self._sources.pop(provider.source, None)
            self._specs_cache.clear()
            return provider

    # -- lookups ------------------------------------------------------------------------------

    def has_tool(self, name: str) -> bool:
        """Whether a tool is registered under ``name`` (bare or prefixed).

        Raises:
            TypeError: ``name`` is ``None``.
        """
        if name is None:
            raise TypeError("has_tool() needs a tool name, not None")
        return self._lookup(name) is not None

    def get_provider_by_name(self, name: str | None) -> ToolProvider | None:
        """The provider registered under ``name``, or ``None`` (also for a ``None`` name)."""
        return self._lookup(name)

    get = get_provider_by_name

    def input_type(self, name: str | None) -> type[Any] | None:
        """The input type of the named tool, or ``None`` for an unknown or ``None`` name."""
        provider = self._lookup(name)
        return None if provider is None else provider.input_type

    def display_name(self, name: str | None) -> str | None:
        """The display name of the named tool, or ``None`` for an unknown or ``None`` name."""
        provider = self._lookup(name)
        return None if provider is None else provider.display_name

    def action_verb(self, name: str | None) -> str | None:
        """The action verb of the named tool, or ``None`` for an unknown or ``None`` name."""
        provider = self._lookup(name)
        return None if provider is None else provider.action_verb

    def create_tool(self, name: str | None, parent: object | None = None) -> Tool[Any, Any]:
        """Build the named tool for ``parent``, if a call may reach it.

        Raises:
            UnknownTool: No tool of that name is available; the error lists those that are,
                so the model can pick another.
        """
        provider = self.available(name)
        if provider is None:
            raise UnknownTool(self.available_names())
        return provider.create(parent)

    def available(self, name: str | None) -> ToolProvider | None:
        """The provider a call may actually reach, else ``None``.

        Reachable means registered, inside the union of the active restrictions, and permitted
        by the current phase.
        """
        provider = self._lookup(name)
        if provider is None or not self._in_surface(provider, self._phase):
            return None
        return provider

    def available_names(self) -> list[str]:
        """The names a call may reach right now, in registry order."""
        phase = self._phase
        return [p.name for p in list(self._providers.values()) if self._in_surface(p, phase)]

    def names(self) -> list[str]:
        """Every registered name, in registry order, whatever the surface."""
        return list(self._providers)

    def providers(self) -> list[ToolProvider]:
        """Every registered provider, in registry order, whatever the surface."""
        return list(self._providers.values())

    def __iter__(self) -> Iterator[ToolProvider]:
        return iter(list(self._providers.values()))

    def __len__(self) -> int:
        return len(self._providers)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._lookup(name) is not None

    def __repr__(self) -> str:
        return f"<ToolRegistry {len(self._providers)} tools>"

    # -- specs --------------------------------------------------------------------------------

    def specs(self) -> list[ToolSpec]:
        """Specs of the tools a call may reach now, in the stable registry order."""
        return self.specs_for(self._phase)

    def specs_for(self, phase: Phase | None) -> list[ToolSpec]:
        """Specs ``phase`` permits (and the active restrictions allow), in the same order.

        A phase's absent tools are genuinely absent: this list is what the model is shown.
        """
        cached = self._specs_cache.get(phase)
        if cached is None:
            with self._lock:
                cached = tuple(
                    provider.spec()
                    for provider in self._providers.values()
                    if self._in_surface(provider, phase)
                )
                self._specs_cache[phase] = cached
        return list(cached)

    # -- restrictions and phases --------------------------------------------------------------

    def restrict(self, key: str, names: Iterable[str]) -> None:
        """Narrow the surface to ``names`` (bare or prefixed ids) on behalf of ``key``.

        ``key`` names what imposed the restriction (a skill, a procedure).

        Active restrictions compose as a **union**: each names the tools its own procedure
        needs, and intersecting them would strand a run that loaded two. The union is then
        intersected with what is registered, so it is never larger than the unrestricted
        surface. A tool that is itself restricting stays in the surface whatever the
        restrictions name, so a restriction cannot remove its own mechanism.
        """
        with self._lock:
            self._restrictions[key] = frozenset(names)
            self._restriction_union = frozenset().union(*self._restrictions.values())
            self._specs_cache.clear()

    def lift_restriction(self, key: str) -> bool:
        """Remove the restriction ``key`` imposed; ``False`` when it had none."""
        with self._lock:
            if self._restrictions.pop(key, None) is None:
                return False
            self._restriction_union = (
                frozenset().union(*self._restrictions.values()) if self._restrictions else None
            )
            self._specs_cache.clear()
            return True

    @property
    def restrictions(self) -> Mapping[str, frozenset[str]]:
        """The active restrictions, by the key that imposed each."""
        return dict(self._restrictions)

    def surface_restriction(self) -> frozenset[str] | None:
        """The names the surface is narrowed to (the union of restrictions), or ``None``."""
        return self._restriction_union

    @property
    def phase(self) -> Phase | None:
        """The current phase, or ``None`` when no phase narrows the surface."""
        return self._phase

    def enter_phase(self, phase: Phase | None) -> None:
        """Switch to ``phase`` (``None`` leaves every phase); tools it lacks become unreachable."""
        with self._lock:
            self._phase = phase

    @property
    def shadowed(self) -> tuple[ShadowRecord, ...]:
        """Every deliberate shadowing this registry performed, oldest first."""
        return tuple(self._shadowed)

    # -- conversation state -------------------------------------------------------------------

    def carried_state(self, conversation_id: str | None = None) -> list[CarriedState]:
        """What the registered tools want carried across a compaction, in registry order.

        Asked of every tool, whatever its source: the loop never learns which tools have state.

        Args:
            conversation_id: The conversation being compacted, passed on to every tool.
        """
        providers = list(self._providers.values())
        if conversation_id is None:
            states = (provider.carried_state() for provider in providers)
        else:
            states = (provider.carried_state(conversation_id) for provider in providers)
        return [state for state in states if state is not None]

    def forget_conversation_state(self, conversation_id: str | None = None) -> None:
        """Tell every registered tool the conversation ended.

        Every tool is told even when one raises; the failures are raised together afterwards
        as an ``ExceptionGroup``.

        Args:
            conversation_id: The conversation that ended, passed on to every tool (``None``:
                the tools are told without a name, and drop every conversation's state).
        """
        providers = list(self._providers.values())
        if conversation_id is None:
            told = [provider.forget_conversation_state for provider in providers]
        else:
            told = [
                functools.partial(provider.forget_conversation_state, conversation_id)
                for provider in providers
            ]
        run_all(told, "forget_conversation_state failed for some tools")

    # -- internals ----------------------------------------------------------------------------

    def _lookup(self, name: str | None) -> ToolProvider | None:
        if not isinstance(name, str):
            return None
        provider = self._providers.get(name)
        if provider is None and ":" in name:
            registered = self._sources.get(name)
            provider = None if registered is None else self._providers.get(registered)
        return provider

    def _in_surface(self, provider: ToolProvider, phase: Phase | None) -> bool:
        if phase is not None and not phase.permits(provider):
            return False
        union = self._restriction_union
        return (
            union is None
            or provider.name in union
            or provider.source in union
            or provider.restricting
        )
