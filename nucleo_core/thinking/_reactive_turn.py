"""What a `ReactiveThinker` turn did (`TurnOutcome`), and the running turn's bookkeeping."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.conversations.marker import Marker
    from nucleo_core.thinking.execution import ToolFailure

__all__ = ["TurnOutcome"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnOutcome:
    """What one turn did: its answer, or why it ended without one.

    Attributes:
        conversation_id: The conversation the turn ran in.
        answer: The turn's final answer; ``None`` when it ended abnormally.
        reason: The reason recorded for the model when it ended abnormally, else ``None``.
        error: The exception that ended it abnormally (re-raised to the caller), else ``None``.
        removed: How many messages the rollback removed.
        markers: The markers the turn recorded: the interrupted previous turn's, if it found
            one, then its own abnormal end's.
        injected: The inbox messages injected into the conversation, in order.
        closing_turn: Whether the turn reached its closing turn.
        tool_failures: The turn's tool calls that failed (raised or timed out), in order, with
            their exceptions; the same as the thinker's ``last_tool_failures``.
    """

    conversation_id: str
    answer: str | None
    reason: str | None = None
    error: BaseException | None = None
    removed: int = 0
    markers: tuple[Marker, ...] = ()
    injected: tuple[str, ...] = ()
    closing_turn: bool = False
    tool_failures: tuple[ToolFailure, ...] = ()

    @property
    def answered(self) -> bool:
        """Whether the turn ended with a final answer."""
        return self.answer is not None


@dataclass(slots=True)
class _Turn:
    """The running turn's bookkeeping."""

    context: ConversationContext
    start: int
    markers: list[Marker] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)
    calls: int = 0
    closing: bool = False
    reached_closing: bool = False
