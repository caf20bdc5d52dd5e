"""Reading a plugin object's hook implementations before it is registered."""

from __future__ import annotations

import inspect
import types
from collections.abc import Sequence
from dataclasses import dataclass

import pluggy

from nucleo_core.tools.decorator import declaration_of

__all__ = ["HOOK_PREFIX", "HookScan", "scan_hooks"]

#: The prefix every nucleo hook name carries.
HOOK_PREFIX = "nucleo_"


@dataclass(frozen=True, slots=True, kw_only=True)
class HookScan:
    """The hooks a plugin object implements, and what is wrong with them.

    Attributes:
        hooks: The known hooks it implements, in the order the specifications list them.
        problems: One line per mistake: a hook that does not exist, a ``nucleo_*`` function
            left unmarked, a wrapper.
    """

    hooks: tuple[str, ...]
    problems: tuple[str, ...]

    @property
    def is_hook_plugin(self) -> bool:
        """Whether the object means to implement hooks (even if it gets them wrong)."""
        return bool(self.hooks or self.problems)


def _unmarked_function(plugin: object, attribute: str) -> object | None:
    """The function bound at ``attribute``, looked up without running any descriptor."""
    static = inspect.getattr_static(plugin, attribute, None)
    if isinstance(static, staticmethod | classmethod):
        static = static.__func__
    if isinstance(static, types.MethodType):
        static = static.__func__
    return static if inspect.isfunction(static) else None


def scan_hooks(manager: pluggy.PluginManager, plugin: object, known: Sequence[str]) -> HookScan:
    """Read ``plugin``'s hook implementations the way ``manager`` would register them.

    Beyond what pluggy checks, a function named ``nucleo_*`` that is not marked with
    ``@hookimpl`` is a mistake too: unmarked, pluggy would silently never call it, and a
    misspelt hook name would pass unnoticed. A ``@tool`` function so named is a tool, not a
    hook, and is left alone.
    """
    found: set[str] = set()
    problems: list[str] = []
    try:
        attributes = sorted(dir(plugin))
    except Exception as exc:  # a plugin's own __dir__ may be broken
        return HookScan(hooks=(), problems=(f"cannot be inspected: {type(exc).__name__}: {exc}",))
    for attribute in attributes:
        options = manager.parse_hookimpl_opts(plugin, attribute)
        if options is not None:
            hook = options.get("specname") or attribute
            if options.get("wrapper") or options.get("hookwrapper"):
                problems.append(
                    f"{attribute} is a hook wrapper, which nucleo does not support: it calls "
                    "each implementation on its own"
                )
            elif hook in known:
                found.add(hook)
                problems += _signature_problems(plugin, attribute)
            elif not options.get("optionalhook"):
                problems.append(f"names a hook that does not exist: {hook}")
            continue
        if not attribute.startswith(HOOK_PREFIX):
            continue
        function = _unmarked_function(plugin, attribute)
        if function is None or declaration_of(function) is not None:
            continue
        if attribute in known:
            problems.append(
                f"{attribute} is not marked with @nucleo_core.plugins.hookimpl, so it would "
                "never be called"
            )
        else:
            problems.append(f"names a hook that does not exist: {attribute}")
    return HookScan(hooks=tuple(h for h in known if h in found), problems=tuple(problems))


def _signature_problems(plugin: object, attribute: str) -> list[str]:
    """What pluggy accepts but nucleo cannot honour in a hook implementation's signature."""
    try:
        function = inspect.getattr_static(plugin, attribute)
    except AttributeError:
        return []
    function = getattr(function, "__func__", function)  # a staticmethod or classmethod
    if not callable(function):
        return []
    problems: list[str] = []
    if inspect.iscoroutinefunction(function):
        problems.append(f"{attribute} is async: nucleo hooks are synchronous")
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return problems
    for parameter in parameters:
        if parameter.default is not parameter.empty:
            problems.append(
                f"{attribute} gives {parameter.name} a default, so it would never be passed: "
                "remove the default"
            )
    return problems
