"""The chat completion request an OpenAI-compatible server is sent for a `ModelRequest`.

How the neutral conversation is sent, and where chat completions cannot carry it as it is, is
told in `nucleo_core.models.openai`'s docstring.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

from nucleo_core.models._json_depth import render
from nucleo_core.models.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from nucleo_core.models.request import ModelRequest
from nucleo_core.tools.render import to_openai

if TYPE_CHECKING:
    from openai.types.chat import (
        ChatCompletionMessageParam,
        ChatCompletionToolChoiceOptionParam,
        ChatCompletionToolUnionParam,
    )
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase

__all__ = ["MaxTokensParameter", "request_body"]

#: Which request field carries the answer budget.
MaxTokensParameter: TypeAlias = Literal["max_tokens", "max_completion_tokens"]


def request_body(
    request: ModelRequest, max_tokens_parameter: MaxTokensParameter
) -> CompletionCreateParamsBase:
    """The body of the chat completion request for ``request``, the budget in that field."""
    body: CompletionCreateParamsBase = {"model": request.model, "messages": _messages(request)}
    if request.tools:
        body["tools"] = cast("list[ChatCompletionToolUnionParam]", to_openai(request.tools))
        body["tool_choice"] = _tool_choice(request.tool_choice)
    if max_tokens_parameter == "max_tokens":
        body["max_tokens"] = request.max_tokens
    else:
        body["max_completion_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.stop_sequences:
        body["stop"] = list(request.stop_sequences)
    return body


def _messages(request: ModelRequest) -> list[ChatCompletionMessageParam]:
    sent: list[dict[str, Any]] = []
    if request.system:
        sent.append({"role": "system", "content": request.system})
    for message in request.messages:
        sent.extend(_turn(message))
    return cast("list[ChatCompletionMessageParam]", sent)


def _turn(message: Message) -> list[dict[str, Any]]:
    """One neutral turn as chat-completion messages: tool results first, then the turn."""
    sent: list[dict[str, Any]] = [
        {
            "role": "tool",
            "tool_call_id": block.tool_use_id,
            "content": f"Error: {block.content}" if block.is_error else block.content,
        }
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]
    texts = [block.text for block in message.content if isinstance(block, TextBlock)]
    if message.role == "user":
        if texts:
            sent.append({"role": "user", "content": "\n\n".join(texts)})
        return sent
    calls = [
        {
            "id": block.id,
            "type": "function",
            "function": {"name": block.name, "arguments": _encode(block.input)},
        }
        for block in message.content
        if isinstance(block, ToolUseBlock)
    ]
    # "" even for a turn of tool calls alone: the specification allows null there, but some
    # servers (llama-cpp-python's) answer it with a 500, and every server takes "".
    assistant: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        assistant["tool_calls"] = calls
    sent.append(assistant)
    return sent


def _encode(given: Mapping[str, Any] | str) -> str:
    if isinstance(given, str):
        return given
    # Never raises: an input nested too deep to encode is sent as its cut form.
    return render(given)


def _tool_choice(choice: str) -> ChatCompletionToolChoiceOptionParam:
    if choice == "auto":
        return "auto"
    if choice == "none":
        return "none"
    if choice == "any":
        return "required"
    return {"type": "function", "function": {"name": choice}}
