"""`SkillsConfig`: tool aliases and skill renames, as the project configures them.

Declared in ``[tool.nucleo.skills]`` of ``pyproject.toml`` or ``[skills]`` of ``nucleo.toml``:

.. code-block:: toml

    [tool.nucleo.skills.aliases]      # allowed-tools entries -> nucleo tools
    Read = "read_text_file"
    Grep = ["read_text_file", "list_directory"]
    "Bash(git diff:*)" = "git_diff"   # an argument pattern grants the tool whole

    [tool.nucleo.skills.rename]       # "<bundle>:<name>" (or "<name>") -> the name to use
    "acme_skills:configure" = "acme-configure"

    [tool.nucleo.skills.prefix]       # bundle -> text put before each of its skills' names
    other_skills = "other-"
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from nucleo_core._project_table import nearest_config, read_table
from nucleo_core.skills.aliases import aliases_from
from nucleo_core.skills.errors import SkillsConfigError

__all__ = [
    "SKILLS_KEYS",
    "SkillsConfig",
    "discover_skills_config",
    "skills_config_from_file",
    "skills_config_from_mapping",
]

#: The keys the skills table may hold.
SKILLS_KEYS = ("aliases", "rename", "prefix")


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsConfig:
    """The skills configuration.

    Attributes:
        aliases: ``allowed-tools`` entries (``Read``, ``Bash(git diff:*)``) to nucleo tools.
        rename: ``<bundle>:<name>`` or ``<name>`` to the name the skill is registered under.
        prefix: A bundle id to the text put before the names of its skills.
        origin: Where it was read from, or that nothing was found.
    """

    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    rename: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    prefix: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    origin: str = "defaults (no skills configuration found)"

    def name_for(self, name: str, bundle: str) -> str:
        """The name a skill called ``name`` from ``bundle`` is registered under.

        A rename of ``<bundle>:<name>`` wins over one of ``<name>``, which wins over the
        bundle's prefix.
        """
        qualified = f"{bundle}:{name}" if bundle else name
        renamed = self.rename.get(qualified) or self.rename.get(name)
        if renamed is not None:
            return renamed
        return self.prefix.get(bundle, "") + name if bundle else name


def skills_config_from_mapping(table: Mapping[str, Any], *, origin: str) -> SkillsConfig:
    """Read a skills table (``[tool.nucleo.skills]``'s content).

    Raises:
        SkillsConfigError: The table is malformed; the message says what to fix.
    """
    unknown = sorted(set(table) - set(SKILLS_KEYS))
    if unknown:
        raise SkillsConfigError(
            f"{origin}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(SKILLS_KEYS)}"
        )
    try:
        aliases = aliases_from(table.get("aliases", {}), where=f"{origin} aliases")
    except TypeError as exc:
        raise SkillsConfigError(str(exc)) from None
    return SkillsConfig(
        aliases=MappingProxyType(aliases),
        rename=MappingProxyType(_names(table.get("rename", {}), f"{origin} rename")),
        prefix=MappingProxyType(_names(table.get("prefix", {}), f"{origin} prefix")),
        origin=origin,
    )


def skills_config_from_file(path: str | os.PathLike[str]) -> SkillsConfig | None:
    """Read the skills table of one ``pyproject.toml`` or ``nucleo.toml``; ``None`` if none.

    Raises:
        SkillsConfigError: The file is not valid TOML or the table is malformed.
    """
    table, origin = read_table(path, "skills", SkillsConfigError)
    return None if table is None else skills_config_from_mapping(table, origin=origin)


def discover_skills_config(start: str | os.PathLike[str] | None = None) -> SkillsConfig:
    """The skills configuration of the project nearest to ``start`` (the working directory).

    Found as the guard's is: going up from ``start``, in each folder a ``nucleo.toml`` wins
    (without a ``[skills]`` table it means the defaults); else a ``pyproject.toml`` counts
    when it has ``[tool.nucleo.skills]``. Nothing found gives the defaults.

    Raises:
        SkillsConfigError: The configuration found is malformed.
    """
    found, file = nearest_config(start, skills_config_from_file)
    if found is not None:
        return found
    if file is not None:
        return SkillsConfig(origin=f"defaults ({file} has no [skills] table)")
    return SkillsConfig()


def _names(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(key, str) and key and isinstance(item, str) and item.strip()
        for key, item in value.items()
    ):
        raise SkillsConfigError(
            f'{where} must map names to non-empty names ("acme_skills:configure" = '
            '"acme-configure")'
        )
    return {key: item.strip() for key, item in value.items()}
