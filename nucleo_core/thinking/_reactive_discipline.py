"""The abnormal-end discipline of a `ReactiveThinker` turn (see `nucleo_core.thinking.reactive`).

However a turn ends without an answer, or a dead process left one in progress, the
conversation is rolled back to its last user utterance and a marker says why, for the model
that resumes it; what the inbox had accepted is kept, answered by a marker too.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, ClassVar

from nucleo_core.conversations.marker import ABNORMAL_END
from nucleo_core.errors import ModelError, ResponseError, ThinkerIterationLimit
from nucleo_core.thinking._reactive_turn import _Turn
from nucleo_core.thinking.inbox import ENDING_ABNORMALLY, Inbox

if TYPE_CHECKING:
    from collections.abc import Sequence

    from nucleo_core.conversations import ConversationContext

__all__ = ["INTERRUPTED", "TURN_IN_PROGRESS"]

logger = logging.getLogger("nucleo.thinking")

#: The conversation metadata key a turn in progress sets (``{"started_at": <message count>}``)
#: and clears (``None``) when it ends, so the next turn can tell that a process died mid-turn.
TURN_IN_PROGRESS = "nucleo.reactive.turn_in_progress"

#: The reason recorded when a turn is found interrupted (its process died mid-turn).
INTERRUPTED = "the turn was interrupted: the process running it stopped before an answer was given"


class _Discipline:
    """How a turn that ends without an answer is recorded; mixed into `ReactiveThinker`."""

    inbox: Inbox
    max_iterations: ClassVar[int]

    if TYPE_CHECKING:  # what the discipline needs of the thinker it is mixed into

        def inject(self, context: ConversationContext, texts: Sequence[str]) -> None: ...

    def abnormal_end_reason(self, error: BaseException) -> str:
        """Why the turn ended without an answer, written for the model that resumes it.

        It names the kind of failure, never the exception's message (which may quote a secret
        or the model's own input).
        """
        name = type(error).__name__
        if isinstance(error, asyncio.CancelledError):
            return "the turn was cancelled before an answer was given"
        if isinstance(error, KeyboardInterrupt | SystemExit):
            return "the program was stopped before an answer was given"
        if isinstance(error, ThinkerIterationLimit):
            return (
                f"no final answer was reached within {self.max_iterations} turns and a closing turn"
            )
        if isinstance(error, ModelError):
            return f"the model provider failed ({name}) before an answer was given"
        if isinstance(error, ResponseError):
            return (
                f"the model's answer could not be read after {error.attempts} attempt(s) ({name})"
            )
        return f"an internal error ({name}) stopped the turn before an answer was given"

    def _end_abnormally(self, turn: _Turn, error: BaseException, reason: str) -> int:
        """Roll back, record the marker, keep what the inbox accepted; never raise."""
        context = turn.context
        leftovers = self.inbox.close(ENDING_ABNORMALLY)
        removed = 0
        try:
            if len(context) > turn.start:  # the question is in: roll this turn back to it
                removed = context.rollback_to_last_user_utterance(reason)
                turn.markers.append(context.markers[-1])
            if leftovers:  # accepted, so kept: after the rollback, and answered by a marker too
                self.inject(context, leftovers)
                turn.markers.append(context.record_marker(ABNORMAL_END, reason))
            _clear_mark(context)
        except Exception as cleanup:  # the store failed too: keep the original error
            logger.exception("could not record the abnormal end of conversation %s", context.id)
            error.add_note(f"nucleo: the abnormal end could not be recorded ({cleanup!r})")
        logger.warning(
            "turn of conversation %s ended abnormally (%s): %s; %d message(s) rolled back",
            context.id,
            type(error).__name__,
            reason,
            removed,
        )
        return removed

    def _recover_interrupted(self, turn: _Turn) -> None:
        """Apply the discipline to a turn a dead process left in progress, if there is one."""
        context = turn.context
        mark = context.metadata.get(TURN_IN_PROGRESS)
        if not isinstance(mark, dict):
            return
        started_at = mark.get("started_at")
        grew = isinstance(started_at, int) and len(context) > started_at
        if grew and not _answered_or_marked(context):
            context.rollback_to_last_user_utterance(INTERRUPTED)
            turn.markers.append(context.markers[-1])
            logger.warning(
                "conversation %s: an interrupted turn was rolled back to its question", context.id
            )
        context.set_metadata(TURN_IN_PROGRESS, None)


def _clear_mark(context: ConversationContext) -> None:
    """Clear the turn-in-progress mark; a failure is logged (the next turn copes with the mark)."""
    try:
        context.set_metadata(TURN_IN_PROGRESS, None)
    except Exception:
        logger.exception("could not clear the turn mark of conversation %s", context.id)


def _answered_or_marked(context: ConversationContext) -> bool:
    """Whether the conversation ends with a final answer, or with a marker after its end."""
    messages = context.messages
    if any(marker.position == len(messages) for marker in context.markers):
        return True
    last = messages[-1] if messages else None
    return last is not None and last.role == "assistant" and not last.tool_uses
