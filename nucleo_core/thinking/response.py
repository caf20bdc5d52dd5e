"""`ThinkingResponse`: one accepted model answer, parsed into the envelope's fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from nucleo_core._frozen import quick_init
from nucleo_core.models.messages import Message, Usage
from nucleo_core.thinking.tool_call import ToolCall

if TYPE_CHECKING:
    from nucleo_core.models.catalog import ModelEntry
    from nucleo_core.models.request import ModelResponse

__all__ = ["ThinkingResponse"]

AnswerT = TypeVar("AnswerT")


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingResponse(Generic[AnswerT]):
    """The envelope of one accepted answer.

    Its fields are the envelope's (``final_answer``, ``answer``, ``tool_calls``,
    ``reasoning``) and what the exchange spent getting it.

    Attributes:
        final_answer: Whether this answer ends the objective (no tool calls pending).
        answer: The answer, validated against the declared output type; ``None`` unless final.
        tool_calls: Every tool use of the answer, resolved or carrying its error, in order.
        reasoning: The model's reasoning, where it gave any.
        response: The provider's response the envelope was parsed from.
        turns: The messages this exchange adds to the conversation, in order: any rejected
            answers with their correction turns, then the accepted answer.
        usage: Tokens spent over every attempt of the exchange.
        seat: The catalog entry the exchange was seated on, when a catalog seated it.
        corrections: How many correction turns were spent.
        escalations: How many times a truncated answer was retried with a larger budget.
    """

    final_answer: bool
    answer: AnswerT | None
    tool_calls: tuple[ToolCall, ...]
    reasoning: str
    response: ModelResponse
    turns: tuple[Message, ...] = ()
    usage: Usage = field(default_factory=Usage)
    seat: ModelEntry | None = None
    corrections: int = 0
    escalations: int = 0
