"""Tool names behind the gateway: kept where unique, the server's prefix where not.

Two servers behind one gateway may publish a tool of the same name (two ``search`` tools), and
a server may publish a name a native tool holds. nucleo never takes a name silently, so the
gateway gives every server involved in such a clash its prefix (its id, made a valid prefix:
``files_search``, ``web_search``) unless it is configured with one; every other server keeps
its tools' own names. The decision is made from the servers' first listings, before any tool
is registered, so it does not depend on which server answered first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from nucleo_core.mcp.config import MCPServerConfig

__all__ = ["prefixed_configs", "server_prefix"]


def server_prefix(server: str) -> str:
    """The prefix made of a server id: letters, digits, ``_`` and ``-``, led by a letter."""
    prefix = re.sub(r"[^A-Za-z0-9_-]", "_", server)[:32]
    return prefix if prefix[:1].isalpha() else ("s" + prefix)[:32]


def prefixed_configs(
    configs: Sequence[MCPServerConfig],
    listings: Mapping[str, Iterable[Mapping[str, Any]]],
    taken: Collection[str] = (),
) -> list[MCPServerConfig]:
    """``configs``, each server whose tool names clash given its prefix (see the module).

    Args:
        configs: The servers, in configuration order.
        listings: Each started server's tool descriptors (a server that did not start is
            absent: it clashes with nothing yet).
        taken: Names native tools hold (a server's tool cannot take them either).
    """
    names: dict[str, set[str]] = {}
    for config in configs:
        listed = listings.get(config.name)
        if listed is None:
            continue
        names[config.name] = {
            config.tool_name(tool["name"]) for tool in listed if isinstance(tool.get("name"), str)
        }
    counts = Counter(name for listed in names.values() for name in listed)
    clashing = {
        server
        for server, listed in names.items()
        if any(counts[name] > 1 or name in taken for name in listed)
    }
    return [
        replace(config, prefix=server_prefix(config.name))
        if config.name in clashing and config.prefix is None
        else config
        for config in configs
    ]
