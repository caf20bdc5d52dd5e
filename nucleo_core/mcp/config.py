"""`MCPServerConfig`: one MCP server as configured, and where configurations are read from.

Servers are declared in ``[tool.nucleo.mcp.servers.<id>]`` of ``pyproject.toml``, in
``[mcp.servers.<id>]`` of ``nucleo.toml``, or in a project's ``.mcp.json`` in the
``mcpServers`` shape other MCP clients use. A nucleo table for an id that ``.mcp.json`` also
declares adds to it key by key (a ``risk`` or a ``prefix`` for a server another client
configured), so an existing ``.mcp.json`` works unchanged.

The SDK starts a stdio server with a minimal environment (``HOME``, ``LOGNAME``, ``PATH``,
``SHELL``, ``TERM``, ``USER``): ``env`` adds variables, and ``pass_env`` names variables (or
globs) of the parent's environment to pass through, such as ``SSL_CERT_FILE``,
``REQUESTS_CA_BUNDLE``, ``HTTPS_PROXY`` or ``NO_PROXY``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from nucleo_core.mcp.errors import MCPConfigError
from nucleo_core.mcp.sampling import SamplingSettings
from nucleo_core.tools.risk import Risk

__all__ = [
    "RISK_DECISIONS",
    "RISK_LEVELS",
    "SESSION_MODES",
    "Exposure",
    "MCPServerConfig",
    "MCPToolSettings",
    "SessionMode",
    "discover_servers",
    "servers_from_file",
    "servers_from_mapping",
    "servers_from_mcp_json",
]

logger = logging.getLogger("nucleo.mcp")

#: Which thinkers see a server's tools: every thinker (``"all"``, as system-wide tools), only
#: thinkers whose selector names the server (``"selector"``), or the listed thinker classes
#: (``"package.module:ClassName"`` strings, or the classes themselves), whose catalogs hold them.
Exposure: TypeAlias = 'Literal["all", "selector"] | tuple[str | type[Any], ...]'

#: How a server's sessions are shared: one session for every conversation (``"shared"``), or a
#: session of its own for each conversation, closed when the conversation ends
#: (``"conversation"``: a process of its own for a stdio server, an MCP session of its own over
#: HTTP).
SessionMode: TypeAlias = Literal["shared", "conversation"]
SESSION_MODES: tuple[SessionMode, ...] = ("shared", "conversation")
#: The declared risk levels a ``risk_policy`` maps (`Risk`'s values, spelled out here).
RISK_LEVELS = ("low", "medium", "high")
#: The permission decisions a ``risk_policy`` maps a level to, as the permission guard reads them.
RISK_DECISIONS = ("auto", "notify", "confirm", "deny")

_SERVER_KEYS = (
    "command",
    "args",
    "env",
    "cwd",
    "pass_env",
    "url",
    "headers",
    "risk",
    "tools",
    "trust_annotations",
    "prefix",
    "timeout",
    "startup_timeout",
    "thinkers",
    "start",
    "shadow",
    "max_restarts",
    "protocol",
    "sessions",
    "risk_policy",
    "disabled",
    "roots",
    "sampling",
    "pin",
    "new_tools",
    "pin_store",
)
_TABLE_KEYS = ("servers", "pass_env", "mcp_json", "roots", "pin_store")
#: What a ``new_tools`` setting may say (`nucleo_core.mcp.pins.NewTools`).
_NEW_TOOLS = ("allow", "quarantine")
_TOOL_KEYS = ("risk", "read_only")
_TRANSPORT_KEYS = ("command", "args", "env", "cwd", "url", "headers")
_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
_EXPANSION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


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
        object.__setattr__(self, "args", _strings(self.args, f"{where}: args"))
        object.__setattr__(self, "pass_env", _strings(self.pass_env, f"{where}: pass_env"))
        object.__setattr__(self, "env", _string_table(self.env, f"{where}: env"))
        object.__setattr__(self, "headers", _string_table(self.headers, f"{where}: headers"))
        if self.risk is not None:
            object.__setattr__(self, "risk", _risk(self.risk, f"{where}: risk"))
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
            object.__setattr__(self, "risk_policy", _risk_policy(self.risk_policy, where))
        object.__setattr__(self, "thinkers", _exposure(self.thinkers, where))
        object.__setattr__(self, "tools", _tool_settings(self.tools, where))
        object.__setattr__(self, "sampling", SamplingSettings.from_value(self.sampling, where))
        if self.project_dir is not None and not isinstance(self.project_dir, str):
            raise MCPConfigError(f"{where}: project_dir must be a path, as a string")
        if self.pin_store is not None:
            if not isinstance(self.pin_store, str) or not self.pin_store:
                raise MCPConfigError(f"{where}: pin_store must be a file path, as a string")
            object.__setattr__(self, "pin_store", _root(self.pin_store, self.project_dir))
        if self.roots is not None:
            roots = _strings(self.roots, f"{where}: roots")
            object.__setattr__(
                self, "roots", tuple(_root(path, self.project_dir) for path in roots)
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


# -- reading ------------------------------------------------------------------------------------


def servers_from_mapping(
    table: Mapping[str, Any],
    *,
    origin: str = "configuration",
    base_dir: str | os.PathLike[str] | None = None,
    inherited: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[MCPServerConfig]:
    """Build server configurations from an ``mcp`` table (``servers``, ``pass_env``, ``mcp_json``).

    Args:
        table: The ``[tool.nucleo.mcp]`` (or ``nucleo.toml`` ``[mcp]``) table.
        origin: Named in every message.
        base_dir: Relative ``cwd`` values are resolved against it.
        inherited: Server tables read elsewhere (``.mcp.json``) that this table's servers of
            the same id add to; the others are kept as they are.

    Raises:
        MCPConfigError: The table is malformed; the message names ``origin`` and the key.
    """
    unknown = set(table) - set(_TABLE_KEYS)
    if unknown:
        raise MCPConfigError(
            f"{origin}: unknown key(s) {', '.join(sorted(unknown))} in the mcp table; allowed: "
            + ", ".join(_TABLE_KEYS)
        )
    shared_pass_env = _strings(table.get("pass_env", ()), f"{origin}: mcp.pass_env")
    shared_roots = table.get("roots")
    if shared_roots is not None:
        shared_roots = _strings(shared_roots, f"{origin}: mcp.roots")
    shared_pin_store = table.get("pin_store")
    if shared_pin_store is not None and (
        not isinstance(shared_pin_store, str) or not shared_pin_store
    ):
        raise MCPConfigError(f"{origin}: mcp.pin_store must be a file path, as a string")
    servers = table.get("servers", {})
    if not isinstance(servers, Mapping):
        raise MCPConfigError(f"{origin}: mcp.servers must be a table of server tables")
    merged: dict[str, dict[str, Any]] = {
        key: dict(value) for key, value in (inherited or {}).items()
    }
    for name, entry in servers.items():
        if not isinstance(entry, Mapping):
            raise MCPConfigError(f"{origin}: mcp.servers.{name} must be a table")
        unknown = set(entry) - set(_SERVER_KEYS)
        if unknown:
            raise MCPConfigError(
                f"{origin}: mcp.servers.{name}: unknown key(s) {', '.join(sorted(unknown))}; "
                "allowed: " + ", ".join(_SERVER_KEYS)
            )
        base = merged.get(name, {})
        if "command" in entry or "url" in entry:  # a transport of its own replaces the other's
            base = {key: value for key, value in base.items() if key not in _TRANSPORT_KEYS}
        merged[name] = base | dict(entry)
    configs = []
    for name, entry in merged.items():
        entry = dict(entry)
        entry["pass_env"] = (*shared_pass_env, *_strings(entry.get("pass_env", ()), origin))
        if shared_roots is not None and "roots" not in entry:
            entry["roots"] = shared_roots
        if shared_pin_store is not None and "pin_store" not in entry:
            entry["pin_store"] = shared_pin_store
        configs.append(_server(name, entry, origin=origin, base_dir=base_dir))
    return configs


def servers_from_mcp_json(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """Read a ``.mcp.json`` file's ``mcpServers`` as nucleo server tables.

    ``${VAR}`` and ``${VAR:-default}`` in strings are expanded from the environment, as other
    MCP clients do. ``"disabled": true`` is kept (the server is not started); keys other
    clients use and nucleo does not (``alwaysAllow``) are ignored; an entry of a transport
    nucleo does not speak (``sse``) is skipped with a warning.

    Raises:
        MCPConfigError: The file is not JSON or has no ``mcpServers`` object.
    """
    file = Path(path)
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise MCPConfigError(f"{file}: not valid JSON ({exc})") from exc
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        raise MCPConfigError(f'{file}: expected an object with an "mcpServers" object')
    tables: dict[str, dict[str, Any]] = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise MCPConfigError(f"{file}: mcpServers.{name} must be an object")
        kind = entry.get("type", "stdio" if "command" in entry else "http")
        if kind not in ("stdio", "http", "streamable-http", "streamable_http"):
            logger.warning(
                "%s: MCP server %r skipped: transport %r is not supported (use stdio or http)",
                file,
                name,
                kind,
            )
            continue
        table = {key: _expand(entry[key]) for key in _TRANSPORT_KEYS if key in entry}
        if "disabled" in entry:
            if not isinstance(entry["disabled"], bool):
                raise MCPConfigError(f"{file}: mcpServers.{name}.disabled must be true or false")
            table["disabled"] = entry["disabled"]
        tables[str(name)] = table
    return tables


def servers_from_file(path: str | os.PathLike[str]) -> list[MCPServerConfig]:
    """Read the servers of one ``nucleo.toml``, ``pyproject.toml`` or ``.mcp.json`` file.

    Raises:
        MCPConfigError: The file is malformed; the message names it and the key.
    """
    file = Path(path)
    if file.suffix == ".json":
        tables = servers_from_mcp_json(file)
        return servers_from_mapping({"servers": tables}, origin=str(file), base_dir=file.parent)
    table, origin = _toml_table(file)
    return servers_from_mapping(table, origin=origin, base_dir=file.parent)


def discover_servers(start: str | os.PathLike[str] | None = None) -> list[MCPServerConfig]:
    """The servers configured for the project nearest to ``start`` (the working directory).

    Going up from ``start``, the project folder is the first that holds a ``nucleo.toml``, a
    ``pyproject.toml`` with a ``[tool.nucleo.mcp]`` table, or a ``.mcp.json``. Its
    ``.mcp.json`` is read first (unless the nucleo table says ``mcp_json = false``), then the
    nucleo table (``nucleo.toml`` wins over ``pyproject.toml``) adds to it. Nothing found gives
    no servers.

    Raises:
        MCPConfigError: A file is malformed.
    """
    directory = Path(start) if start is not None else Path.cwd()
    for folder in (directory, *directory.resolve().parents):
        nucleo_toml = folder / "nucleo.toml"
        pyproject = folder / "pyproject.toml"
        mcp_json = folder / ".mcp.json"
        table: Mapping[str, Any] = {}
        origin = ""
        if nucleo_toml.is_file():
            table, origin = _toml_table(nucleo_toml)
            found = True
        elif pyproject.is_file():
            table, origin = _toml_table(pyproject)
            found = bool(table)
        else:
            found = False
        if not found and not mcp_json.is_file():
            continue
        use_json = table.get("mcp_json", True)
        if not isinstance(use_json, bool):
            raise MCPConfigError(f"{origin}: mcp.mcp_json must be true or false")
        inherited = servers_from_mcp_json(mcp_json) if use_json and mcp_json.is_file() else {}
        rest = {key: value for key, value in table.items() if key != "mcp_json"}
        return servers_from_mapping(
            rest,
            origin=origin or str(mcp_json),
            base_dir=folder,
            inherited=inherited,
        )
    return []


# -- internals ----------------------------------------------------------------------------------


def _toml_table(file: Path) -> tuple[dict[str, Any], str]:
    try:
        document = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise MCPConfigError(f"{file}: not valid TOML ({exc})") from exc
    keys = ("tool", "nucleo", "mcp") if file.name == "pyproject.toml" else ("mcp",)
    table: dict[str, Any] = document
    for depth, key in enumerate(keys):
        found = table.get(key, {})
        if not isinstance(found, dict):
            raise MCPConfigError(f"{file}: {'.'.join(keys[: depth + 1])} must be a table")
        table = found
    return table, f"{file} [{'.'.join(keys)}]"


def _server(
    name: str, entry: Mapping[str, Any], *, origin: str, base_dir: str | os.PathLike[str] | None
) -> MCPServerConfig:
    where = f"{origin}: mcp.servers.{name}"
    values = dict(entry)
    cwd = values.get("cwd")
    if cwd is not None:
        if not isinstance(cwd, str):
            raise MCPConfigError(f"{where}: cwd must be a string")
        if base_dir is not None and not Path(cwd).is_absolute():
            values["cwd"] = str(Path(base_dir) / cwd)
    if isinstance(values.get("thinkers"), list):
        values["thinkers"] = tuple(values["thinkers"])
    if isinstance(values.get("roots"), list):
        values["roots"] = tuple(values["roots"])
    if base_dir is not None:
        values["project_dir"] = str(Path(base_dir).resolve())
    tools = values.get("tools", {})
    if not isinstance(tools, Mapping):
        raise MCPConfigError(f"{where}: tools must be a table of tool tables")
    settings: dict[str, MCPToolSettings] = {}
    for tool, declared in tools.items():
        if not isinstance(declared, Mapping) or set(declared) - set(_TOOL_KEYS):
            raise MCPConfigError(
                f"{where}.tools.{tool}: must be a table with only " + " and ".join(_TOOL_KEYS)
            )
        read_only = declared.get("read_only")
        if read_only is not None and not isinstance(read_only, bool):
            raise MCPConfigError(f"{where}.tools.{tool}: read_only must be true or false")
        risk = declared.get("risk")
        settings[str(tool)] = MCPToolSettings(
            risk=None if risk is None else _risk(risk, f"{where}.tools.{tool}: risk"),
            read_only=read_only,
        )
    values["tools"] = settings
    try:
        return MCPServerConfig(name=str(name), origin=origin, **values)
    except TypeError as exc:  # a wrongly typed value the dataclass could not take
        raise MCPConfigError(f"{where}: {exc}") from exc


def _root(path: str, base: str | None) -> str:
    """A configured root as an absolute path (``~`` expanded, relative to ``base``)."""
    expanded = Path(path).expanduser()
    if not expanded.is_absolute():
        expanded = (Path(base) if base is not None else Path.cwd()) / expanded
    return str(expanded.resolve())


def _strings(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise MCPConfigError(f"{where} must be a list of strings")
    items = tuple(value)
    if not all(isinstance(item, str) for item in items):
        raise MCPConfigError(f"{where} must be a list of strings")
    return items


def _string_table(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(key, str) and isinstance(item, str) for key, item in value.items()
    ):
        raise MCPConfigError(f"{where} must be a table of strings")
    return dict(value)


def _risk(value: object, where: str) -> Risk:
    try:
        if isinstance(value, str):
            return Risk(value)
    except ValueError:
        pass
    raise MCPConfigError(f"{where} must be one of low, medium, high")


def _risk_policy(value: object, where: str) -> Mapping[str, str]:
    """A ``risk_policy`` table checked as literal strings, as a read-only mapping.

    Checked here, not by the permission guard, so that a typo fails when the configuration is
    read; the decisions stay strings, the MCP layer never imports the guard.
    """
    allowed = (
        f"risk_policy must be a table mapping risk levels ({', '.join(RISK_LEVELS)}) to "
        f"decisions ({', '.join(RISK_DECISIONS)})"
    )
    if not isinstance(value, Mapping):
        raise MCPConfigError(f"{where}: {allowed}")
    policy: dict[str, str] = {}
    for level, decision in value.items():
        # A Risk is a str enum: its value is the level's spelling.
        key = level.value if isinstance(level, Risk) else level
        if not isinstance(key, str) or key not in RISK_LEVELS:
            named = f"risk_policy.{key}" if isinstance(key, str) else "a risk_policy key"
            raise MCPConfigError(f"{where}: {named} is not a risk level; {allowed}")
        if not isinstance(decision, str) or decision not in RISK_DECISIONS:
            raise MCPConfigError(
                f"{where}: risk_policy.{key} must be one of {', '.join(RISK_DECISIONS)}"
            )
        policy[key] = decision
    return MappingProxyType(policy)


def _exposure(value: object, where: str) -> Exposure:
    if value in ("all", "selector"):
        return "all" if value == "all" else "selector"
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise MCPConfigError(
            f'{where}: thinkers must be "all", "selector", or a list of thinker classes '
            '("package.module:ClassName")'
        )
    entries = tuple(value)
    for entry in entries:
        if not (isinstance(entry, type) or (isinstance(entry, str) and ":" in entry)):
            raise MCPConfigError(
                f'{where}: each listed thinker must be a class or a "package.module:ClassName" '
                "string"
            )
    return entries


def _tool_settings(value: object, where: str) -> dict[str, MCPToolSettings]:
    if not isinstance(value, Mapping) or not all(
        isinstance(item, MCPToolSettings) for item in value.values()
    ):
        raise MCPConfigError(f"{where}: tools must map tool names to MCPToolSettings")
    return dict(value)


def _expand(value: Any) -> Any:
    """Expand ``${VAR}`` and ``${VAR:-default}`` in strings, lists and string tables."""
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = os.environ.get(name)
            if found is None:
                if default is None:
                    logger.warning("environment variable %s used by .mcp.json is not set", name)
                    return ""
                return default
            return found

        return _EXPANSION.sub(substitute, value)
    if isinstance(value, list):
        return [_expand(item) for item in value]
    if isinstance(value, dict):
        return {key: _expand(item) for key, item in value.items()}
    return value
