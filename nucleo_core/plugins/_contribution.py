"""What one loaded entry point contributes, by group: tools, a skills package, hooks."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from nucleo_core.plugins._inspection import HookScan
from nucleo_core.plugins._validation import TOOLS_EXPECTED, WrongType, as_provider, tools_from
from nucleo_core.plugins.pack_result import ToolPackResult
from nucleo_core.plugins.record import PluginRecord
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.scan import tools_in_module
from nucleo_core.tools.tool import Tool

__all__ = ["Contribution", "ContributionFailure", "contribution_of"]


class ContributionFailure(Exception):
    """An entry point cannot contribute; ``str()`` is the reason its record shows."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Contribution:
    """What a loaded entry point brings, before anything of it is committed.

    Attributes:
        tools: The tools it brings, in order.
        skill_package: The dotted name of the package of skill folders it names, if any.
        registers_hooks: Whether the object is to be registered as a hook plugin.
        subplugins: The records of the plugins of its own a `ToolPackResult` reported.
    """

    tools: tuple[ToolProvider, ...] = ()
    skill_package: str | None = None
    registers_hooks: bool = False
    subplugins: tuple[PluginRecord, ...] = ()


def _describe(subject: object) -> str:
    if isinstance(subject, ModuleType):
        kind = "package" if hasattr(subject, "__path__") else "module"
        return f"{kind} {subject.__name__}"
    return type(subject).__name__


def _tools(subject: object, value: str, scan: HookScan) -> Contribution:
    if isinstance(subject, ModuleType):
        try:
            found = tools_in_module(subject)
        except Exception as exc:  # a module whose tools cannot even be wrapped is broken
            raise ContributionFailure(
                f"failed to read its tools: {type(exc).__name__}: {exc}"
            ) from exc
        return Contribution(tools=tuple(found), registers_hooks=scan.is_hook_plugin)
    provider = as_provider(subject)
    if provider is not None:
        return Contribution(tools=(provider,))
    if isinstance(subject, type) and issubclass(subject, Tool):
        raise ContributionFailure(f"{subject.__qualname__} is a Tool class not declared with @tool")
    if not callable(subject):
        raise ContributionFailure(
            "expected a module, a tool, a tool provider or a callable returning tools, "
            f"got {_describe(subject)}"
        )
    subplugins: tuple[PluginRecord, ...] = ()
    try:
        result = subject()
        if isinstance(result, ToolPackResult):  # tools, and the plugins it brought them from
            subplugins = result.subplugins
            result = result.tools
        # A provider class (or a factory of one provider) is a callable returning a provider.
        providers = [result] if isinstance(result, ToolProvider) else tools_from(result)
    except WrongType as exc:
        expected = f"a tool provider, a ToolPackResult or {TOOLS_EXPECTED}"
        raise ContributionFailure(
            f"returned the wrong type from {value}: expected {expected}, got {exc.got}"
        ) from exc
    except Exception as exc:
        raise ContributionFailure(f"raised in {value}: {type(exc).__name__}: {exc}") from exc
    return Contribution(tools=tuple(providers), subplugins=subplugins)


def _skills(subject: object, scan: HookScan) -> Contribution:
    if scan.is_hook_plugin:
        return Contribution(registers_hooks=True)
    if isinstance(subject, ModuleType) and hasattr(subject, "__path__"):
        return Contribution(skill_package=subject.__name__)
    raise ContributionFailure(
        "expected a package holding skill folders or a module implementing nucleo_* hooks, "
        f"got {_describe(subject)}"
    )


def contribution_of(group: str, subject: object, value: str, scan: HookScan) -> Contribution:
    """What ``subject``, loaded from an entry point of ``group`` with ``value``, contributes.

    * ``nucleo.tools``: a module brings the tools it defines itself and is a hook plugin too;
      a provider, ``@tool`` class or ``@tool`` function brings itself; any other callable is
      called and must return a provider, an iterable of tools, or a `ToolPackResult` (its
      tools, and a record of each plugin of its own it brought them from).
    * ``nucleo.skills``: an object implementing ``nucleo_*`` hooks is a hook plugin; otherwise
      it must be a package, whose skill folders the skills layer reads.
    * ``nucleo.plugins``: a hook plugin, which must implement at least one hook.

    Raises:
        ContributionFailure: It cannot contribute; the message is the reason.
    """
    if group == "nucleo.tools":
        return _tools(subject, value, scan)
    if group == "nucleo.skills":
        return _skills(subject, scan)
    if not scan.is_hook_plugin:
        raise ContributionFailure(f"implements no nucleo_* hook ({_describe(subject)})")
    return Contribution(registers_hooks=True)
