"""`ThinkingResponseHandler`: the answer-shape boundary between a model and a thinker."""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from nucleo_core.errors import AnswerRefused, InvalidToolInput, UnknownTool
from nucleo_core.hub.call_door import UnusableToolName
from nucleo_core.models._json_depth import MAX_JSON_DEPTH, exceeds, loads, overflows, tool_input
from nucleo_core.models.messages import ReasoningBlock, TextBlock, ToolUseBlock, Usage
from nucleo_core.thinking.response import ThinkingResponse
from nucleo_core.thinking.tool_call import ToolCall

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from nucleo_core.models.request import ModelResponse
    from nucleo_core.tools.registry import ToolRegistry

__all__ = ["ENVELOPE_FIELDS", "ThinkingResponseHandler"]

AnswerT = TypeVar("AnswerT")

#: The JSON envelope a model without native tool calling answers in.
ENVELOPE_FIELDS = ("final_answer", "answer", "tool_calls", "reasoning")

_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_minted = itertools.count(1)
_MINT_PREFIX = f"call_{os.getpid():x}_"

#: What the model reads when its tool input nests too deep (never the input itself).
_TOO_DEEP = (
    f"input: nests objects and arrays more than {MAX_JSON_DEPTH} levels deep; send a JSON "
    f"object nested at most {MAX_JSON_DEPTH} levels deep"
)
_NOT_AN_OBJECT = "input: must be a JSON object"
#: A JSON value of these types holds nothing nested: an object of them is one level deep.
_SCALARS = frozenset({str, int, float, bool, type(None)})
#: The usage of a response the handler parsed (none: the exchange adds up what it spent). One
#: immutable instance, equal to ``Usage()``, rather than a new one per answer.
_NO_USAGE = Usage(extra=MappingProxyType({}))


