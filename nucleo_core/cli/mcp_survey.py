"""The MCP servers configured for the project, started at once to see what each one lists.

`survey` starts the servers asked for, reports each one (`ServerReport`) and closes them again:
``nucleo mcp`` prints the report, ``nucleo tools`` lists their tools (`configured_mcp_tools`).
What the MCP layer logs meanwhile is held (`mcp_logs_held`): the command says it instead.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import click

from nucleo_core.cli.command_error import CommandError
from nucleo_core.mcp import (
    MCPConfigError,
    MCPProblem,
    MCPServerConfig,
    MCPServers,
    MCPServerStatus,
    MCPServerUnavailable,
    MCPToolProvider,
    discover_servers,
)
from nucleo_core.mcp.errors import MISSING_SDK
from nucleo_core.mcp.pins import Quarantine

__all__ = [
    "ServerReport",
    "Survey",
    "configured_mcp_tools",
    "configured_servers",
    "mcp_logs_held",
    "mcp_origin",
    "require_sdk",
    "sdk_installed",
    "server_summary",
    "survey",
]

#: The logger the MCP layer reports on.
_MCP_LOGGER = "nucleo.mcp"


@dataclass(frozen=True, kw_only=True)
class ServerReport:
    """One configured server as the command found it.

    Attributes:
        config: Its configuration.
        status: Its session state once started (before it was closed).
        unavailable: Why it did not start, when it did not.
        providers: Its tools, as registered (without any skipped or colliding tool).
        quarantined: Its tools withheld by their pins (`nucleo_core.mcp.pins`), with diffs.
    """

    config: MCPServerConfig
    status: MCPServerStatus
    unavailable: MCPServerUnavailable | None
    providers: tuple[MCPToolProvider, ...]
    quarantined: tuple[Quarantine, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Survey:
    """Every server asked for, started at once and closed again.

    Attributes:
        servers: One report per server, in configuration order.
        problems: What the MCP layer reported besides: invalid tools, name collisions.
    """

    servers: tuple[ServerReport, ...]
    problems: tuple[MCPProblem, ...]


def mcp_origin(server: str) -> str:
    """Where an MCP server's tools come from, as ``nucleo tools`` titles them."""
    return f"mcp server {server}"


def configured_mcp_tools(
    start: str | os.PathLike[str] | None = None,
) -> tuple[list[tuple[MCPToolProvider, str]], list[str]]:
    """The tools of the MCP servers configured for the project at ``start`` (the cwd).

    Every server is started at once and closed again; the providers are kept for listing
    (calling them needs servers that are running).

    Returns:
        Each tool with its origin (``mcp server ID``), in configuration order; and a warning
        per server that did not start, per problem reported, or for a configuration that
        cannot be read. No servers configured gives nothing.
    """
    try:
        configs = discover_servers(start)
    except MCPConfigError as exc:
        return [], [f"the tools of MCP servers are not listed: {exc}"]
    if not configs:
        return [], []
    if not sdk_installed():
        return [], [f"the tools of MCP servers are not listed: {MISSING_SDK}"]
    found = survey(configs)
    tools: list[tuple[MCPToolProvider, str]] = []
    warnings: list[str] = []
    for report in found.servers:
        name = report.config.name
        if report.unavailable is not None:
            warnings.append(
                f"the tools of MCP server '{name}' are not listed: "
                f"{report.unavailable.reason}; `nucleo mcp` shows its status"
            )
        tools += [(provider, mcp_origin(name)) for provider in report.providers]
    warnings += [problem.message for problem in found.problems]
    return tools, warnings


def survey(configs: Sequence[MCPServerConfig], names: Sequence[str] | None = None) -> Survey:
    """Start the servers ``names`` (every one by default) at once, report them, and close.

    Nothing the MCP layer logs meanwhile is printed: what it says is in the report.
    """
    wanted = [config.name for config in configs] if names is None else list(names)
    disabled = {config.name for config in configs if config.disabled}
    with mcp_logs_held():
        servers = MCPServers(configs)
        try:
            outcomes: dict[str, Any] = dict.fromkeys(disabled & set(wanted))
            outcomes |= servers.pool.start_all([name for name in wanted if name not in disabled])
            reports = []
            for name in wanted:
                outcome = outcomes[name]
                providers: tuple[MCPToolProvider, ...] = ()
                if name in disabled:  # configured, never started: listed as disabled
                    pass
                elif not isinstance(outcome, MCPServerUnavailable):
                    try:
                        providers = servers.start(name)  # started: registers its listing
                    except MCPServerUnavailable as exc:  # it stopped in between
                        outcome = exc
                reports.append(
                    ServerReport(
                        config=servers.pool.config(name),
                        status=servers.pool.status(name),
                        unavailable=outcome if isinstance(outcome, MCPServerUnavailable) else None,
                        providers=providers,
                        quarantined=servers.quarantined(name),
                    )
                )
            problems = tuple(p for p in servers.problems if p.kind != "unavailable")
        finally:
            servers.close()
    return Survey(servers=tuple(reports), problems=problems)


def server_summary(report: ServerReport) -> dict[str, Any]:
    """One server as a JSON object, keys in a stable order."""
    config, status, unavailable = report.config, report.status, report.unavailable
    return {
        "name": config.name,
        "transport": config.transport,
        "command": config.describe() if config.transport == "stdio" else None,
        "url": config.url,
        "origin": config.origin,
        "status": status.state,
        "tools": status.tools,
        "restarts": status.restarts,
        "protocol_version": status.protocol_version,
        "error": unavailable.reason if unavailable is not None else status.error,
        "stderr_tail": unavailable.stderr_tail if unavailable is not None else status.stderr_tail,
        "sessions": config.sessions,
        "risk_policy": None if config.risk_policy is None else dict(config.risk_policy),
        "disabled": config.disabled,
        "roots": list(config.root_uris()),
        "sampling": None if config.sampling is None else config.sampling.model,
        "pin": config.pin,
        "new_tools": config.new_tools,
        "quarantined": [quarantine.to_json() for quarantine in report.quarantined],
    }


def configured_servers() -> list[MCPServerConfig]:
    """The servers configured for the project at the working directory (`discover_servers`).

    Raises:
        CommandError: The configuration cannot be read.
    """
    try:
        return discover_servers()
    except MCPConfigError as exc:
        raise CommandError(str(exc)) from exc


def sdk_installed() -> bool:
    """Whether the MCP SDK (the ``mcp`` extra) is installed."""
    return importlib.util.find_spec("mcp") is not None


def require_sdk() -> None:
    """Stop the command, saying how to install it, when the MCP SDK is not installed."""
    if not sdk_installed():
        raise click.ClickException(MISSING_SDK)


@contextmanager
def mcp_logs_held() -> Iterator[None]:
    """Keep what the MCP layer logs from being printed bare; the command reports it instead.

    A handler on the ``nucleo.mcp`` logger keeps the logging module's last-resort handler
    from printing its records; records still reach any handler the user configured.
    """
    logger = logging.getLogger(_MCP_LOGGER)
    handler = logging.NullHandler()
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
