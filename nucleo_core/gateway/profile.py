"""`GatewayProfile`: what one ``nucleo mcp serve --profile NAME`` serves, and where it is read.

A profile is declared in ``[tool.nucleo.gateway.profiles.NAME]`` of ``pyproject.toml`` or in
``[gateway.profiles.NAME]`` of ``nucleo.toml``:

.. code-block:: toml

    [tool.nucleo.gateway.profiles.ops]
    thinker = "myapp.agents:OpsAgent"   # required: whose palette and catalog the client sees
    servers = ["time", "files"]         # the configured MCP servers run behind it (default all)
    offer = "search"                    # auto, enumerate or search (default: the class's own)
    read_only = false                   # bind the client read-only (default false)
    description = "Operations tools"    # told to the client as the server's instructions

A profile may also be named by its thinker class alone (``--profile myapp.agents:OpsAgent``):
it then serves that class with every configured server and the class's own offer.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from nucleo_core._project_table import NUCLEO_TOML, nearest_config, table_keys
from nucleo_core.gateway.errors import GatewayConfigError

__all__ = ["PROFILE_KEYS", "GatewayOffer", "GatewayProfile", "discover_profile"]

#: How a profile's catalog is offered: as the thinker's class says (``None``), or one of these.
GatewayOffer = Literal["auto", "enumerate", "search"]

#: The keys a profile table may hold.
PROFILE_KEYS = ("thinker", "servers", "offer", "read_only", "description")

_OFFERS = ("auto", "enumerate", "search")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True, slots=True, kw_only=True)
class GatewayProfile:
    """One profile the gateway serves.

    Attributes:
        name: The profile's name (what ``--profile`` names; the class path for a class alone).
        thinker: The thinker class's import path (``package.module:ClassName``).
        servers: The ids of the configured MCP servers run behind the gateway; ``None`` for
            every configured one.
        offer: How the catalog is offered, when the thinker class declares no ``tool_offer``
            of its own; ``None`` keeps the hub's default (``auto``).
        read_only: Bind the client read-only: only tools declared read-only are listed and run.
        description: Told to the client as the server's instructions.
        origin: Where the profile was read from, for messages.
    """

    name: str
    thinker: str
    servers: tuple[str, ...] | None = None
    offer: GatewayOffer | None = None
    read_only: bool = False
    description: str = ""
    origin: str = "--profile"

    @classmethod
    def for_class(cls, path: str) -> GatewayProfile:
        """The profile that serves the thinker class ``path`` with every configured server."""
        return cls(name=path, thinker=path, origin="--profile (a thinker class)")

    @classmethod
    def from_mapping(cls, name: str, table: Mapping[str, Any], *, origin: str) -> GatewayProfile:
        """The profile ``name`` as its table declares it.

        Raises:
            GatewayConfigError: A key is unknown, missing or of the wrong type (the message
                names the key and what it must be).
        """
        where = f"{origin}: gateway profile '{name}'"
        if not isinstance(table, Mapping):
            raise GatewayConfigError(f"{where}: must be a table")
        unknown = sorted(set(table) - set(PROFILE_KEYS))
        if unknown:
            raise GatewayConfigError(
                f"{where}: unknown key {', '.join(unknown)}; a profile holds "
                f"{', '.join(PROFILE_KEYS)}"
            )
        thinker = table.get("thinker")
        if not isinstance(thinker, str) or not thinker.strip():
            raise GatewayConfigError(
                f'{where}: thinker is required, the class\'s import path ("package.module:Class")'
            )
        servers = table.get("servers")
        if servers is not None and (
            not isinstance(servers, list) or not all(isinstance(s, str) and s for s in servers)
        ):
            raise GatewayConfigError(f"{where}: servers must be a list of MCP server ids")
        offer = table.get("offer")
        if offer is not None and offer not in _OFFERS:
            raise GatewayConfigError(f"{where}: offer must be one of {', '.join(_OFFERS)}")
        read_only = table.get("read_only", False)
        if not isinstance(read_only, bool):
            raise GatewayConfigError(f"{where}: read_only must be true or false")
        description = table.get("description", "")
        if not isinstance(description, str):
            raise GatewayConfigError(f"{where}: description must be a string")
        return cls(
            name=name,
            thinker=thinker.strip(),
            servers=None if servers is None else tuple(servers),
            offer=offer,
            read_only=read_only,
            description=description,
            origin=origin,
        )


def discover_profile(name: str, start: str | os.PathLike[str] | None = None) -> GatewayProfile:
    """The profile ``name``: a named profile of the project, else a thinker class's path.

    Going up from ``start`` (the working directory), the first ``nucleo.toml`` (its
    ``[gateway.profiles]``) or ``pyproject.toml`` with ``[tool.nucleo.gateway.profiles]``
    holds the named profiles. A name none of them declares, written as a class path
    (``package.module:Class`` or ``package.module.Class``), is served as that class.

    Raises:
        GatewayConfigError: The profile is not declared and is no class path (the message
            lists the declared ones), or its table is malformed.
    """
    declared, origin = _declared_profiles(Path(start) if start is not None else Path.cwd())
    table = declared.get(name)
    if table is not None:
        return GatewayProfile.from_mapping(name, table, origin=origin)
    if ":" in name or ("." in name and not name.startswith(".")):
        return GatewayProfile.for_class(name)
    known = ", ".join(sorted(declared)) or "none are declared"
    raise GatewayConfigError(
        f"no gateway profile named '{name}' (declared: {known}). Declare it in "
        f"[tool.nucleo.gateway.profiles.{name if _NAME.match(name) else 'NAME'}] of "
        'pyproject.toml with thinker = "package.module:Class", or pass a thinker class\'s '
        "import path as --profile"
    )


def _declared_profiles(directory: Path) -> tuple[Mapping[str, Any], str]:
    """The profiles table of the project nearest to ``directory``, and where it was read."""

    def read(file: Path) -> tuple[Mapping[str, Any], str] | None:
        found = _profiles_in(file, table_keys(file, ("gateway", "profiles")))
        # A nucleo.toml is the project's file even without profiles; a pyproject.toml only
        # when it declares some.
        return found if found[0] or file.name == NUCLEO_TOML else None

    found, _file = nearest_config(directory, read)
    return found if found is not None else ({}, "no gateway profiles configured")


def _profiles_in(path: Path, keys: tuple[str, ...]) -> tuple[Mapping[str, Any], str]:
    origin = f"{path} [{'.'.join(keys)}]"
    try:
        data: Any = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GatewayConfigError(f"{path}: cannot be read: {exc}") from exc
    for key in keys:
        data = data.get(key, {}) if isinstance(data, Mapping) else {}
    if not isinstance(data, Mapping):
        raise GatewayConfigError(f"{origin}: must be a table of profiles")
    return data, origin
