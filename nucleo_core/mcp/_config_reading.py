"""Reading MCP server configurations: ``pyproject.toml``, ``nucleo.toml``, ``.mcp.json``.

See `nucleo_core.mcp.config` for what each file declares and how they combine.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nucleo_core._project_table import read_table
from nucleo_core._table_keys import reject_unknown_keys
from nucleo_core.mcp._config_values import as_risk, as_strings
from nucleo_core.mcp._server_config import MCPServerConfig, MCPToolSettings
from nucleo_core.mcp.errors import MCPConfigError

__all__ = ["discover_servers", "servers_from_file", "servers_from_mapping", "servers_from_mcp_json"]

logger = logging.getLogger("nucleo.mcp")

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
_TOOL_KEYS = ("risk", "read_only")
_TRANSPORT_KEYS = ("command", "args", "env", "cwd", "url", "headers")
_EXPANSION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


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
    reject_unknown_keys(table, _TABLE_KEYS, origin, MCPConfigError, inside="the mcp table")
    shared_pass_env = as_strings(table.get("pass_env", ()), f"{origin}: mcp.pass_env")
    shared_roots = table.get("roots")
    if shared_roots is not None:
        shared_roots = as_strings(shared_roots, f"{origin}: mcp.roots")
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
        reject_unknown_keys(entry, _SERVER_KEYS, f"{origin}: mcp.servers.{name}", MCPConfigError)
        base = merged.get(name, {})
        if "command" in entry or "url" in entry:  # a transport of its own replaces the other's
            base = {key: value for key, value in base.items() if key not in _TRANSPORT_KEYS}
        merged[name] = base | dict(entry)
    configs = []
    for name, entry in merged.items():
        entry = dict(entry)
        entry["pass_env"] = (*shared_pass_env, *as_strings(entry.get("pass_env", ()), origin))
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


def _toml_table(file: Path) -> tuple[dict[str, Any], str]:
    """The ``mcp`` table of a ``nucleo.toml`` (``tool.nucleo.mcp`` of a ``pyproject.toml``)."""
    table, origin = read_table(file, "mcp", MCPConfigError)
    return table or {}, origin


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
            risk=None if risk is None else as_risk(risk, f"{where}.tools.{tool}: risk"),
            read_only=read_only,
        )
    values["tools"] = settings
    try:
        return MCPServerConfig(name=str(name), origin=origin, **values)
    except TypeError as exc:  # a wrongly typed value the dataclass could not take
        raise MCPConfigError(f"{where}: {exc}") from exc


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
