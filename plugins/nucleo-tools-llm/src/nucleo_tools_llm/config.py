"""`LLMConfig`: what the configuration says about the bridged `llm` tools.

``llm`` has no notion of read-only tools or of risk, so the bridge learns both from the
configuration, and declares nothing it was not told: a tool nothing declares is mutating and
its risk undeclared (``high``). The table is ``[llm]`` of the nearest ``nucleo.toml``, or
``[tool.nucleo.llm]`` of the nearest ``pyproject.toml`` that has one, looking from the working
directory upward; in one folder a ``nucleo.toml`` wins, as it does for nucleo's other tables.

.. code-block:: toml

    [llm]
    strict = false                      # true: a broken llm plugin fails the whole bridge

    [llm.packs.llm-tools-quickjs]       # a pack: its distribution or entry-point name
    risk = "medium"

    [llm.tools.SQLite]                  # a tool, or a Toolbox (all of its tools)
    read_only = true
    risk = "low"

    [llm.toolboxes.SQLite]              # a Toolbox's constructor arguments
    path = "data/app.db"

A tool's own table wins over its Toolbox's, which wins over its pack's.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nucleo_core import MisuseError, Risk

__all__ = [
    "CONFIG_KEYS",
    "DECLARATION_KEYS",
    "Declaration",
    "LLMConfig",
    "LLMConfigError",
    "discover_config",
    "normalized_name",
]

#: The keys the ``[llm]`` table may hold.
CONFIG_KEYS = ("strict", "packs", "tools", "toolboxes")

#: The keys of one ``[llm.packs.<pack>]`` or ``[llm.tools.<tool>]`` table.
DECLARATION_KEYS = ("read_only", "risk")

_SEPARATORS = re.compile(r"[-_.]+")
_NOTHING: Mapping[str, Any] = MappingProxyType({})


class LLMConfigError(MisuseError):
    """The ``[llm]`` configuration is malformed (a developer's mistake, not the model's)."""


def normalized_name(name: str) -> str:
    """A pack name as packaging compares distribution names: case and separators folded."""
    return _SEPARATORS.sub("-", name).lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class Declaration:
    """What the configuration declares about a pack, a Toolbox or a tool.

    Attributes:
        read_only: Whether it changes nothing; ``None`` when this table does not say.
        risk: Its declared risk; ``None`` when this table does not say.
    """

    read_only: bool | None = None
    risk: Risk | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMConfig:
    """The bridge's configuration, as read from one table.

    Attributes:
        origin: Where it was read (``path [table]``), or ``""`` for none.
        strict: Whether a broken llm plugin (or a Toolbox that cannot be configured) fails the
            whole bridge instead of being skipped and reported.
        packs: Declarations by pack name (normalized: see `normalized_name`).
        tools: Declarations by tool or Toolbox name, as ``llm`` names them.
        toolboxes: Constructor arguments by Toolbox name.
    """

    origin: str = ""
    strict: bool = False
    packs: Mapping[str, Declaration] = field(default_factory=lambda: _NOTHING)
    tools: Mapping[str, Declaration] = field(default_factory=lambda: _NOTHING)
    toolboxes: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: _NOTHING)

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any], *, origin: str = "") -> LLMConfig:
        """Read the ``[llm]`` table (or ``[tool.nucleo.llm]``), already parsed.

        Raises:
            LLMConfigError: A key is unknown or a value has the wrong type; the message names
                the key and what it must be.
        """
        where = origin or "[llm]"
        unknown = sorted(set(table) - set(CONFIG_KEYS))
        if unknown:
            raise LLMConfigError(
                f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(CONFIG_KEYS)}"
            )
        strict = table.get("strict", False)
        if not isinstance(strict, bool):
            raise LLMConfigError(f"{where}: strict must be true or false")
        packs = _declarations(table.get("packs", {}), f"{where}: packs")
        return cls(
            origin=origin,
            strict=strict,
            packs=MappingProxyType({normalized_name(key): value for key, value in packs.items()}),
            tools=MappingProxyType(_declarations(table.get("tools", {}), f"{where}: tools")),
            toolboxes=MappingProxyType(_toolboxes(table.get("toolboxes", {}), where)),
        )

    def declared(
        self, *, tool: str, toolbox: str | None, packs: tuple[str, ...]
    ) -> tuple[bool, Risk | None]:
        """The read-only flag and risk of one tool: its own table, its Toolbox's, its pack's.

        Args:
            tool: The tool's name as ``llm`` gives it.
            toolbox: The name of the Toolbox it is a method of, if it is one.
            packs: The names its pack is known by (entry point and distribution).

        Returns:
            ``(read_only, risk)``: ``read_only`` is ``False`` and ``risk`` ``None``
            (undeclared, so ``high``) where no table says otherwise.
        """
        chain = [self.tools.get(tool)]
        if toolbox is not None:
            chain.append(self.tools.get(toolbox))
        chain += [self.packs.get(normalized_name(name)) for name in packs]
        read_only = next((d.read_only for d in chain if d and d.read_only is not None), False)
        risk = next((d.risk for d in chain if d and d.risk is not None), None)
        return read_only, risk

    def arguments(self, toolbox: str) -> Mapping[str, Any]:
        """The constructor arguments configured for ``toolbox`` (none when not configured)."""
        return self.toolboxes.get(toolbox, _NOTHING)

    def where(self, *parts: str) -> str:
        """How a user finds a sub-table: ``[llm.toolboxes.SQLite]`` in the file it is read from."""
        prefix = "tool.nucleo.llm" if self.origin.endswith("[tool.nucleo.llm]") else "llm"
        return "[" + ".".join((prefix, *parts)) + "]"


def _declarations(value: object, where: str) -> dict[str, Declaration]:
    if not isinstance(value, Mapping):
        raise LLMConfigError(f"{where} must be a table of tables")
    declared: dict[str, Declaration] = {}
    for name, entry in value.items():
        at = f"{where}.{name}"
        if not isinstance(entry, Mapping) or set(entry) - set(DECLARATION_KEYS):
            raise LLMConfigError(f"{at} must be a table with only read_only and risk")
        read_only = entry.get("read_only")
        if read_only is not None and not isinstance(read_only, bool):
            raise LLMConfigError(f"{at}: read_only must be true or false")
        risk = entry.get("risk")
        if risk is not None:
            try:
                risk = Risk(risk) if isinstance(risk, str) else None
            except ValueError:
                risk = None
            if risk is None:
                raise LLMConfigError(f"{at}: risk must be one of low, medium, high")
        declared[str(name)] = Declaration(read_only=read_only, risk=risk)
    return declared


def _toolboxes(value: object, where: str) -> dict[str, Mapping[str, Any]]:
    if not isinstance(value, Mapping):
        raise LLMConfigError(f"{where}: toolboxes must be a table of tables")
    toolboxes: dict[str, Mapping[str, Any]] = {}
    for name, arguments in value.items():
        if not isinstance(arguments, Mapping):
            raise LLMConfigError(
                f"{where}: toolboxes.{name} must be a table of the Toolbox's constructor "
                'arguments, e.g. path = "data/app.db"'
            )
        toolboxes[str(name)] = MappingProxyType(dict(arguments))
    return toolboxes


def _table_in(file: Path) -> dict[str, Any] | None:
    """The bridge's table of ``file``, or ``None`` when it has none.

    Raises:
        LLMConfigError: The file is not valid TOML, or a table on the way is not a table.
    """
    try:
        document = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LLMConfigError(f"{file}: not valid TOML ({exc})") from exc
    keys = ("tool", "nucleo", "llm") if file.name == "pyproject.toml" else ("llm",)
    table: dict[str, Any] = document
    for depth, key in enumerate(keys):
        if key not in table:
            return None
        found = table[key]
        if not isinstance(found, dict):
            raise LLMConfigError(f"{file}: {'.'.join(keys[: depth + 1])} must be a table")
        table = found
    return table


def discover_config(start: str | os.PathLike[str] | None = None) -> LLMConfig:
    """The configuration of the project nearest to ``start`` (the working directory).

    Going up from ``start``, the first folder holding a ``nucleo.toml`` (with or without an
    ``[llm]`` table) or a ``pyproject.toml`` with a ``[tool.nucleo.llm]`` table decides; a
    ``nucleo.toml`` wins over the ``pyproject.toml`` beside it. Nothing found is the empty
    configuration: every tool mutating, every risk undeclared, no constructor arguments.

    Raises:
        LLMConfigError: The deciding file is malformed.
    """
    directory = Path(start) if start is not None else Path.cwd()
    for folder in (directory, *directory.resolve().parents):
        for file_name, label in (("nucleo.toml", "llm"), ("pyproject.toml", "tool.nucleo.llm")):
            file = folder / file_name
            if not file.is_file():
                continue
            table = _table_in(file)
            if table is None and file_name == "pyproject.toml":
                continue
            return LLMConfig.from_mapping(table or {}, origin=f"{file} [{label}]")
    return LLMConfig()
