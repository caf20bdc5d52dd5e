"""A thinker's answer as it reaches its listeners: `ContentEvent`, deltas and answer chunks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nucleo_core.thinking.llm_call import LLMCall

__all__ = ["ContentEvent"]


@dataclass(frozen=True, slots=True)
class ContentEvent:
    """A piece of a thinker's answer, streamed to whoever listens.

    Two kinds of events reach the listeners:

    - **Deltas** (``delta=True``), only while `Thinker.stream_text` is on: the model's text as
      it arrives, in every turn (the text before a turn's tool calls too), and an empty
      ``done`` delta once a reply that showed text is over.
    - **Answers** (``delta=False``): the accepted answer, in chunks, the last one ``done``.
      What the deltas of the answer's own exchange already showed is left out of them (so
      with streaming the answer usually arrives as one empty ``done`` chunk): joined, the
      deltas of the answering reply and the answer's chunks are the answer exactly.

    Attributes:
        text: The text (for a typed answer, its JSON).
        done: Whether this is the final chunk of the answer (or, for a delta, of a reply).
        delta: Whether this is the model's text as it streams rather than the accepted answer.
    """

    text: str
    done: bool = False
    delta: bool = False


class _Streaming:
    """Sending a thinker's text to its listeners (see `ContentEvent`); mixed into `Thinker`."""

    listeners: list[Callable[[ContentEvent], None]]
    stream_text: bool
    _echo: str

    def emit(self, event: ContentEvent) -> None:
        """Send a content event to every listener.

        An answer event leaves out what the deltas of the last exchange already showed (see
        `ContentEvent`); an answer that says something else than they did is sent whole.
        """
        if not event.delta and self._echo:
            echo, text = self._echo, event.text
            common = min(len(echo), len(text))
            if echo[:common] == text[:common]:
                self._echo, text = echo[common:], text[common:]
            else:
                self._echo = ""  # another text: nothing of it was shown
            if event.done:
                self._echo = ""
            elif not text:
                return  # wholly shown already
            event = ContentEvent(text=text, done=event.done)
        for listener in list(self.listeners):
            listener(event)

    def text_sink(self) -> Callable[[str], None] | None:
        """Where an exchange passes its text as it streams (`LLMCall`'s ``on_text``).

        ``None`` (the requests are not streamed) unless `stream_text` is on and someone listens.
        """
        if not self.stream_text or not self.listeners:
            return None
        self._echo = ""
        return self._stream_delta

    def end_streamed_reply(self, call: LLMCall[Any]) -> None:
        """After an exchange: end its streamed text with a ``done`` delta, when it showed any."""
        self._echo = call.shown
        if call.shown:
            self.emit(ContentEvent(text="", done=True, delta=True))

    def _stream_delta(self, text: str) -> None:
        self.emit(ContentEvent(text=text, delta=True))
