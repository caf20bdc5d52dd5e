"""The hub every command reads: a fresh `ToolHub` with the installed plugins loaded.

The plugins are selected as in any process: ``NUCLEO_DISABLE_PLUGIN_AUTOLOAD``,
``NUCLEO_PLUGINS_ALLOW`` and ``NUCLEO_PLUGINS_BLOCK`` are read by the hub's `PluginHost`. What
goes wrong while loading (a plugin that fails, a skill that is skipped) is told to the user as
``Warning:`` lines on stderr, never as a traceback; ``nucleo plugins`` shows plugin failures in
its table instead.
"""

from __future__ import annotations

import logging

import click

from nucleo_core.cli.command_error import CommandError
from nucleo_core.hub import ToolHub
from nucleo_core.plugins import PluginRecord

__all__ = ["loaded_hub", "shipped_by"]

#: The logger `PluginHost` reports plugin failures on.
_PLUGIN_LOGGER = "nucleo_core.plugins"
#: The loggers whose warnings loading may log: the host's, and the hub's and skills' own
#: (``nucleo.hub``, ``nucleo.skills``).
_LOADING_LOGGERS = (_PLUGIN_LOGGER, "nucleo")


def loaded_hub(*, warn_about_plugins: bool = True, mcp_servers: bool = False) -> ToolHub:
    """A new hub, its installed plugins loaded as the environment selects them.

    Every warning logged while loading is printed on stderr as one ``Warning:`` line, so that
    it is neither lost nor printed bare by the logging module's last-resort handler; records
    still reach any handler the user configured.

    Args:
        warn_about_plugins: Print a line per plugin that failed (or whose hook failed), from
            its record. ``nucleo plugins`` passes ``False``: its table says it already.
        mcp_servers: Also bind the MCP servers configured for the project (``nucleo run``
            and ``nucleo chat``), a ``Warning:`` line per problem; close the hub to stop them.
    """
    try:
        hub = ToolHub()
    except ValueError as exc:  # NUCLEO_PLUGINS_PATH names a folder that does not exist
        raise CommandError(str(exc)) from None
    collector = _Collector()
    loggers = [logging.getLogger(name) for name in _LOADING_LOGGERS]
    for logger in loggers:
        logger.addHandler(collector)
    try:
        hub.load_plugins()
    finally:
        for logger in loggers:
            logger.removeHandler(collector)
    _trace_if_asked(hub)
    if warn_about_plugins:
        _warn_about_plugin_failures(hub)
    for logger_name, message in collector.messages:
        # The host's own lines say what the records say; the records are printed instead.
        if logger_name != _PLUGIN_LOGGER:
            click.echo(f"Warning: {message}", err=True)
    if mcp_servers:
        from nucleo_core.cli.mcp_connect import connect_configured_servers

        for warning in connect_configured_servers(hub):
            click.echo(f"Warning: {warning}", err=True)
    return hub


def _trace_if_asked(hub: ToolHub) -> None:
    """Trace the hub's runs when ``$NUCLEO_TRACE`` asks (docs/tracing.md)."""
    from nucleo_core.telemetry.environment import (
        instrument_from_environment,
        tracer_provider_is_set,
    )
    from nucleo_core.telemetry.errors import TracingNotInstalled

    try:
        traced = instrument_from_environment(hub)
    except (ValueError, TracingNotInstalled) as exc:
        raise CommandError(str(exc)) from None
    if traced is not None and not tracer_provider_is_set():
        click.echo(
            "Warning: $NUCLEO_TRACE is set but no OpenTelemetry tracer provider is: the spans "
            "go nowhere. Start the command under opentelemetry-instrument (opentelemetry-distro), "
            "which sets one from the OTEL_* variables.",
            err=True,
        )


def shipped_by(record: PluginRecord) -> str:
    """``DISTRIBUTION VERSION`` (what is known of them), or ``""``."""
    return " ".join(part for part in (record.distribution, record.version) if part)


def _warn_about_plugin_failures(hub: ToolHub) -> None:
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


class _Collector(logging.Handler):
    """Keeps the warnings logged while the hub loads, to print them as the command's own."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.messages.append((record.name, record.getMessage()))
        except Exception:  # a malformed log call must not take the command down
            self.handleError(record)
