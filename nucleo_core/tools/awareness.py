"""Awareness markers: tools that touch the conversation or the palette run one at a time.

A tool declares that it reads or changes the conversation, or the thinker's tool registry, by
mixing in `ConversationAware` or `RegistryAware`. Such a tool finishes before the next call of
the same turn is submitted, so the calls after it are checked against the palette it left and
see the conversation as it left it. (Calls submitted before it may still be running beside it.)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nucleo_core.tools.provider import ToolProvider
    from nucleo_core.tools.tool import Tool

__all__ = ["ConversationAware", "RegistryAware", "runs_alone"]


class ConversationAware(ABC):
    """A tool that reads or changes the conversation it runs in.

    Mix it into the tool class and implement `bind_conversation`; the executor calls it with
    the conversation before ``run``, when it has one to give, and lets the tool finish before
    it submits the next call of the turn.

    Example:
        >>> from pydantic import BaseModel
        >>> from nucleo_core import Tool
        >>> class NoInput(BaseModel):
        ...     pass
        >>> class CountTurns(Tool[NoInput, int], ConversationAware):
        ...     def bind_conversation(self, conversation):
        ...         self.conversation = conversation
        ...     def run(self, input):
        ...         return len(self.conversation)
    """

    __slots__ = ()

    @abstractmethod
    def bind_conversation(self, conversation: Any) -> None:
        """Receive the conversation this call runs in; called once, before ``run``."""


class RegistryAware(ABC):
    """A tool that reads or changes the thinker's tool registry (the palette).

    Mix it into the tool class and implement `bind_registry`; the executor calls it with the
    registry before ``run``, when it has one to give, and lets the tool finish before it submits
    the next call of the turn, whose check then sees the palette as this tool left it.
    """

    __slots__ = ()

    @abstractmethod
    def bind_registry(self, registry: Any) -> None:
        """Receive the tool registry of the thinker running this call; called before ``run``."""


def runs_alone(provider: ToolProvider, tool: Tool[Any, Any]) -> bool:
    """Whether a call must finish before the next call of its turn is submitted.

    True for a tool that mixes in `ConversationAware` or `RegistryAware`, and for a provider
    that declares itself ``sequential`` (the meta-tools ``request_tools`` and ``request_skill``
    do: they change the palette).
    """
    if isinstance(tool, ConversationAware | RegistryAware):
        return True
    return provider.sequential
