"""The checks of an MCP server's configured values, each failing with an `MCPConfigError`.

The message of each names where the value was read (``where``) and what it must be.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from nucleo_core.mcp.errors import MCPConfigError
from nucleo_core.tools.risk import Risk

__all__ = [
    "RISK_DECISIONS",
    "RISK_LEVELS",
    "Exposure",
    "as_exposure",
    "as_risk",
    "as_risk_policy",
    "as_root",
    "as_string_table",
    "as_strings",
]

#: Which thinkers see a server's tools: every thinker (``"all"``, as system-wide tools), only
#: thinkers whose selector names the server (``"selector"``), or the listed thinker classes
#: (``"package.module:ClassName"`` strings, or the classes themselves), whose catalogs hold them.
Exposure: TypeAlias = 'Literal["all", "selector"] | tuple[str | type[Any], ...]'

#: The declared risk levels a ``risk_policy`` maps (`Risk`'s values, spelled out here).
RISK_LEVELS = ("low", "medium", "high")
#: The permission decisions a ``risk_policy`` maps a level to, as the permission guard reads them.
RISK_DECISIONS = ("auto", "notify", "confirm", "deny")


def as_root(path: str, base: str | None) -> str:
    """A configured root as an absolute path (``~`` expanded, relative to ``base``)."""
    expanded = Path(path).expanduser()
    if not expanded.is_absolute():
        expanded = (Path(base) if base is not None else Path.cwd()) / expanded
    return str(expanded.resolve())


def as_strings(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise MCPConfigError(f"{where} must be a list of strings")
    items = tuple(value)
    if not all(isinstance(item, str) for item in items):
        raise MCPConfigError(f"{where} must be a list of strings")
    return items


def as_string_table(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(key, str) and isinstance(item, str) for key, item in value.items()
    ):
        raise MCPConfigError(f"{where} must be a table of strings")
    return dict(value)


def as_risk(value: object, where: str) -> Risk:
    try:
        if isinstance(value, str):
            return Risk(value)
    except ValueError:
        pass
    raise MCPConfigError(f"{where} must be one of low, medium, high")


def as_risk_policy(value: object, where: str) -> Mapping[str, str]:
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


def as_exposure(value: object, where: str) -> Exposure:
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
