"""The pluggy markers of the ``nucleo`` project: what a plugin author imports."""

from __future__ import annotations

import pluggy

__all__ = ["PROJECT_NAME", "hookimpl", "hookspec"]

#: The pluggy project name every nucleo hook belongs to.
PROJECT_NAME = "nucleo"

#: Marks a function of a plugin module as the implementation of a ``nucleo_*`` hook.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

#: Marks a function of `nucleo_core.plugins.hookspecs` as a hook specification.
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
