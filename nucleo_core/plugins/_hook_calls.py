"""`HookCalls`: a host's hook implementations called one at a time, in order, each isolated."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy

from nucleo_core.plugins._ledger import PluginLedger
from nucleo_core.plugins._validation import (
    WrongType,
    aliases_or_none,
    decision_from,
    names_or_none,
    sources_or_none,
    tools_or_none,
    verdict_from,
)
from nucleo_core.plugins.contributions import (
    ContributedSource,
    ContributedTool,
    HookDecision,
    HookVerdict,
)

if TYPE_CHECKING:
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["HookCalls"]

_logger = logging.getLogger("nucleo_core.plugins")

_T = TypeVar("_T")


class HookCalls:
    """Calls the implementations of a host's hooks (`PluginHost` is their only caller).

    Args:
        manager: The host's plugin manager.
        ledger: The host's records, where a failing implementation is noted.
        lock: The host's lock.
    """

    def __init__(
        self, manager: pluggy.PluginManager, ledger: PluginLedger, lock: threading.RLock
    ) -> None:
        self._manager = manager
        self._ledger = ledger
        self._lock = lock
        # Each hook's implementations over every plugin, in call order; cleared on registration.
        self._ordered: dict[str, list[pluggy.HookImpl]] = {}

    def forget_order(self) -> None:
        """A plugin was registered or unregistered: work each hook's order out anew."""
        self._ordered.clear()

    def implementations(self, hook: str, plugins: Collection[str] | None) -> list[pluggy.HookImpl]:
        """``hook``'s implementations (of ``plugins`` only, if given), in call order."""
        if plugins is None:  # every plugin: kept, in order, until a plugin is registered
            cached = self._ordered.get(hook)
            if cached is not None:
                return cached
        caller: pluggy.HookCaller = getattr(self._manager.hook, hook)
        chosen = [
            impl
            for impl in caller.get_hookimpls()
            if plugins is None or impl.plugin_name in plugins
        ]
        sequence = self._ledger.sequence

        def order(impl: pluggy.HookImpl) -> tuple[int, int]:
            tier = 0 if impl.tryfirst else 2 if impl.trylast else 1
            return (tier, sequence.get(impl.plugin_name, len(sequence)))

        ordered = sorted(chosen, key=order)
        if plugins is None:
            with self._lock:
                self._ordered[hook] = ordered
        return ordered

    def ask(
        self,
        impl: pluggy.HookImpl,
        hook: str,
        arguments: Mapping[str, Any],
        validate: Callable[[object], _T],
    ) -> tuple[_T | None, str | None]:
        """Call one implementation and validate its answer: ``(answer, None)`` or ``(None, why)``.

        A failure is recorded against the plugin (and raised as `PluginError` when strict).
        """
        cause: Exception
        try:
            # pluggy passes an implementation only the arguments it names, positionally.
            result = impl.function(*map(arguments.__getitem__, impl.argnames))
            return validate(result), None
        except WrongType as exc:
            reason, cause = f"returned the wrong type from {hook}: {exc}", exc
        except Exception as exc:  # isolate the plugin: one crash must not stop the others
            reason, cause = f"raised in {hook}: {type(exc).__name__}: {exc}", exc
        self._ledger.hook_failed(impl.plugin_name, reason, cause)
        return None, reason

    def tools_of(
        self, hook: str, arguments: Mapping[str, Any], plugins: Collection[str] | None
    ) -> list[ContributedTool]:
        """Every answer of a hook that returns tools, validated and attributed, in order."""
        contributed: list[ContributedTool] = []
        for impl in self.implementations(hook, plugins):
            providers, error = self.ask(impl, hook, arguments, tools_or_none)
            if error is None and providers:
                distribution = self._ledger.distribution_of(impl.plugin_name)
                contributed.extend(
                    ContributedTool(provider=p, plugin=impl.plugin_name, distribution=distribution)
                    for p in providers
                )
        return contributed

    def verdicts(self, hook: str, arguments: Mapping[str, Any]) -> list[HookVerdict]:
        """Every implementation's verdict on an admission hook, a failure as an ``error``."""
        verdicts: list[HookVerdict] = []
        for impl in self.implementations(hook, None):
            verdict, error = self.ask(impl, hook, arguments, verdict_from)
            verdicts.append(
                HookVerdict(
                    plugin=impl.plugin_name,
                    distribution=self._ledger.distribution_of(impl.plugin_name),
                    verdict=verdict,
                    error=error,
                )
            )
        return verdicts

    def providers_of(self, hook: str, arguments: Mapping[str, Any]) -> list[ToolProvider]:
        """The providers of every answer of a hook that returns tools, in order, unattributed.

        Asked at every turn of every thinker (``nucleo_palette_tools``), so it does no more
        than call, validate and collect.
        """
        providers: list[ToolProvider] = []
        for impl in self.implementations(hook, None):
            answer, _ = self.ask(impl, hook, arguments, tools_or_none)
            if answer:
                providers.extend(answer)
        return providers

    def permission(
        self, thinker: Any, provider: Any, arguments: Mapping[str, Any]
    ) -> Iterator[HookDecision]:
        """Each ``nucleo_permission`` implementation's decision, asked as the caller iterates."""
        hook = "nucleo_permission"
        asked = {"thinker": thinker, "provider": provider, "arguments": arguments}
        for impl in self.implementations(hook, None):
            decision, error = self.ask(impl, hook, asked, decision_from)
            yield HookDecision(
                plugin=impl.plugin_name,
                distribution=self._ledger.distribution_of(impl.plugin_name),
                decision=decision,
                error=error,
            )

    def withheld(self, thinker: Any, catalog: Sequence[str]) -> set[str]:
        """The names of ``catalog`` a ``nucleo_reconcile_catalog`` withholds; all on a failure."""
        names = tuple(catalog)
        arguments = {"thinker": thinker, "catalog": names}
        withheld: set[str] = set()
        for impl in self.implementations("nucleo_reconcile_catalog", None):
            answer, error = self.ask(impl, "nucleo_reconcile_catalog", arguments, names_or_none)
            if error is not None:
                _logger.warning(
                    "plugin %s failed in nucleo_reconcile_catalog: the whole catalog of %r is "
                    "withheld this turn",
                    impl.plugin_name,
                    thinker,
                )
                return set(names)
            withheld.update(answer or ())
        return withheld & set(names)

    def skill_sources(self, plugins: Collection[str] | None) -> list[ContributedSource]:
        """Every ``nucleo_skill_sources`` answer, validated and attributed."""
        sources: list[ContributedSource] = []
        for impl in self.implementations("nucleo_skill_sources", plugins):
            answer, _ = self.ask(impl, "nucleo_skill_sources", {}, sources_or_none)
            distribution = self._ledger.distribution_of(impl.plugin_name)
            sources.extend(
                ContributedSource(source=source, plugin=impl.plugin_name, distribution=distribution)
                for source in answer or ()
            )
        return sources

    def skill_tool_aliases(
        self, plugins: Collection[str] | None
    ) -> list[tuple[str, dict[str, tuple[str, ...]]]]:
        """Every ``nucleo_skill_tool_aliases`` answer, validated: ``(plugin, aliases)`` pairs."""
        hook = "nucleo_skill_tool_aliases"
        answers: list[tuple[str, dict[str, tuple[str, ...]]]] = []
        for impl in self.implementations(hook, plugins):
            answer, _ = self.ask(impl, hook, {}, aliases_or_none)
            if answer:
                answers.append((impl.plugin_name, answer))
        return answers
