"""`ThinkerEntries`: a thinker's own implementations, for the framework code that calls it.

The hub's admission, the call door and the meta-tools call a `ThinkerBase` through the base
class's implementations, never through an override a subclass made (an override of
`ThinkerBase.tool_catalog` must not widen what admission grants from). Each thinker hands
them over bound to itself, so that code reaches them without importing the class: it sits
below `ThinkerBase`, which imports it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nucleo_core.hub.meta_results import (
        RequestSkillResult,
        RequestToolsResult,
        SearchToolsResult,
    )
    from nucleo_core.skills.skill import Skill
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["ThinkerEntries", "entries_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkerEntries:
    """One thinker's base-class implementations, bound to it (see the module)."""

    #: `ThinkerBase.tool_catalog`.
    tool_catalog: Callable[[], Sequence[ToolProvider]]
    #: `ThinkerBase.skill_catalog` (``by_user``).
    skill_catalog: Callable[[bool], Sequence[Skill]]
    #: Whether a provider in the palette is still offered at this moment.
    offered_now: Callable[[ToolProvider], bool]
    #: `ThinkerBase.request_tools_async`.
    request_tools_async: Callable[[Sequence[str]], Awaitable[RequestToolsResult]]
    #: `ThinkerBase.request_skill_async`.
    request_skill_async: Callable[[str], Awaitable[RequestSkillResult]]
    #: `ThinkerBase.search_tools_async` (query, limit).
    search_tools_async: Callable[[str, int], Awaitable[SearchToolsResult]]
    #: The catalog tool a deferred stand-in runs, admitted through the door at its first call.
    admitted_deferred: Callable[[ToolProvider], Awaitable[ToolProvider]]

    @classmethod
    def bound(cls, thinker: Any, base: type[Any]) -> ThinkerEntries:
        """``base``'s own implementations (`ThinkerBase`'s), bound to ``thinker``."""
        return cls(
            tool_catalog=partial(base.tool_catalog, thinker),
            skill_catalog=lambda by_user: base.skill_catalog(thinker, by_user=by_user),
            offered_now=partial(base._offered_now, thinker),
            request_tools_async=partial(base.request_tools_async, thinker),
            request_skill_async=partial(base.request_skill_async, thinker),
            search_tools_async=partial(base.search_tools_async, thinker),
            admitted_deferred=partial(base._admitted_deferred, thinker),
        )


def entries_of(thinker: Any) -> ThinkerEntries | None:
    """``thinker``'s entries when it is a `ThinkerBase`; ``None`` for a duck-typed thinker."""
    entries = getattr(thinker, "_entries", None)
    return entries if isinstance(entries, ThinkerEntries) else None
