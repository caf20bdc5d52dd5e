"""The neutral conversation types every model adapter translates to and from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypeAlias

from nucleo_core._frozen import quick_init

__all__ = [
    "ContentBlock",
    "Message",
    "ProviderBlock",
    "ReasoningBlock",
    "Role",
    "StopReason",
    "TextBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "Usage",
]

Role: TypeAlias = Literal["user", "assistant"]


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TextBlock:
    """Plain text from the user or the model."""

    text: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolUseBlock:
    """The model asks to call a tool.

    Attributes:
        id: The provider's id for this call; its result must answer to the same id.
        name: The tool name the model sent (not yet checked against any registry).
        input: The decoded JSON object, or the raw text when the provider sent text that is
            not a JSON object (OpenAI-compatible servers send arguments as a string).
    """

    id: str
    name: str
    input: Mapping[str, Any] | str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultBlock:
    """The result of one tool call, answering a `ToolUseBlock` by its id.

    Attributes:
        tool_use_id: The id of the call this answers.
        content: The result as text.
        is_error: Whether the call failed (the text then says why, for the model to correct).
    """

    tool_use_id: str
    content: str
    is_error: bool = False


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningBlock:
    """The model's reasoning, kept so it can be sent back where a provider requires it.

    Attributes:
        text: The reasoning text (empty when redacted).
        signature: The provider's integrity signature, sent back verbatim.
        redacted: Whether the provider redacted the reasoning (``data`` then holds it).
        data: Opaque redacted reasoning, sent back verbatim.
    """

    text: str
    signature: str | None = None
    redacted: bool = False
    data: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderBlock:
    """Content only one provider reads, kept so that it is sent back to that provider verbatim.

    Anthropic's server-tool blocks are such content: the ``server_tool_use`` of its tool search
    and the ``tool_search_tool_result`` naming the deferred tools it loaded must come back in
    the conversation, or the tools they loaded are unloaded again. Nothing of nucleo acts on
    it (no tool runs for it); the adapter of another provider leaves it out.

    Attributes:
        provider: The provider that wrote it and is sent it back (``"anthropic"``).
        data: The block as the provider's API wrote it (a JSON object, its ``type`` included).
    """

    provider: str
    data: Mapping[str, Any]

    @property
    def kind(self) -> str:
        """The provider's name for the block (its ``type``), or ``""``."""
        kind = self.data.get("type")
        return kind if isinstance(kind, str) else ""


ContentBlock: TypeAlias = (
    TextBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock | ProviderBlock
)


class _ContentReadings:
    """Mixin of `Message` and `ModelResponse`: what their ``content`` says, read two ways."""

    __slots__ = ()

    content: tuple[ContentBlock, ...]

    @property
    def text(self) -> str:
        """The concatenated text blocks of the content."""
        return "".join(block.text for block in self.content if isinstance(block, TextBlock))

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        """The tool-use blocks of the content, in order."""
        return tuple(block for block in self.content if isinstance(block, ToolUseBlock))


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Message(_ContentReadings):
    """One turn of a conversation: who spoke and the blocks they said."""

    role: Role
    content: tuple[ContentBlock, ...]

    @classmethod
    def user(cls, text: str) -> Message:
        """A user turn holding one text block."""
        return cls(role="user", content=(TextBlock(text=text),))

    @classmethod
    def assistant(cls, text: str) -> Message:
        """An assistant turn holding one text block."""
        return cls(role="assistant", content=(TextBlock(text=text),))


class StopReason(StrEnum):
    """Why the model stopped, in the neutral vocabulary.

    ``MAX_TOKENS`` is truncation (Anthropic ``max_tokens``, OpenAI ``length``); ``REFUSAL`` is a
    refusal the provider reported as such (the text says what the model declined).
    """

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    REFUSAL = "refusal"
    OTHER = "other"


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Token counts of one exchange, in the same sense for every provider.

    Attributes:
        input_tokens: Every token the model read, cached ones included.
        output_tokens: Every token the model wrote, reasoning included.
        cache_read_tokens: Input tokens served from the provider's prompt cache.
        cache_write_tokens: Input tokens written to the prompt cache.
        extra: Provider-specific counts (``reasoning_tokens``, ...), summed key by key when
            exchanges are added up.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __add__(self, other: Usage) -> Usage:
        """The counts of two exchanges added up; numeric ``extra`` counts summed key by key."""
        extra = dict(self.extra)
        for key, value in other.extra.items():
            previous = extra.get(key)
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            if numeric and isinstance(previous, int | float) and not isinstance(previous, bool):
                extra[key] = previous + value
            elif numeric and previous is None:
                extra[key] = value
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            extra=extra,
        )
