"""`Depth`: how deep a thinker works, which decides whether it may delegate."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Depth"]


class Depth(IntEnum):
    """How much work a thinker puts into its objective.

    At ``STANDARD`` or deeper a thinker's palette holds ``sub_thinker``, so it may delegate a
    bounded part of its objective to a sub-thinker; a sub-thinker itself works at ``STANDARD``
    and delegates only at ``THOROUGH``.
    """

    QUICK = 1
    STANDARD = 2
    THOROUGH = 3
