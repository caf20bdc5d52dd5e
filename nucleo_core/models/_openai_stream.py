"""A streamed chat completion, gathered chunk by chunk into one answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nucleo_core.models._lenient import field_of, text_of
from nucleo_core.models._openai_reply import Answer, ToolCallDraft, reasoning_text

__all__ = ["StreamDraft"]


@dataclass(slots=True)
class StreamDraft:
    """A streamed answer, gathered chunk by chunk."""

    received: bool = False
    reasoning: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    tool_calls: list[ToolCallDraft] = field(default_factory=list)
    by_index: dict[int, ToolCallDraft] = field(default_factory=dict)
    finish_reason: object = None
    model: object = None
    usage: object = None
    #: How many chunks carried some of the answer: about one token each, or more tokens.
    pieces: int = 0

    def add(self, chunk: object) -> str:
        """Take in one chunk; return its answer text, if it had any."""
        self.received = True
        if field_of(chunk, "model"):
            self.model = field_of(chunk, "model")
        if field_of(chunk, "usage") is not None:
            # With include_usage the last chunk has usage and no choices; some servers put
            # usage on every chunk, and the last one counts.
            self.usage = field_of(chunk, "usage")
        choices = field_of(chunk, "choices")
        if not isinstance(choices, list):
            return ""
        text = ""
        carried = False
        for choice in choices:
            if field_of(choice, "index") not in (0, None):
                continue  # only one answer is asked for; ignore any other
            if field_of(choice, "finish_reason") is not None:
                self.finish_reason = field_of(choice, "finish_reason")
            delta = field_of(choice, "delta")
            if delta is None:
                continue
            reasoning, refusal = reasoning_text(delta), text_of(field_of(delta, "refusal"))
            content = text_of(field_of(delta, "content"))
            self.reasoning.append(reasoning)
            self.refusal.append(refusal)
            text += content
            calls = field_of(delta, "tool_calls")
            fragments = calls if isinstance(calls, list) else []
            for position, fragment in enumerate(fragments):
                self._add_tool_call(position, fragment)
            if reasoning or refusal or content or fragments:
                carried = True
        self.text.append(text)
        self.pieces += carried
        return text

    def _add_tool_call(self, position: int, fragment: object) -> None:
        index = field_of(fragment, "index")
        key = index if isinstance(index, int) else position
        call_id = text_of(field_of(fragment, "id"))
        draft = self.by_index.get(key)
        if draft is None or (call_id and draft.id and call_id != draft.id):
            # A new id at a known index is a new call: some servers number every call 0.
            draft = ToolCallDraft(id=call_id)
            self.by_index[key] = draft
            self.tool_calls.append(draft)
        elif call_id and not draft.id:
            draft.id = call_id
        function = field_of(fragment, "function")
        name = text_of(field_of(function, "name"))
        if name and name != draft.name:
            # Names arrive whole in one chunk; a server that repeats it must not double it.
            draft.name = name if not draft.name else draft.name + name
        arguments = field_of(function, "arguments")
        if isinstance(arguments, str):
            draft.arguments.append(arguments)
        elif isinstance(arguments, Mapping):
            draft.decoded = arguments

    def answer(self) -> Answer:
        """The gathered answer."""
        return Answer(
            reasoning="".join(self.reasoning),
            text="".join(self.text),
            refusal="".join(self.refusal),
            tool_calls=self.tool_calls,
            finish_reason=self.finish_reason,
            model=self.model,
            usage=self.usage,
        )
