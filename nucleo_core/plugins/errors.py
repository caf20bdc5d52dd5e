"""`PluginError`: a plugin failed while the host was strict."""

from __future__ import annotations

from nucleo_core.errors import MisuseError

__all__ = ["PluginError"]


class PluginError(MisuseError):
    """A plugin failed to load or misbehaved in a hook, and the host is strict.

    A host that is not strict records the same failure on the plugin's `PluginRecord` and
    carries on without the plugin's contribution; ``strict=True`` (meant for a plugin author's
    CI) raises this instead, after recording it.

    Attributes:
        plugin: The plugin's name on the host (``<group>:<entry point name>`` for an entry point).
        distribution: The distribution that ships the plugin, or ``None`` when unknown.
        reason: What went wrong, as recorded (``missing dependency: requests``, ...).
    """

    def __init__(self, plugin: str, distribution: str | None, reason: str) -> None:
        self.plugin = plugin
        self.distribution = distribution
        self.reason = reason
        shipped = f" (distribution {distribution})" if distribution else ""
        super().__init__(f"plugin {plugin}{shipped}: {reason}")
