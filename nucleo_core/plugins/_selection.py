"""Which plugins a host loads: the groups, the allow and block lists, the autoload switch."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

__all__ = [
    "ALLOW_ENVIRONMENT_VARIABLE",
    "BLOCK_ENVIRONMENT_VARIABLE",
    "DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE",
    "ENTRY_POINT_GROUPS",
    "PATH_ENVIRONMENT_VARIABLE",
    "PluginSelection",
    "known_groups",
    "normalized_distribution_name",
    "resolve_search_path",
]

#: The entry point groups a host reads, in the order it loads them.
ENTRY_POINT_GROUPS = ("nucleo.tools", "nucleo.skills", "nucleo.plugins")

#: Set (to anything but ``0``, ``false``, ``no``, ``off`` or nothing) to switch entry-point
#: loading off, like ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``; read only when ``enabled`` is ``None``.
DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE = "NUCLEO_DISABLE_PLUGIN_AUTOLOAD"

#: Comma-separated names or globs: load only the entry points matching one; read only when
#: ``allow`` is ``None``.
ALLOW_ENVIRONMENT_VARIABLE = "NUCLEO_PLUGINS_ALLOW"

#: Comma-separated names or globs of plugins never to load; always added to ``block``.
BLOCK_ENVIRONMENT_VARIABLE = "NUCLEO_PLUGINS_BLOCK"

#: Folders (separated by ``os.pathsep``) in which to look for plugin distributions, instead of
#: everywhere Python finds distributions; read only when ``path`` is ``None``.
PATH_ENVIRONMENT_VARIABLE = "NUCLEO_PLUGINS_PATH"

_OFF = frozenset({"", "0", "false", "no", "off"})
_SEPARATORS = re.compile(r"[-_.]+")


def normalized_distribution_name(distribution: str) -> str:
    """A distribution name as packaging compares it (PEP 503): case and separators folded."""
    return _SEPARATORS.sub("-", distribution).lower()


def resolve_search_path(
    path: Iterable[str | os.PathLike[str]] | None, environment: Mapping[str, str]
) -> tuple[str, ...] | None:
    """The folders a host finds distributions in, or ``None`` for everywhere Python looks.

    A ``path`` given wins over ``NUCLEO_PLUGINS_PATH``; an unset or empty variable means
    everywhere. Each folder must exist (a misspelt one would silently load no plugin at all,
    guardrails included), and is made absolute.

    Raises:
        ValueError: A folder does not exist.
    """
    if path is None:
        listed = environment.get(PATH_ENVIRONMENT_VARIABLE, "")
        folders = tuple(item for item in listed.split(os.pathsep) if item.strip())
        if not folders:
            return None
        where = PATH_ENVIRONMENT_VARIABLE
    else:
        folders = tuple(os.fspath(item) for item in path)
        where = "path"
    missing = [folder for folder in folders if not os.path.isdir(folder)]
    if missing:
        raise ValueError(
            f"{where} names folder(s) that do not exist: {missing}; give existing folders "
            f"holding plugin distributions (*.dist-info), or leave {where} unset to find "
            f"plugins wherever Python finds installed distributions"
        )
    # Absolute now: the host looks in the same folders whatever directory it runs in later.
    return tuple(os.path.abspath(folder) for folder in folders)


def _listed(value: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (value or "").split(",") if item.strip())


@dataclass(frozen=True, slots=True, kw_only=True)
class PluginSelection:
    """The resolved choice of what to load.

    Attributes:
        allow: Patterns an entry point must match to load, or ``None`` to allow every one.
        block: Patterns of plugins never loaded.
        enabled: Whether entry points are loaded at all.
        switched_off_by: What switched loading off (for the records), or ``""``.
    """

    allow: tuple[str, ...] | None
    block: tuple[str, ...]
    enabled: bool
    switched_off_by: str = ""

    @classmethod
    def resolve(
        cls,
        *,
        allow: Iterable[str] | None,
        block: Iterable[str],
        enabled: bool | None,
        environment: Mapping[str, str],
    ) -> PluginSelection:
        """Combine the parameters with the environment: a parameter given wins, block adds up."""
        switched_off_by = "enabled=False"
        if enabled is None:
            switch = environment.get(DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE, "")
            enabled = switch.strip().lower() in _OFF
            switched_off_by = f"{DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE}={switch}"
        if allow is None:
            listed = _listed(environment.get(ALLOW_ENVIRONMENT_VARIABLE))
            allowed = listed or None
        else:
            allowed = tuple(allow)
        blocked = (*block, *_listed(environment.get(BLOCK_ENVIRONMENT_VARIABLE)))
        return cls(
            allow=allowed,
            block=blocked,
            enabled=enabled,
            switched_off_by="" if enabled else switched_off_by,
        )

    def refusal(
        self, names: Iterable[str], distribution: str | None, *, direct: bool
    ) -> str | None:
        """Why a plugin known by ``names`` and shipped by ``distribution`` is not loaded, if so.

        The allow list does not apply to ``direct`` registrations: code that registers a plugin
        has already chosen it (nucleo's own builtins are registered so). The block list does,
        so that a broken builtin can be switched off like any plugin.
        """
        candidates = tuple(names)
        normalized = normalized_distribution_name(distribution) if distribution else None

        def matches(pattern: str) -> bool:
            if any(fnmatchcase(name, pattern) for name in candidates):
                return True
            return normalized is not None and fnmatchcase(
                normalized, normalized_distribution_name(pattern)
            )

        for pattern in self.block:
            if matches(pattern):
                return f"blocked: matches {pattern!r} in the block list"
        if not direct and self.allow is not None and not any(map(matches, self.allow)):
            return "blocked: not in the allow list"
        return None


def known_groups(groups: Iterable[str]) -> tuple[str, ...]:
    """``groups`` without repeats, each one of `ENTRY_POINT_GROUPS`.

    Raises:
        ValueError: A group is not one nucleo defines.
    """
    groups = tuple(groups)
    unknown = [group for group in groups if group not in ENTRY_POINT_GROUPS]
    if unknown:
        raise ValueError(
            f"unknown entry point group(s) {unknown}; nucleo reads {list(ENTRY_POINT_GROUPS)}"
        )
    return tuple(dict.fromkeys(groups))
