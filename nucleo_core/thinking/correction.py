"""`ResponseCorrection`: the bounded budget of correction turns of one exchange."""

from __future__ import annotations

from dataclasses import dataclass

from nucleo_core.errors import AnswerRefused, MisuseError
from nucleo_core.models.messages import ContentBlock, Message, TextBlock, ToolResultBlock
from nucleo_core.models.request import ModelResponse

__all__ = ["ResponseCorrection"]


@dataclass(frozen=True, slots=True)
class ResponseCorrection:
    """How many times one exchange may send a refused answer back to the model.

    A refused answer goes back as a correction turn: a user turn answering each of the refused
    answer's tool uses with an error result (so every ``tool_use`` keeps its ``tool_result``),
    followed by the refusal's message. When the budget is spent the exchange raises
    ``ResponseParseError`` or ``ResponseValidationError``.

    Attributes:
        budget: Correction turns allowed per exchange (0 disables corrections).
    """

    budget: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 0:
            raise MisuseError("ResponseCorrection.budget must be an integer >= 0")

    def turn(self, refused: ModelResponse, refusal: AnswerRefused) -> Message:
        """The correction turn that answers ``refused`` with ``refusal``'s message."""
        content: list[ContentBlock] = [
            ToolResultBlock(
                tool_use_id=use.id,
                content="Not run: the reply that called this tool was refused; see below.",
                is_error=True,
            )
            for use in refused.tool_uses
        ]
        content.append(TextBlock(text=str(refusal)))
        return Message(role="user", content=tuple(content))
