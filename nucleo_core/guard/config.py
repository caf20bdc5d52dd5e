"""`GuardConfig`: the permission policy as configured, and where it is read from.

The policy is declared in ``[tool.nucleo.guard]`` of ``pyproject.toml`` or in ``[guard]`` of
``nucleo.toml``:

.. code-block:: toml

    [tool.nucleo.guard]
    default = { low = "auto", medium = "notify", high = "confirm" }   # levels left out keep these
    hook_timeout = 5.0                                                # seconds, all hooks together

    [[tool.nucleo.guard.rules]]
    name = "no-deletes"                     # optional: how the record names it
    tool = "delete_*"                       # a name or glob; optional
    source = "mcp:files:*"                  # a source id glob; optional
    thinker = "myapp.agents:Reviewer"       # a class (and its subclasses), globs allowed; optional
    risk = "high"                           # optional
    decision = "deny"                       # required: auto, notify, confirm or deny
    reason = "deleting is done by a person" # optional: what the model reads when it denies

The ``audit`` and ``approvals`` sub-tables belong to the audit record and the approvals; this
module keeps them, unread, in `GuardConfig.tables`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nucleo_core._project_table import nearest_config, read_table
from nucleo_core._table_keys import reject_unknown_keys
from nucleo_core.guard._time_limit import DEFAULT_HOOK_TIMEOUT
from nucleo_core.guard.errors import GuardConfigError
from nucleo_core.guard.policy import PermissionPolicy
from nucleo_core.guard.rule import RULE_KEYS, PermissionRule
from nucleo_core.plugins.decision import Decision
from nucleo_core.tools.risk import Risk

__all__ = [
    "GUARD_KEYS",
    "GuardConfig",
    "discover_guard_config",
    "guard_config_from_file",
    "guard_config_from_mapping",
]

#: Sub-tables kept for the layers that read them (the audit record, the approvals).
_KEPT_TABLES = ("audit", "approvals")

#: The keys the guard table may hold.
GUARD_KEYS = ("default", "rules", "hook_timeout", *_KEPT_TABLES)

_DECISIONS = ", ".join(f'"{decision.value}"' for decision in Decision)
_RISKS = ", ".join(f'"{risk.value}"' for risk in Risk)


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardConfig:
    """The guard's configuration: the policy, the hooks' time limit, and the rest, unread.

    Attributes:
        policy: The permission policy (its rules and default map).
        hook_timeout: Seconds all of one call's permission hooks may take together.
        origin: Where it was read from (the file and table), or that nothing was found.
        project: The folder the configuration was found in, or ``None``.
        tables: The ``audit`` and ``approvals`` sub-tables, as written (read elsewhere).
    """

    policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    hook_timeout: float = DEFAULT_HOOK_TIMEOUT
    origin: str = "defaults (no guard configuration found)"
    project: Path | None = None
    tables: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))


def guard_config_from_mapping(
    table: Mapping[str, Any], *, origin: str = "configuration", project: Path | None = None
) -> GuardConfig:
    """Build the configuration from a guard table (``[tool.nucleo.guard]`` or ``[guard]``).

    Args:
        table: The table's contents.
        origin: Named in every message and in the policy's ``origin``.
        project: The folder the table was found in, kept on the result.

    Raises:
        GuardConfigError: A key is unknown or a value malformed; the message names ``origin``,
            the key and the allowed values.
    """
    reject_unknown_keys(table, GUARD_KEYS, origin, GuardConfigError)
    timeout = table.get("hook_timeout", DEFAULT_HOOK_TIMEOUT)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise GuardConfigError(f"{origin}: hook_timeout must be a positive number of seconds")
    rules_table = table.get("rules", [])
    if not isinstance(rules_table, list):
        raise GuardConfigError(
            f"{origin}: rules must be an array of tables ([[...guard.rules]] entries)"
        )
    rules = [_rule(entry, f"{origin}: rules[{index}]") for index, entry in enumerate(rules_table)]
    tables: dict[str, Mapping[str, Any]] = {}
    for key in _KEPT_TABLES:
        if key in table:
            if not isinstance(table[key], Mapping):
                raise GuardConfigError(f"{origin}: {key} must be a table")
            tables[key] = MappingProxyType(dict(table[key]))
    policy = PermissionPolicy(rules, default=table.get("default"), origin=origin)
    return GuardConfig(
        policy=policy,
        hook_timeout=float(timeout),
        origin=origin,
        project=project,
        tables=MappingProxyType(tables),
    )


def guard_config_from_file(path: str | os.PathLike[str]) -> GuardConfig | None:
    """Read the guard table of one ``pyproject.toml`` or ``nucleo.toml``; ``None`` if it has none.

    Raises:
        GuardConfigError: The file is not valid TOML or the table is malformed.
    """
    table, origin = read_table(path, "guard", GuardConfigError)
    if table is None:
        return None
    return guard_config_from_mapping(table, origin=origin, project=Path(path).parent)


def discover_guard_config(start: str | os.PathLike[str] | None = None) -> GuardConfig:
    """The guard configuration of the project nearest to ``start`` (the working directory).

    Going up from ``start``, in each folder a ``nucleo.toml`` wins (without a ``[guard]``
    table it means the defaults); else a ``pyproject.toml`` counts when it has
    ``[tool.nucleo.guard]``. Nothing found gives the defaults.

    Raises:
        GuardConfigError: The configuration found is malformed.
    """
    found, file = nearest_config(start, guard_config_from_file)
    if found is not None:
        return found
    if file is not None:  # a nucleo.toml without a [guard] table
        return GuardConfig(origin=f"defaults ({file} has no [guard] table)", project=file.parent)
    return GuardConfig()


def _rule(entry: object, where: str) -> PermissionRule:
    if not isinstance(entry, Mapping):
        raise GuardConfigError(f"{where} must be a table")
    reject_unknown_keys(entry, RULE_KEYS, where, GuardConfigError)
    for key in RULE_KEYS:
        value = entry.get(key)
        if value is not None and not isinstance(value, str):
            raise GuardConfigError(f"{where}: {key} must be a string")
        if key != "reason" and value == "":
            raise GuardConfigError(f"{where}: {key} must not be empty; leave it out instead")
    decision = entry.get("decision")
    if decision is None:
        raise GuardConfigError(f"{where}: decision is required; one of {_DECISIONS}")
    if decision not in set(Decision):
        raise GuardConfigError(f"{where}: decision must be one of {_DECISIONS}")
    risk = entry.get("risk")
    if risk is not None and risk not in set(Risk):
        raise GuardConfigError(f"{where}: risk must be one of {_RISKS}")
    return PermissionRule(
        decision=Decision(decision),
        thinker=entry.get("thinker"),
        tool=entry.get("tool"),
        source=entry.get("source"),
        risk=None if risk is None else Risk(risk),
        reason=entry.get("reason") or "",
        name=entry.get("name"),
    )