class ThinkingResponseHandler(Generic[AnswerT]):
    """Parses a model's response into a `ThinkingResponse`, or refuses it correctably.

    - Native tool-use blocks become `ToolCall`s; so do the ``tool_calls`` of a JSON envelope
      in the text (for models without native tool calling), with minted ids.
    - Every tool use is kept: one whose name is not a string naming an available tool, or
      whose input is not valid JSON, nests deeper than `MAX_JSON_DEPTH` levels or does not fit
      the schema, carries its error, so no tool-use id is ever orphaned. Depth is checked
      before any parsing or validation recurses into the input.
    - A final answer is validated against the declared output type; one it cannot hold is
      refused with `AnswerRefused`, whose message is composed from the answer schema and the
      failing field, never from the payload.

    Args:
        output_type: The declared answer type (``str`` by default).
        tools: The registry tool names resolve through (``available``: what a call may reach).
        native_tools: Whether the model calls tools natively; when ``False`` the text must be
            the JSON envelope.
    """

    def __init__(
        self,
        output_type: type[AnswerT] | Any = str,
        *,
        tools: ToolRegistry | None = None,
        native_tools: bool = True,
    ) -> None:
        self.output_type = output_type
        self.tools = tools
        self.native_tools = native_tools
        self._adapter: TypeAdapter[Any] | None = None
        self._schema: dict[str, Any] | None = None

    @property
    def answer_schema(self) -> dict[str, Any]:
        """The JSON schema of the declared output type."""
        if self._schema is None:
            self._schema = self._type_adapter().json_schema()
        return self._schema

    def handle(self, response: ModelResponse) -> ThinkingResponse[AnswerT]:
        """Parse ``response``.

        Raises:
            AnswerRefused: The answer cannot be parsed (``kind="parse"``) or does not fit the
                declared type (``kind="validation"``); send its message back as a correction.
        """
        reasoning: list[str] = []
        calls: list[ToolCall] = []
        texts: list[str] = []
        resolve = self._resolve
        # One pass over the blocks (what ``response.text`` and ``response.tool_uses`` each walk).
        for block in response.content:
            if isinstance(block, ToolUseBlock):
                calls.append(resolve(block.id, block.name, block.input, minted=False))
            elif isinstance(block, TextBlock):
                texts.append(block.text)
            elif isinstance(block, ReasoningBlock) and block.text:
                reasoning.append(block.text)
        text = "".join(texts).strip() if texts else ""
        envelope = (
            self._envelope(text, required=not self.native_tools and not calls)
            if text or not self.native_tools
            else None
        )
        if envelope is not None:
            return self._from_envelope(envelope, calls, reasoning, response)
        if calls:
            return ThinkingResponse(
                final_answer=False,
                answer=None,
                tool_calls=tuple(calls),
                reasoning="\n".join(reasoning) if reasoning else "",
                response=response,
                usage=_NO_USAGE,
            )
        return ThinkingResponse(
            final_answer=True,
            answer=self._validate_answer(text, from_text=True),
            tool_calls=(),
            reasoning="\n".join(reasoning),
            response=response,
            usage=_NO_USAGE,
        )

    # -- tool calls ---------------------------------------------------------------------------

    def _resolve(
        self, call_id: str, name: object, raw: Mapping[str, Any] | str | object, *, minted: bool
    ) -> ToolCall:
        shown_name = name if isinstance(name, str) else ""
        raw_input: Mapping[str, Any] | str
        problem: str | None
        if type(raw) is dict and _SCALARS.issuperset(map(type, raw.values())):
            # The common case, a decoded object of plain values: one level deep, no scan.
            raw_input, problem = raw, None
        else:
            # Measured without recursion, before anything (pydantic, jsonschema, repr) recurses.
            too_deep = overflows(raw) is not None if isinstance(raw, str) else exceeds(raw)
            usable = isinstance(raw, Mapping | str)
            raw_input = raw if usable else ""  # type: ignore[assignment]  # usable: it is one
            if too_deep:
                raw_input = tool_input(raw)  # the bounded cut form: safe to keep and render
            problem = _TOO_DEEP if too_deep else None if usable else _NOT_AN_OBJECT
        registry = self.tools
        provider = registry.available(shown_name) if registry is not None and shown_name else None
        if provider is None:
            # Listed only for a call that needs the names: a resolved call does not pay for it.
            available = registry.available_names() if registry is not None else []
            return ToolCall(
                id=call_id,
                name=shown_name,
                raw_input=raw_input,
                error=UnknownTool(available) if shown_name else UnusableToolName(available),
                input_problem=problem,
                minted_id=minted,
            )
        if problem is not None:
            return ToolCall(
                id=call_id,
                name=shown_name,
                raw_input=raw_input,
                provider=provider,
                error=InvalidToolInput(provider.name, [problem]),
                input_problem=problem,
                minted_id=minted,
            )
        return ToolCall.parsed(
            id=call_id,
            name=shown_name,
            raw_input=raw_input,
            provider=provider,
            minted_id=minted,
        )

    # -- the envelope -------------------------------------------------------------------------

    def _envelope(self, text: str, *, required: bool) -> Mapping[str, Any] | None:
        """The envelope object in ``text``; ``None`` when there is none and none is required."""
        # Only an object can be the envelope: text that cannot start one is not decoded.
        decoded = _decode_json(text) if text[:1] in ("{", "`") else _NOT_JSON
        if isinstance(decoded, Mapping) and "final_answer" in decoded:
            return decoded
        if not required:
            return None
        raise AnswerRefused(
            "parse",
            "Your reply could not be parsed. Reply with exactly one JSON object with the fields "
            '"final_answer" (boolean), "answer" (your answer when final_answer is true, matching '
            'the answer schema), "tool_calls" (a list of {"name": string, "input": object}) and '
            '"reasoning" (string). Answer schema: ' + json.dumps(self.answer_schema),
            ["input: is not the JSON envelope"],
        )

    def _from_envelope(
        self,
        envelope: Mapping[str, Any],
        calls: list[ToolCall],
        reasoning: list[str],
        response: ModelResponse,
    ) -> ThinkingResponse[AnswerT]:
        given_reasoning = envelope.get("reasoning")
        if isinstance(given_reasoning, str) and given_reasoning:
            reasoning.append(given_reasoning)
        entries = envelope.get("tool_calls") or []
        if not isinstance(entries, list):
            raise AnswerRefused(
                "validation",
                'The field "tool_calls" must be a list of {"name": string, "input": object}.',
                ["tool_calls: expected array"],
            )
        for entry in entries:
            call_id = _mint_id()
            if isinstance(entry, Mapping):
                name = entry.get("name")
                raw = entry.get("input", entry.get("arguments", {}))
                calls.append(self._resolve(call_id, name, raw, minted=True))
            else:
                calls.append(self._resolve(call_id, None, "", minted=True))
        final = envelope.get("final_answer")
        if not isinstance(final, bool):
            raise AnswerRefused(
                "validation",
                'The field "final_answer" must be true or false.',
                ["final_answer: expected boolean"],
            )
        if calls or not final:
            if not calls:
                raise AnswerRefused(
                    "validation",
                    'Your reply set "final_answer" to false but called no tool: call a tool in '
                    '"tool_calls", or set "final_answer" to true and give the "answer".',
                    ["tool_calls: is empty while final_answer is false"],
                )
            return ThinkingResponse(
                final_answer=False,
                answer=None,
                tool_calls=tuple(calls),
                reasoning="\n".join(reasoning),
                response=response,
                usage=_NO_USAGE,
            )
        if "answer" not in envelope:
            raise AnswerRefused(
                "validation",
                'Your reply set "final_answer" to true but has no "answer" field. Answer schema: '
                + json.dumps(self.answer_schema),
                ["answer: is required"],
            )
        return ThinkingResponse(
            final_answer=True,
            answer=self._validate_answer(envelope["answer"], from_text=False),
            tool_calls=(),
            reasoning="\n".join(reasoning),
            response=response,
            usage=_NO_USAGE,
        )

    # -- the answer ---------------------------------------------------------------------------

    def _validate_answer(self, value: Any, *, from_text: bool) -> AnswerT:
        if self.output_type is str:
            if isinstance(value, str) and value.strip():
                return value  # type: ignore[return-value]  # output_type is str here
            raise AnswerRefused(
                "validation",
                "Your answer is empty or not text: answer with the text itself.",
                ["answer: expected a non-empty string"],
            )
        if from_text:
            decoded = _decode_json(value) if isinstance(value, str) else _NOT_JSON
            if decoded is _NOT_JSON:
                raise AnswerRefused(
                    "parse",
                    "Your answer could not be parsed as JSON. Answer with one JSON value matching "
                    "this schema: " + json.dumps(self.answer_schema),
                    ["answer: is not valid JSON"],
                )
            value = decoded
        from pydantic import ValidationError

        from nucleo_core.tools._input_errors import pydantic_problems

        try:
            validated: AnswerT = self._type_adapter().validate_python(value)
        except ValidationError as exc:
            problems = pydantic_problems(exc, self.answer_schema, root="answer")
            raise AnswerRefused(
                "validation",
                "Your answer does not fit the declared answer type: "
                + "; ".join(problems)
                + ". Answer again with a value matching this schema: "
                + json.dumps(self.answer_schema),
                problems,
            ) from exc
        return validated

    def _type_adapter(self) -> TypeAdapter[Any]:
        if self._adapter is None:
            from pydantic import TypeAdapter

            self._adapter = TypeAdapter(self.output_type)
        return self._adapter


_NOT_JSON = object()


def _decode_json(text: str) -> Any:
    """Decode ``text`` as JSON, allowing a Markdown code fence around it; `_NOT_JSON` if not."""
    fenced = _FENCE.match(text)
    if fenced is not None:
        text = fenced.group(1)
    try:
        return loads(text)
    except ValueError:  # JSONTooDeep included: nothing past the depth limit is decoded
        return _NOT_JSON


def _mint_id() -> str:
    return f"{_MINT_PREFIX}{next(_minted)}"
