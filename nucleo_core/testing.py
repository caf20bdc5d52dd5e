"""Test support that ships with the library: a scripted model, for your tests and nucleo's own.

Example:
    >>> import asyncio
    >>> from nucleo_core.testing import ScriptedModel
    >>> from nucleo_core.models import ModelRequest
    >>> model = ScriptedModel(["Hello!"])
    >>> asyncio.run(model.complete(ModelRequest(model="scripted"))).text
    'Hello!'
    >>> len(model.requests)
    1
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, TypeAlias

from nucleo_core.errors import MisuseError
from nucleo_core.models.client import ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.messages import ContentBlock, StopReason, TextBlock, ToolUseBlock, Usage
from nucleo_core.models.request import ModelRequest, ModelResponse
from nucleo_core.models.seam import override_client

__all__ = [
    "ScriptExhausted",
    "Scripted",
    "ScriptedModel",
    "override_client",
    "text_response",
    "tool_use_response",
]

#: One scripted answer: a response, a text (an ``end_turn`` answer), an exception to raise, or a
#: function of the request returning one of those.
Scripted: TypeAlias = (
    "ModelResponse | str | BaseException | Callable[[ModelRequest], ModelResponse | str]"
)

_ids = itertools.count(1)


class ScriptExhausted(MisuseError):
    """A scripted model was asked for more answers than it was given."""


class ScriptedModel:
    """A `ModelClient` that answers from a script and records every request it receives.

    Give it a sequence of answers (consumed in order) or one function of the request (called
    for every request). Install it for code that looks clients up through a catalog with
    ``nucleo_core.testing.override_client(model)``.

    It streams too (`stream`): the answer's text in a few deltas, then the whole response, so
    a loop that streams (``Thinker.stream_text``) is tested on it as on a real adapter.

    Attributes:
        requests: Every request received, in order.
        streamed: For each request, in the same order, whether it was streamed.
    """

    def __init__(
        self,
        script: Iterable[Scripted] | Callable[[ModelRequest], ModelResponse | str] = (),
        *,
        model: str = "scripted",
    ) -> None:
        self.requests: list[ModelRequest] = []
        self.streamed: list[bool] = []
        self._model = model
        self._function: Callable[[ModelRequest], ModelResponse | str] | None = None
        self._queue: deque[Scripted] = deque()
        if callable(script):
            self._function = script
        else:
            self._queue.extend(script)

    def push(self, *answers: Scripted) -> None:
        """Append answers to the script."""
        self._queue.extend(answers)

    @property
    def remaining(self) -> int:
        """How many queued answers are left."""
        return len(self._queue)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Record ``request`` and answer with the next scripted answer.

        Raises:
            ScriptExhausted: The script has no answer left.
        """
        self.requests.append(request)
        self.streamed.append(False)
        return self._answer(request)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Record ``request``; yield the answer's text in a few deltas, then the response.

        A scripted exception is raised before the first event, as a server's refusal is.
        """
        self.requests.append(request)
        self.streamed.append(True)
        response = self._answer(request)
        text = response.text
        step = max(1, len(text) // 3)
        for start in range(0, len(text), step):
            yield TextDelta(text[start : start + step])
        yield ResponseComplete(response)

    async def aclose(self) -> None:
        """Nothing to release."""

    def _answer(self, request: ModelRequest) -> ModelResponse:
        if self._function is not None:
            answer: Scripted = self._function(request)
        elif self._queue:
            answer = self._queue.popleft()
        else:
            raise ScriptExhausted(
                f"ScriptedModel received request {len(self.requests)} but its script is empty; "
                "push() more answers"
            )
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer) and not isinstance(answer, ModelResponse):
            answer = answer(request)
        if isinstance(answer, str):
            return text_response(answer, model=self._model)
        return answer


def text_response(
    text: str, *, stop_reason: StopReason = StopReason.END_TURN, model: str = "scripted"
) -> ModelResponse:
    """A response holding one text block."""
    return ModelResponse(
        content=(TextBlock(text=text),),
        stop_reason=stop_reason,
        usage=Usage(input_tokens=1, output_tokens=max(1, len(text) // 4)),
        model=model,
    )


def tool_use_response(
    *calls: tuple[str, Mapping[str, Any] | str] | ToolUseBlock,
    text: str = "",
    model: str = "scripted",
) -> ModelResponse:
    """A ``tool_use`` response: each call a ``(name, input)`` pair (ids minted) or a block."""
    content: list[ContentBlock] = [TextBlock(text=text)] if text else []
    for call in calls:
        if isinstance(call, ToolUseBlock):
            content.append(call)
        else:
            name, arguments = call
            content.append(
                ToolUseBlock(id=f"toolu_scripted_{next(_ids)}", name=name, input=arguments)
            )
    return ModelResponse(content=tuple(content), stop_reason=StopReason.TOOL_USE, model=model)
