"""`MCPServerConfig`: one MCP server as configured, its values checked when it is made."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal, TypeAlias

from nucleo_core.mcp._config_values import (
    Exposure,
    as_exposure,
    as_risk,
    as_risk_policy,
    as_root,
    as_string_table,
    as_strings,
)
from nucleo_core.mcp.errors import MCPConfigError
from nucleo_core.mcp.sampling import SamplingSettings
from nucleo_core.tools.risk import Risk

__all__ = ["SESSION_MODES", "MCPServerConfig", "MCPToolSettings", "SessionMode"]

#: How a server's sessions are shared: one session for every conversation (``"shared"``), or a
#: session of its own for each conversation, closed when the conversation ends
#: (``"conversation"``: a process of its own for a stdio server, an MCP session of its own over
#: HTTP).
SessionMode: TypeAlias = Literal["shared", "conversation"]
SESSION_MODES: tuple[SessionMode, ...] = ("shared", "conversation")

#: What a ``new_tools`` setting may say (`nucleo_core.mcp.pins.NewTools`).
_NEW_TOOLS = ("allow", "quarantine")
_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")


@dataclass(frozen=True, slots=True, kw_only=True)
class MCPToolSettings:
    """What the configuration declares about one tool of a server, over the server's settings.

    Attributes:
        risk: The tool's declared risk, or ``None`` to take the server's.
        read_only: Declares the tool read-only (or not) whatever its annotations say, or
            ``None`` to follow the server's rule.
    """

    risk: Risk | None = None
    read_only: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MCPServerConfig:
    """One MCP server: how to reach it, and what its tools are declared to be.

    Exactly one of ``command`` (a stdio server, run as a subprocess) and ``url`` (a streamable
    HTTP server) is given.

    Attributes:
        name: The server's id; tools carry the source ``mcp:<name>:<tool>``.
        command: The executable of a stdio server.
        args: Its arguments.
        env: Variables added to the minimal environment the SDK gives the server.
        cwd: Its working directory (relative paths are resolved against the config file).
        pass_env: Names or globs of the parent's variables passed through to the server.
        url: The endpoint of a streamable HTTP server.
        headers: HTTP headers sent with every request (an ``Authorization``, say).
        risk: The declared risk of the server's tools; ``None`` leaves it undeclared, which
            counts as ``high``.
        tools: Per-tool declarations, by the server's own tool name.
        trust_annotations: Whether the server's ``readOnlyHint``/``destructiveHint`` may make a
            tool read-only. Off by default: the MCP specification says hints from untrusted
            servers must not be relied on.
        prefix: Namespaces the tools as ``<prefix>_<tool>`` (the fix for a name collision).
        timeout: Seconds one call may take before it ends in an error result.
        startup_timeout: Seconds the server may take to start and list its tools.
        thinkers: Which thinkers see the tools (see `Exposure`).
        start: ``"eager"`` starts the server when it is bound to a hub; ``"lazy"`` when first
            needed. A server whose tools every thinker sees is always started when bound,
            since its tools join every palette.
        shadow: Whether its tools may replace native tools of the same name (deliberate
            shadowing, recorded); otherwise such a tool is refused and reported.
        max_restarts: How many times a session that died is restarted (with backoff) before
            the server is given up on.
        protocol: How the session settles its MCP protocol version, as the SDK's ``Client``
            does: ``"auto"`` (``server/discover``, falling back to the ``initialize``
            handshake for servers that predate it), ``"legacy"`` (the ``initialize``
            handshake, protocol 2025-11-25 and earlier), or a protocol version such as
            ``"2026-07-28"``, adopted without a probe.
        sessions: ``"shared"`` (one session serves every conversation) or ``"conversation"``
            (see `SessionMode`): each conversation gets a session of its own, opened at its
            first call of one of the server's tools and closed when it ends, so a server that
            keeps state (a browser, a scratch database) keeps it for one conversation only.
            The shared session still lists the tools, and serves calls made outside any
            conversation.
        risk_policy: What the permission guard decides for the server's tools, by declared
            risk level (``low``, ``medium``, ``high``): ``auto``, ``notify``, ``confirm`` or
            ``deny``; a read-only mapping, or ``None`` when not configured. The MCP layer only
            carries it (`MCPToolProvider.risk_policy`); the guard reads it.
        disabled: The server is configured but not started (``"disabled": true`` in
            ``.mcp.json``, ``disabled = true`` in a nucleo table); ``nucleo mcp`` lists it as
            disabled.
        roots: The folders the server is told it may work in (``roots/list``), as absolute
            paths; ``None`` gives the project folder (`project_dir`, else the working
            directory), and an empty tuple gives none.
        project_dir: The folder of the configuration file that declared the server.
        sampling: Which model serves the server's sampling requests (`SamplingSettings`);
            ``None`` (the default) refuses them.
        pin: Pin the server's tool definitions (`nucleo_core.mcp.pins`): a tool whose
            definition changes after it was first seen is withheld until accepted. On by
            default; ``false`` offers whatever the server publishes.
        new_tools: What happens to a tool that appears on a server that already has pins:
            ``"allow"`` (the default: pinned, offered, and reported) or ``"quarantine"``
            (withheld until accepted, as a changed one).
        pin_store: The SQLite file the pins are kept in (an absolute path once read from a
            file); ``None`` gives ``.nucleo/mcp_pins.sqlite3`` in the project folder.
        origin: Where the configuration came from, for messages.
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    pass_env: tuple[str, ...] = ()
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    risk: Risk | None = None
    tools: Mapping[str, MCPToolSettings] = field(default_factory=dict)
    trust_annotations: bool = False
    prefix: str | None = None
    timeout: float = 60.0
    startup_timeout: float = 30.0
    thinkers: Exposure = "all"
    start: Literal["lazy", "eager"] = "lazy"
    shadow: bool = False
    max_restarts: int = 3
    protocol: str = "auto"
    sessions: SessionMode = "shared"
    risk_policy: Mapping[str, str] | None = None
    disabled: bool = False
    roots: tuple[str, ...] | None = None
    project_dir: str | None = None
    sampling: SamplingSettings | None = None
    pin: bool = True
    new_tools: Literal["allow", "quarantine"] = "allow"
    pin_store: str | None = None
    origin: str = "code"

    def __post_init__(self) -> None:
        where = f"{self.origin}: MCP server '{self.name}'"
        if not isinstance(self.name, str) or not self.name or ":" in self.name:
            raise MCPConfigError(f"{where}: the server id must be a non-empty string without ':'")
        if (self.command is None) == (self.url is None):
            raise MCPConfigError(
                f"{where}: give exactly one of command (a stdio server) and url (a streamable "
                "HTTP server)"
            )
        if self.url is not None and not re.match(r"^https?://", self.url):
            raise MCPConfigError(f"{where}: url must start with http:// or https://")
        object.__setattr__(self, "args", as_strings(self.args, f"{where}: args"))
        object.__setattr__(self, "pass_env", as_strings(self.pass_env, f"{where}: pass_env"))
        object.__setattr__(self, "env", as_string_table(self.env, f"{where}: env"))
        object.__setattr__(self, "headers", as_string_table(self.headers, f"{where}: headers"))
        if self.risk is not None:
            object.__setattr__(self, "risk", as_risk(self.risk, f"{where}: risk"))
        if self.prefix is not None and not (
            isinstance(self.prefix, str) and _PREFIX.match(self.prefix)
        ):
            raise MCPConfigError(
                f"{where}: prefix must start with a letter and hold only letters, digits, '_' "
                "and '-' (at most 32 characters)"
            )
        for key in ("timeout", "startup_timeout"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise MCPConfigError(f"{where}: {key} must be a positive number of seconds")
            object.__setattr__(self, key, float(value))
        if isinstance(self.max_restarts, bool) or not isinstance(self.max_restarts, int):
            raise MCPConfigError(f"{where}: max_restarts must be an integer")
        if self.max_restarts < 0:
            raise MCPConfigError(f"{where}: max_restarts must not be negative")
        for key in ("trust_annotations", "shadow", "disabled", "pin"):
            if not isinstance(getattr(self, key), bool):
                raise MCPConfigError(f"{where}: {key} must be true or false")
        if self.start not in ("lazy", "eager"):
            raise MCPConfigError(f'{where}: start must be "lazy" or "eager"')
        if not isinstance(self.protocol, str) or not (
            self.protocol in ("auto", "legacy") or _VERSION.match(self.protocol)
        ):
            raise MCPConfigError(
                f'{where}: protocol must be "auto", "legacy", or a protocol version such as '
                '"2026-07-28"'
            )
        if not isinstance(self.new_tools, str) or self.new_tools not in _NEW_TOOLS:
            raise MCPConfigError(f'{where}: new_tools must be "allow" or "quarantine"')
        if not isinstance(self.sessions, str) or self.sessions not in SESSION_MODES:
            raise MCPConfigError(f'{where}: sessions must be "shared" or "conversation"')
        if self.risk_policy is not None:
            object.__setattr__(self, "risk_policy", as_risk_policy(self.risk_policy, where))
        object.__setattr__(self, "thinkers", as_exposure(self.thinkers, where))
        object.__setattr__(self, "tools", _tool_settings(self.tools, where))
        object.__setattr__(self, "sampling", SamplingSettings.from_value(self.sampling, where))
        if self.project_dir is not None and not isinstance(self.project_dir, str):
            raise MCPConfigError(f"{where}: project_dir must be a path, as a string")
        if self.pin_store is not None:
            if not isinstance(self.pin_store, str) or not self.pin_store:
                raise MCPConfigError(f"{where}: pin_store must be a file path, as a string")
            object.__setattr__(self, "pin_store", as_root(self.pin_store, self.project_dir))
        if self.roots is not None:
            roots = as_strings(self.roots, f"{where}: roots")
            object.__setattr__(
                self, "roots", tuple(as_root(path, self.project_dir) for path in roots)
            )

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """``"stdio"`` for a command, ``"http"`` for a URL."""
        return "stdio" if self.command is not None else "http"

    def tool_name(self, tool: str) -> str:
        """The name the model calls the server's tool ``tool`` by."""
        return f"{self.prefix}_{tool}" if self.prefix else tool

    def describe(self) -> str:
        """The command line (or the URL) as shown in messages."""
        if self.command is None:
            return str(self.url)
        import shlex

        return shlex.join([self.command, *self.args])

    def environment(self) -> dict[str, str]:
        """What is added to the SDK's minimal environment: passed-through variables, ``env``."""
        passed = {
            key: value
            for key, value in os.environ.items()
            if any(fnmatchcase(key, pattern) for pattern in self.pass_env)
        }
        return passed | dict(self.env)

    def root_paths(self) -> tuple[Path, ...]:
        """The folders ``roots/list`` answers with: the configured roots, else the project's.

        The project folder is the folder of the configuration file that declared the server,
        or the working directory for a server configured in code.
        """
        if self.roots is not None:
            return tuple(Path(path) for path in self.roots)
        return (Path(self.project_dir).resolve() if self.project_dir else Path.cwd(),)

    def root_uris(self) -> tuple[str, ...]:
        """`root_paths` as ``file://`` URIs."""
        return tuple(path.resolve().as_uri() for path in self.root_paths())

    def selects(self, thinker_class: type[Any]) -> bool:
        """Whether ``thinker_class`` is one of the listed thinker classes."""
        if isinstance(self.thinkers, str):
            return False
        dotted = f"{thinker_class.__module__}:{thinker_class.__qualname__}"
        return any(
            entry is thinker_class
            or (isinstance(entry, str) and entry.replace(":", ".") == dotted.replace(":", "."))
            for entry in self.thinkers
        )


def _tool_settings(value: object, where: str) -> dict[str, MCPToolSettings]:
    if not isinstance(value, Mapping) or not all(
        isinstance(item, MCPToolSettings) for item in value.values()
    ):
        raise MCPConfigError(f"{where}: tools must map tool names to MCPToolSettings")
    return dict(value)
