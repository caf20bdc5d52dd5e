"""`PluginRecord`: what the host knows about one plugin it was given or found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["PluginRecord", "PluginStatus"]

#: What became of a plugin: ``loaded`` (its contribution is in), ``failed`` (see ``error``),
#: ``blocked`` (by the block list, or not on the allow list), ``duplicate`` (the same object
#: was already loaded under another name) or ``disabled`` (entry-point loading is off).
PluginStatus: TypeAlias = Literal["loaded", "failed", "blocked", "duplicate", "disabled"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PluginRecord:
    """One entry point (or one directly registered plugin) and what became of it.

    Attributes:
        name: The entry point's name, or the name a plugin was registered under.
        group: The entry point group (``nucleo.tools``, ``nucleo.skills``, ``nucleo.plugins``),
            or ``None`` for a plugin registered directly with `PluginHost.register_plugin`.
        value: The entry point's value (``package.module`` or ``package.module:attribute``);
            for a direct registration, the registered object's dotted name.
        distribution: The name of the distribution that ships it, or ``None`` when unknown.
        version: That distribution's version, or ``None`` when unknown.
        status: What became of it.
        contributed: What it brought, one entry per kind: ``tool: <name>`` per tool,
            ``hooks: <hook>, <hook>`` for the hooks it implements,
            ``skills package: <package>`` for a package of skill folders.
        error: Why it failed (``status == "failed"``), else ``None``.
        note: Why it was blocked, disabled or skipped as a duplicate, else ``None``.
        hook_errors: Failures of its hooks after it loaded (a hook that raised, or returned
            the wrong type), each recorded once, oldest first. It stays loaded: its other
            answers still count, and an admission hook that fails refuses.
        subplugins: The plugins of another ecosystem it loaded itself and brought tools from
            (the ``llm`` bridge's ``llm`` packs), each with what became of it, as its
            ``nucleo.tools`` callable reported them in a `ToolPackResult`; empty for most.
    """

    name: str
    group: str | None
    value: str
    distribution: str | None = None
    version: str | None = None
    status: PluginStatus
    contributed: tuple[str, ...] = ()
    error: str | None = None
    note: str | None = None
    hook_errors: tuple[str, ...] = ()
    subplugins: tuple[PluginRecord, ...] = ()

    @property
    def plugin(self) -> str:
        """The plugin's name on the host: ``<group>:<name>``, or ``name`` for a direct one.

        This is the name hook results are attributed to, and the name the host's hook-calling
        methods accept in their ``plugins`` argument.
        """
        return f"{self.group}:{self.name}" if self.group else self.name
