"""`RiskLimit`: the highest declared risk granted, and to which thinkers; read from a file.

The configuration is the ``[tool.nucleo.guard-risk]`` table of a ``pyproject.toml`` or the
``[guard-risk]`` table of a ``nucleo.toml``, found the way nucleo finds its model catalog: from
the working directory upward, in each folder a ``nucleo.toml`` wins, and a ``pyproject.toml``
counts only when it has the table. Nothing found means the defaults.

.. code-block:: toml

    [tool.nucleo.guard-risk]
    max_risk = "medium"              # "low", "medium" or "high"; default "medium"
    thinkers = ["myapp.agents.*"]    # qualified class names or globs; default ["*"]
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from nucleo_core import MisuseError, Risk

__all__ = [
    "CONFIG_KEYS",
    "DEFAULT_MAX_RISK",
    "GuardRiskConfigError",
    "RiskLimit",
    "risk_rank",
]

#: The keys the configuration table may hold.
CONFIG_KEYS = ("max_risk", "thinkers")

#: The limit when nothing is configured: high-risk tools (and tools declaring no risk, which
#: count as high) are refused, everything else granted.
DEFAULT_MAX_RISK = Risk.MEDIUM

_RISKS = tuple(Risk)


def risk_rank(risk: Risk) -> int:
    """``risk``'s place in the order low < medium < high."""
    return _RISKS.index(risk)


class GuardRiskConfigError(MisuseError):
    """The guard-risk configuration is malformed; the message names the file and the key."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RiskLimit:
    """The highest declared risk a guarded thinker may be granted.

    Attributes:
        max_risk: Tools declaring a higher risk are refused (undeclared counts as high).
        thinkers: Qualified class names or globs (``"myapp.agents.*"``) of the thinkers the
            limit applies to; a thinker is guarded when its class or any base class matches.
        origin: Where the limit was read from, for the admission record.
    """

    max_risk: Risk = DEFAULT_MAX_RISK
    thinkers: tuple[str, ...] = ("*",)
    origin: str = "defaults (no guard-risk configuration found)"

    def guards(self, thinker_class: type[Any]) -> bool:
        """Whether the limit applies to thinkers of ``thinker_class``."""
        names = [
            f"{cls.__module__}.{cls.__qualname__}"
            for cls in thinker_class.__mro__
            if cls is not object
        ]
        return any(fnmatchcase(name, pattern) for pattern in self.thinkers for name in names)

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any], *, origin: str) -> RiskLimit:
        """Build a limit from a configuration table.

        Raises:
            GuardRiskConfigError: A key is unknown or a value malformed; the message names
                ``origin`` and the key.
        """
        unknown = sorted(set(table) - set(CONFIG_KEYS))
        if unknown:
            raise GuardRiskConfigError(
                f"{origin}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(CONFIG_KEYS)}"
            )
        max_risk = table.get("max_risk", DEFAULT_MAX_RISK.value)
        allowed = ", ".join(f'"{risk.value}"' for risk in Risk)
        if not isinstance(max_risk, str) or max_risk.strip().lower() not in set(Risk):
            raise GuardRiskConfigError(
                f"{origin}: max_risk must be one of {allowed}; got {max_risk!r}"
            )
        thinkers = table.get("thinkers", ["*"])
        if (
            isinstance(thinkers, str)
            or not isinstance(thinkers, Sequence)
            or not thinkers
            or not all(isinstance(item, str) and item.strip() for item in thinkers)
        ):
            raise GuardRiskConfigError(
                f"{origin}: thinkers must be a non-empty list of qualified class names or "
                f'globs, e.g. thinkers = ["myapp.agents.*"]; got {thinkers!r}'
            )
        return cls(
            max_risk=Risk(max_risk.strip().lower()),
            thinkers=tuple(item.strip() for item in thinkers),
            origin=origin,
        )

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> RiskLimit | None:
        """Read the limit from a ``pyproject.toml`` or ``nucleo.toml``; ``None`` if it has none.

        Raises:
            GuardRiskConfigError: The file is not valid TOML or the table is malformed.
        """
        file = Path(path)
        try:
            document = tomllib.loads(file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise GuardRiskConfigError(f"{file}: not valid TOML ({exc})") from exc
        in_pyproject = file.name == "pyproject.toml"
        keys = ("tool", "nucleo", "guard-risk") if in_pyproject else ("guard-risk",)
        table: Any = document
        for depth, key in enumerate(keys):
            if key not in table:
                return None
            table = table[key]
            if not isinstance(table, dict):
                dotted = ".".join(keys[: depth + 1])
                raise GuardRiskConfigError(f"{file}: {dotted} must be a table")
        return cls.from_mapping(table, origin=f"{file} [{'.'.join(keys)}]")

    @classmethod
    def discover(cls, start: str | os.PathLike[str] | None = None) -> RiskLimit:
        """The limit configured nearest to ``start`` (the working directory), going up.

        In each folder a ``nucleo.toml`` wins (without a ``[guard-risk]`` table it means the
        defaults); else a ``pyproject.toml`` counts when it has ``[tool.nucleo.guard-risk]``.
        Nothing found gives the defaults.

        Raises:
            GuardRiskConfigError: The configuration found is malformed.
        """
        directory = Path(start) if start is not None else Path.cwd()
        for folder in (directory, *directory.resolve().parents):
            nucleo_toml = folder / "nucleo.toml"
            if nucleo_toml.is_file():
                return cls.from_file(nucleo_toml) or cls()
            pyproject = folder / "pyproject.toml"
            if pyproject.is_file():
                found = cls.from_file(pyproject)
                if found is not None:
                    return found
        return cls()
