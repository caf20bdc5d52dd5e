"""Which conversation keeps a thinker's tools' state, and telling the tools it ended.

See `nucleo_core.tools.state`: a tool keeps state per conversation; a thinker remembers every
tool its palette held during each conversation, and tells each when that conversation ends.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.tools._run_all import run_all

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.tools.provider import ToolProvider

__all__: list[str] = []


class _ToolState(ThinkerBase):
    """Where a thinker's tools keep their state, and its end; mixed into `Thinker`."""

    _palette_seen: dict[str, dict[int, ToolProvider]]

    if TYPE_CHECKING:  # what the tool state needs of the thinker it is mixed into

        def state_owner(self, provider: ToolProvider) -> _ToolState: ...

        @property
        def conversation(self) -> ConversationContext | None: ...

    def note_palette(self, conversation_id: str) -> None:
        """Remember the tools the palette holds now as tools of ``conversation_id``.

        Each is told when the conversation ends (`tell_tools_conversation_ended`).
        """
        seen = self._palette_seen.setdefault(conversation_id, {})
        for provider in self.registry.providers():
            seen.setdefault(id(provider), provider)

    def tell_tools_conversation_ended(self, conversation_id: str) -> None:
        """Tell this thinker's tools the conversation ``conversation_id`` ended.

        Every tool the palette held during the conversation, and every tool it holds now, is
        told (``forget_conversation_state(conversation_id)``), in the order first seen, except
        a tool whose state this thinker does not own (a sub-thinker's tool inherited from its
        parent: its state is the parent's conversation's, told when that one ends). Every tool
        is told even when one raises; the failures are raised together afterwards as an
        ``ExceptionGroup``.
        """
        seen = self._palette_seen.pop(conversation_id, {})
        for provider in self.registry.providers():
            seen.setdefault(id(provider), provider)
        run_all(
            (
                partial(provider.forget_conversation_state, conversation_id)
                for provider in seen.values()
                if self.state_owner(provider) is self
            ),
            "forget_conversation_state failed for some tools",
        )

    def _state_conversation_id(self, provider: ToolProvider, own: str) -> str | None:
        """The conversation ``provider`` keeps its state in for this thinker (``own`` here)."""
        owner = self.state_owner(provider)
        if owner is self:
            return own
        conversation = owner.conversation
        return None if conversation is None else conversation.id
