"""`ChatThinker`: the durable-chat seat over `ReactiveThinker`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from nucleo_core.conversations.errors import ConversationConflict
from nucleo_core.thinking.reactive import ReactiveThinker
from nucleo_core.thinking.thinker import ContentEvent

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext

__all__ = ["ChatThinker"]

_PIECES = re.compile(r"\s*\S+\s*|\s+")


class ChatThinker(ReactiveThinker):
    """Durable chat: every turn is kept, and every answer is streamed as content events.

    - **Non-temporary.** Every turn runs on a durable conversation, whatever ``run`` is told;
      a conversation of that id open here as a temporary one is made durable (with everything
      it holds) rather than refused.
    - **Streaming.** Each answer the model gives the user is sent to the listeners as
      `ContentEvent` chunks of about `chunk_chars` characters, cut at whitespace, the last one
      with ``done=True``; the chunks' texts joined are the answer exactly (an empty answer is
      one empty done chunk). The answer is streamed once accepted, not token by token from the
      provider: an answer is only known to be the user's (rather than a step towards tool
      calls) once the whole of it is read. With ``stream_text`` on (as ``nucleo chat`` sets
      it), the model's text streams as it arrives instead, as delta events (see
      `ContentEvent`), and the chunks leave out what the deltas showed. A turn that took in
      inbox messages streams one answer per reply (each ending with its own done chunk);
      `send` returns the last.
    - **Ending.** A chat goes on from turn to turn, and so does its tools' state (see
      `nucleo_core.tools.state`); `end_conversation` ends it (``close``, or leaving a ``with``
      block, ends every chat of this thinker), and only then are its tools told.

    The arguments are `ReactiveThinker`'s.
    """

    #: About how many characters each streamed chunk holds.
    chunk_chars: ClassVar[int] = 64

    async def send(self, text: str, *, conversation_id: str) -> str:
        """Send the user's ``text`` to the chat ``conversation_id``; return the answer.

        The answer is streamed to the listeners as it is returned (see the class). Errors are
        `ReactiveThinker.turn`'s, raised after the abnormal-end discipline ran.
        """
        return await self.turn(text, conversation_id=conversation_id)

    def open_conversation(
        self, conversation_id: str | None, *, durable: bool
    ) -> ConversationContext:
        """The durable conversation; a temporary one open in the service is made durable."""
        del durable  # a chat is never temporary
        try:
            return self.conversations.open(conversation_id, durable=True)
        except ConversationConflict:
            context = self.conversations.open(conversation_id, durable=False)
            self.conversations.make_durable(context)
            return context

    def deliver(self, answer: str, *, interim: bool) -> None:
        """Stream ``answer`` to the listeners as chunks, the last one done."""
        del interim
        pieces = list(chunks(answer, self.chunk_chars)) or [""]
        for index, piece in enumerate(pieces):
            self.emit(ContentEvent(text=piece, done=index == len(pieces) - 1))


def chunks(text: str, size: int) -> Iterator[str]:
    """``text`` in pieces of at least ``size`` characters (the last may be shorter).

    Pieces are cut after whitespace, so no word is split; joined, they are ``text`` exactly.
    """
    piece = ""
    for match in _PIECES.finditer(text):
        piece += match.group()
        if len(piece) >= size:
            yield piece
            piece = ""
    if piece:
        yield piece
