"""`tools_in_module`: the tools a module defines itself."""

from __future__ import annotations

from types import ModuleType

from nucleo_core.tools.declaration import declaration_of
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import provider_for

__all__ = ["tools_in_module"]


def tools_in_module(module: ModuleType) -> list[ToolProvider]:
    """Providers for the ``@tool``-declared classes and functions ``module`` itself defines.

    Tools a module merely imports, and its submodules' tools, are not its own. The order is
    the module's definition order, so a registry filled from a scan has a stable order.
    """
    found: list[ToolProvider] = []
    seen: set[int] = set()  # one tool bound under two names (an alias) is still one tool
    for value in list(vars(module).values()):
        if getattr(value, "__module__", None) != module.__name__ or id(value) in seen:
            continue
        if declaration_of(value) is not None:
            seen.add(id(value))
            found.append(provider_for(value))
    return found
