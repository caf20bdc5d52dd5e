"""`Inbox`: messages that arrive while a reactive turn runs, and the accept-or-refuse handshake.

A chat turn can take a while (several model calls, tool runs). A message the user sends
meanwhile is *offered* to the running thinker's inbox, which answers at once:

- **accepted** (``offer`` returns ``True``) while the turn is in progress and still taking
  messages: the message is injected into the conversation as a user message at the next turn
  boundary, before the next model call, and the turn does not end before the model has read
  it. Accepted messages are injected in the order they were accepted, each exactly once.
- **refused** (``offer`` returns ``False``) when no turn is in progress, or when the turn is
  closing (its closing turn at the iteration cap, or its final answer was accepted, or it is
  ending abnormally): the message will not be read by this turn, so the sender should send it
  as the next turn. `Inbox.submit` returns the same verdict with the reason.

The inbox is safe to use from any thread and any task: every operation takes one lock and
never blocks on anything else.

The thinker's side (`open`, `drain`, `settle`, `close`, `stop`) is called by `ReactiveThinker`;
senders only `offer` / `submit`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "CLOSING_TURN",
    "ENDING_ABNORMALLY",
    "FINISHING",
    "NOT_RUNNING",
    "Inbox",
    "InboxReply",
    "InboxState",
]

#: Why an inbox refuses when no turn is in progress.
NOT_RUNNING = "no turn is in progress; send the message as a new turn"
#: Why an inbox refuses during the closing turn at the iteration cap.
CLOSING_TURN = (
    "the turn is in its closing turn: the model is writing its final answer and reads no new "
    "messages; send the message as the next turn"
)
#: Why an inbox refuses once the turn's final answer was accepted.
FINISHING = "the turn is ending with its final answer; send the message as the next turn"
#: Why an inbox refuses while a turn ends abnormally.
ENDING_ABNORMALLY = "the turn is ending without an answer; send the message as the next turn"


class InboxState(StrEnum):
    """Where an inbox is in its thinker's turn."""

    #: No turn is in progress: every offer is refused.
    IDLE = "idle"
    #: A turn is in progress and takes messages: every offer is accepted.
    OPEN = "open"
    #: The turn is ending (closing turn, final answer, abnormal end): every offer is refused.
    CLOSING = "closing"


@dataclass(frozen=True, slots=True)
class InboxReply:
    """The inbox's answer to one offered message.

    Truthy when the message was accepted.

    Attributes:
        accepted: Whether the running turn will read the message.
        reason: Why it was refused, written for the sender; ``None`` when accepted.
    """

    accepted: bool
    reason: str | None = None

    def __bool__(self) -> bool:
        return self.accepted


class Inbox:
    """The accept-or-refuse handshake for messages arriving while a turn runs.

    Example:
        >>> inbox = Inbox()
        >>> inbox.offer("are you there?")
        False
        >>> inbox.open()
        >>> inbox.offer("also check the tests")
        True
        >>> inbox.drain()
        ['also check the tests']
    """

    __slots__ = ("_lock", "_pending", "_reason", "_state")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._state = InboxState.IDLE
        self._reason: str | None = NOT_RUNNING

    # -- the sender's side ----------------------------------------------------------------------

    def offer(self, text: str) -> bool:
        """Offer ``text`` to the running turn: ``True`` when accepted (see `submit`)."""
        return self.submit(text).accepted

    def submit(self, text: str) -> InboxReply:
        """Offer ``text`` to the running turn, and say whether it was accepted and if not, why.

        An accepted message is injected as a user message before the turn's next model call.

        Raises:
            TypeError: ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"an inbox takes message text (str), not {type(text).__name__}")
        if not text.strip():
            return InboxReply(False, "the message is empty")
        with self._lock:
            if self._state is not InboxState.OPEN:
                return InboxReply(False, self._reason)
            self._pending.append(text)
            return InboxReply(True)

    @property
    def state(self) -> InboxState:
        """Where the inbox is in its thinker's turn."""
        return self._state

    @property
    def reason(self) -> str | None:
        """Why the inbox refuses messages now, or ``None`` while it accepts them."""
        with self._lock:
            return None if self._state is InboxState.OPEN else self._reason

    @property
    def pending(self) -> int:
        """How many accepted messages wait to be injected."""
        with self._lock:
            return len(self._pending)

    # -- the thinker's side ---------------------------------------------------------------------

    def open(self) -> None:
        """Start accepting messages: a turn begins."""
        with self._lock:
            self._state = InboxState.OPEN
            self._reason = None

    def drain(self) -> list[str]:
        """Take the accepted messages not injected yet, oldest first (each is returned once)."""
        with self._lock:
            taken, self._pending = self._pending, []
            return taken

    def settle(self) -> bool:
        """At a final answer: close with `FINISHING` if nothing waits, else keep accepting.

        One atomic step, so a message is either accepted before the answer is settled (and
        this returns ``False``: the turn must go on and inject it) or refused after.

        Returns:
            Whether the turn may end with this answer.
        """
        with self._lock:
            if self._pending:
                return False
            if self._state is InboxState.OPEN:
                self._state, self._reason = InboxState.CLOSING, FINISHING
            return True

    def close(self, reason: str) -> list[str]:
        """Refuse every later message with ``reason``; take those accepted and not injected.

        One atomic step: every message is either among those returned or refused.
        """
        with self._lock:
            self._state, self._reason = InboxState.CLOSING, reason
            taken, self._pending = self._pending, []
            return taken

    def stop(self) -> list[str]:
        """The turn is over: refuse with `NOT_RUNNING`; return anything left (normally none)."""
        with self._lock:
            self._state, self._reason = InboxState.IDLE, NOT_RUNNING
            taken, self._pending = self._pending, []
            return taken

    def __repr__(self) -> str:
        return f"<Inbox {self._state.value}, {len(self._pending)} pending>"
