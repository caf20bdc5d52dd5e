"""The text of one exchange as it streams to its listener, never passed on twice."""

from __future__ import annotations

from collections.abc import Callable

__all__: list[str] = []


class _Shown:
    """The text of one exchange passed on as it streams, never the same text twice.

    Each attempt (the first request, then each escalation or correction) streams its answer
    from its start; only what goes beyond the text already shown is passed on, and an attempt
    that says something else than what was shown passes nothing more on.
    """

    def __init__(self, sink: Callable[[str], None]) -> None:
        self._sink = sink
        self.text = ""
        self._attempt = ""
        self._diverged = False

    def attempt(self) -> None:
        """A new attempt begins: its text is compared with what was shown from its start."""
        self._attempt = ""
        self._diverged = False

    def add(self, piece: str) -> None:
        """A piece of the attempt's text: passed on where it is new."""
        if self._diverged or not piece:
            return
        start = len(self._attempt)
        self._attempt += piece
        overlap = self.text[start : start + len(piece)]
        if not piece.startswith(overlap):
            self._diverged = True
            return
        new = piece[len(overlap) :]
        if new:
            self.text += new
            self._sink(new)
