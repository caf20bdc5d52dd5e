"""`Phase`: a stage of a run in which only some tools exist at all."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["Phase"]


@dataclass(frozen=True, slots=True)
class Phase:
    """A stage of a run (planning, executing, ...) that permits only some tools.

    A tool a phase does not permit is genuinely absent in it: not listed in the specs and not
    reachable through ``available``, so a model that remembers it from an earlier turn cannot
    call it. Switching phase changes the front of the prompt, and the next turn re-pays the
    prompt cache for it: the price of absence over mere refusal.

    Attributes:
        name: The phase's name, for logs and records.
        tools: The names (bare or prefixed ids) the phase permits, or ``None`` for any.
        read_only: When ``True``, only tools declared read-only are permitted.
    """

    name: str
    tools: frozenset[str] | None = None
    read_only: bool = False

    def __post_init__(self) -> None:
        # Accept any iterable of names (a list, a set): the phase must stay hashable, since
        # specs are cached by phase.
        tools: object = self.tools
        if tools is not None and not isinstance(tools, frozenset):
            object.__setattr__(self, "tools", frozenset(cast("Iterable[str]", tools)))

    @classmethod
    def only(cls, name: str, tools: Iterable[str]) -> Phase:
        """A phase that permits exactly the named tools."""
        return cls(name, frozenset(tools))

    @classmethod
    def read_only_tools(cls, name: str) -> Phase:
        """A phase that permits every tool declared read-only, such as a planning phase."""
        return cls(name, None, read_only=True)

    def permits(self, provider: ToolProvider) -> bool:
        """Whether ``provider``'s tool exists in this phase."""
        tools = self.tools
        if tools is not None and provider.name not in tools and provider.source not in tools:
            return False
        return provider.read_only or not self.read_only
