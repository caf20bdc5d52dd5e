"""State a tool wants carried across a conversation's compaction."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CarriedState"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CarriedState:
    """What one tool asks to keep when older turns are replaced by a summary.

    Attributes:
        tool: The name of the tool that carries the state.
        text: The state as text the model reads after the compaction.
        data: Optional structured state for the tool itself; the framework never reads it.
    """

    tool: str
    text: str
    data: Mapping[str, Any] | None = None
