"""`ModelRequest` and `ModelResponse`: one exchange with a model, in neutral terms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from nucleo_core._frozen import quick_init
from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    StopReason,
    Usage,
    _ContentReadings,
)
from nucleo_core.tools.spec import ToolSpec

__all__ = ["ModelRequest", "ModelResponse", "ToolChoice"]

#: ``"auto"``: the model decides; ``"any"``: it must call some tool; ``"none"``: it may not call
#: a tool; any other string: it must call the tool of that name.
ToolChoice: TypeAlias = Literal["auto", "any", "none"] | str


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    """What is sent to a model in one exchange.

    Attributes:
        model: The provider's model id (the part of a catalog entry after its provider prefix).
        system: The system text.
        messages: The conversation so far, oldest first.
        tools: The tool definitions the model may call, in the registry's stable order.
        tool_choice: Whether and which tool the model must call.
        max_tokens: The answer budget.
        temperature: Sampling temperature, or ``None`` for the provider's default.
        stop_sequences: Strings that end the answer early.
    """

    model: str
    system: str = ""
    messages: tuple[Message, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice = "auto"
    max_tokens: int = 1024
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = field(default_factory=tuple)


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse(_ContentReadings):
    """What a model answered in one exchange.

    Attributes:
        content: The answer's blocks, in order (text, tool uses, reasoning).
        stop_reason: Why the model stopped, in the neutral vocabulary.
        usage: Token counts.
        model: The model id the provider says answered.
        raw_stop_reason: The provider's own stop reason, for logs.
    """

    content: tuple[ContentBlock, ...]
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    raw_stop_reason: str | None = None

    def as_message(self) -> Message:
        """The answer as an assistant turn, to append to the conversation."""
        return Message(role="assistant", content=self.content)
