"""Tool aliases: the names published skills use in ``allowed-tools``, mapped onto nucleo tools.

Skills written for Claude Code name its tools (``Read``, ``Write``, ``Edit``, ``Glob``,
``Grep``, ``Bash(git diff:*)``); nucleo has tools of other names, and no shell tool by
default. An alias maps such an entry onto nucleo tools. Aliases come from the configuration
(``[tool.nucleo.skills.aliases]`` of ``pyproject.toml``, ``[skills.aliases]`` of
``nucleo.toml``), which wins, and from tool packs for their own tools (the
``nucleo_skill_tool_aliases`` hook).

An entry with an argument pattern (``Bash(git diff:*)``) is looked up whole first, then by its
tool part (``Bash``). nucleo does not enforce argument patterns: an entry grants the tools its
alias names, whole, or nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["AliasProblem", "SkillToolAliases", "ToolResolution", "aliases_from", "tool_part"]

#: Claude Code names an MCP tool ``mcp__<server>__<tool>``; nucleo's source id for it.
_MCP_PREFIX = "mcp__"


def tool_part(entry: str) -> str:
    """The tool an ``allowed-tools`` entry names, without its argument pattern.

    Example:
        >>> tool_part("Bash(git diff:*)")
        'Bash'
    """
    return entry.split("(", 1)[0].strip()


def aliases_from(value: object, *, where: str) -> dict[str, tuple[str, ...]]:
    """``value`` read as aliases: a mapping of entries to a tool name or a list of them.

    Raises:
        TypeError: ``value`` is not such a mapping; the message names ``where`` and the fix.
    """
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{where} must map skill tool names to nucleo tool names (Read = "
            f'"read_text_file"), not be {type(value).__name__}'
        )
    aliases: dict[str, tuple[str, ...]] = {}
    for key, target in value.items():
        if not isinstance(key, str) or not key.strip():
            raise TypeError(f"{where}: every alias is a non-empty tool name, as skills write it")
        targets = (target,) if isinstance(target, str) else target
        if (
            not isinstance(targets, Sequence)
            or not targets
            or not all(isinstance(name, str) and name.strip() for name in targets)
        ):
            raise TypeError(
                f"{where}: the alias {key!r} must name a nucleo tool or a non-empty list of "
                'them (Grep = ["read_text_file", "list_directory"])'
            )
        aliases[key.strip()] = tuple(dict.fromkeys(name.strip() for name in targets))
    return aliases


@dataclass(frozen=True, slots=True)
class AliasProblem:
    """An alias a pack declared that was not taken, and why."""

    plugin: str
    alias: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResolution:
    """What a skill's ``allowed-tools`` entries come to in nucleo tools.

    Attributes:
        names: The tool names (or source ids) the restriction allows.
        mapped: Each entry with the tools it grants and how (``"name"``, ``"configuration"``,
            or the pack that declared the alias), in the skill's order.
        unresolved: The entries that grant no tool that exists: no tool has that name and no
            alias maps it (or the alias names only tools that do not exist).
    """

    names: frozenset[str]
    mapped: tuple[tuple[str, tuple[str, ...], str], ...]
    unresolved: tuple[str, ...]


class SkillToolAliases:
    """The aliases in force: the configuration's, then those tool packs declared.

    Safe to use from several threads.

    Args:
        configured: The configuration's aliases (entry to tool names).
        origin: Where they were read, for messages.
    """

    __slots__ = ("_configured", "_lock", "_origin", "_packs")

    def __init__(
        self, configured: Mapping[str, Sequence[str]] | None = None, *, origin: str = ""
    ) -> None:
        self._configured: Mapping[str, tuple[str, ...]] = MappingProxyType(
            {key: tuple(value) for key, value in (configured or {}).items()}
        )
        self._origin = origin or "the configuration"
        self._packs: dict[str, tuple[tuple[str, ...], str]] = {}
        self._lock = threading.Lock()

    @property
    def configured(self) -> Mapping[str, tuple[str, ...]]:
        """The configuration's aliases."""
        return self._configured

    @property
    def declared(self) -> Mapping[str, tuple[tuple[str, ...], str]]:
        """The aliases packs declared: entry to (tool names, the plugin that declared it)."""
        with self._lock:
            return dict(self._packs)

    def add_pack(
        self, plugin: str, aliases: Mapping[str, Sequence[str]], own: Collection[str]
    ) -> list[AliasProblem]:
        """Take the aliases ``plugin`` declared, each onto tools it provides itself (``own``).

        A pack maps only its own tools: an alias naming another tool is not taken, so an
        installed package can never widen what a skill allows onto tools it does not own. The
        first pack to declare an alias keeps it; the configuration wins over every pack.

        Returns:
            The aliases not taken, with the reason.
        """
        problems: list[AliasProblem] = []
        with self._lock:
            for alias, targets in aliases.items():
                foreign = [name for name in targets if name not in own]
                if foreign:
                    problems.append(
                        AliasProblem(
                            plugin,
                            alias,
                            f"it names {', '.join(foreign)}, which {plugin} does not provide; "
                            "a pack's aliases map only its own tools",
                        )
                    )
                    continue
                held = self._packs.get(alias)
                if held is not None and held[1] != plugin:
                    problems.append(
                        AliasProblem(
                            plugin,
                            alias,
                            f"{held[1]} declared it first; map it in the configuration "
                            "([tool.nucleo.skills.aliases]) to choose",
                        )
                    )
                    continue
                self._packs[alias] = (tuple(targets), plugin)
        return problems

    def lookup(self, entry: str) -> tuple[tuple[str, ...], str] | None:
        """The tools ``entry`` is an alias of and where the alias comes from, or ``None``.

        The whole entry is looked up first (``Bash(git diff:*)``), then its tool part
        (``Bash``); at each step the configuration before the packs.
        """
        keys = [entry]
        bare = tool_part(entry)
        if bare != entry and bare:
            keys.append(bare)
        with self._lock:
            for key in keys:
                configured = self._configured.get(key)
                if configured is not None:
                    return configured, self._origin
                declared = self._packs.get(key)
                if declared is not None:
                    return declared[0], f"pack {declared[1]}"
        return None

    def resolve(
        self, entries: Iterable[str] | None, *, known: Collection[str] | None = None
    ) -> ToolResolution:
        """Resolve a skill's ``allowed-tools`` entries to nucleo tools.

        An entry an alias maps grants the alias's tools. Otherwise an entry without an
        argument pattern is taken as a nucleo tool name (or source id), and Claude Code's
        ``mcp__<server>__<tool>`` as the MCP tool ``mcp:<server>:<tool>``; an entry with an
        argument pattern and no alias grants nothing.

        Args:
            entries: The skill's ``allowed-tools`` (``None``: it names none).
            known: The tool names (and source ids) that exist here; an entry granting none of
                them is unresolved. ``None`` judges nothing unresolved but argument patterns
                without an alias.
        """
        names: set[str] = set()
        mapped: list[tuple[str, tuple[str, ...], str]] = []
        unresolved: list[str] = []
        for entry in entries or ():
            found = self.lookup(entry)
            if found is not None:
                targets, origin = found
            elif "(" in entry:
                unresolved.append(entry)
                continue
            else:
                targets, origin = (_native_spelling(entry),), "name"
            names.update(targets)
            mapped.append((entry, targets, origin))
            if known is not None and not any(target in known for target in targets):
                unresolved.append(entry)
        return ToolResolution(
            names=frozenset(names), mapped=tuple(mapped), unresolved=tuple(unresolved)
        )


def _native_spelling(entry: str) -> str:
    """``entry`` as nucleo names the tool: Claude Code's MCP spelling becomes a source id."""
    if entry.startswith(_MCP_PREFIX):
        server, separator, tool = entry[len(_MCP_PREFIX) :].partition("__")
        if separator and server and tool:
            return f"mcp:{server}:{tool}"
    return entry
