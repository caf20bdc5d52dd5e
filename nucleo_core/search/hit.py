"""`ToolSearchHit`: one ranked match of a `ToolIndex` search."""

from __future__ import annotations

from dataclasses import dataclass

from nucleo_core.tools.spec import ToolSpec

__all__ = ["ToolSearchHit"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSearchHit:
    """A tool that matched a query, with how well it matched.

    Attributes:
        name: The tool's name.
        score: The ranking score (higher is better). Comparable between the hits of one
            search only: it depends on the query and on the catalog's term statistics.
        spec: The tool's spec, as it was indexed.
    """

    name: str
    score: float
    spec: ToolSpec
