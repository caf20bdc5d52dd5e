"""The words of an MCP server's session: its tools as listed, and the state it is in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

__all__ = ["Listing", "SessionState"]

#: A server's tools as its ``tools/list`` answer gave them (wire form, one mapping per tool).
Listing: TypeAlias = tuple[Mapping[str, Any], ...]
SessionState: TypeAlias = Literal["idle", "starting", "ready", "restarting", "failed", "closed"]
