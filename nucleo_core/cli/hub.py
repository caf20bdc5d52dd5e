"""The hub every command reads: a fresh `ToolHub` with the installed plugins loaded.

The plugins are selected as in any process: ``NUCLEO_DISABLE_PLUGIN_AUTOLOAD``,
``NUCLEO_PLUGINS_ALLOW`` and ``NUCLEO_PLUGINS_BLOCK`` are read by the hub's `PluginHost`. A
plugin that fails is reported by the command itself (a row of ``nucleo plugins``, a
``Warning:`` line of the others), never as a traceback.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import click

from nucleo_core.hub import ToolHub
from nucleo_core.plugins import PluginRecord

__all__ = ["loaded_hub", "shipped_by", "warn_about_plugin_failures"]

# The logger PluginHost reports failures on.
_PLUGIN_LOGGER = "nucleo_core.plugins"


def loaded_hub() -> ToolHub:
    """A new hub, its installed plugins loaded as the environment selects them."""
    hub = ToolHub()
    with _reported_by_the_command():
        hub.load_plugins()
    return hub


def shipped_by(record: PluginRecord) -> str:
    """``DISTRIBUTION VERSION`` (what is known of them), or ``""``."""
    return " ".join(part for part in (record.distribution, record.version) if part)


def warn_about_plugin_failures(hub: ToolHub) -> None:
    """Print a ``Warning:`` line on stderr per plugin that failed, or whose hook failed."""
    warned = False
    for record in hub.plugins.records:
        name = f"{record.plugin} ({shipped})" if (shipped := shipped_by(record)) else record.plugin
        if record.status == "failed":
            click.echo(f"Warning: plugin {name} was not loaded: {record.error}", err=True)
            warned = True
        for error in record.hook_errors:
            click.echo(f"Warning: plugin {name} {error}", err=True)
            warned = True
    if warned:
        click.echo("Warning: `nucleo plugins` lists every plugin and what became of it.", err=True)


@contextlib.contextmanager
def _reported_by_the_command() -> Iterator[None]:
    """Keep the logging module's last-resort handler from printing plugin failures.

    The commands report every failure themselves, from the plugin records; without a handler
    of its own, a warning on the plugins' logger would reach stderr a second time, bare.
    Records still propagate to any handler the user configured.
    """
    logger = logging.getLogger(_PLUGIN_LOGGER)
    handler = logging.NullHandler()
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
