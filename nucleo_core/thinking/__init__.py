"""The thinking layer: the one LLM exchange (`LLMCall`) and the answer-shape boundary."""

from nucleo_core.thinking.correction import ResponseCorrection
from nucleo_core.thinking.envelope import envelope_instructions
from nucleo_core.thinking.handler import ENVELOPE_FIELDS, ThinkingResponseHandler
from nucleo_core.thinking.llm_call import LLMCall
from nucleo_core.thinking.response import ThinkingResponse
from nucleo_core.thinking.tool_call import ToolCall

__all__ = [
    "ENVELOPE_FIELDS",
    "LLMCall",
    "ResponseCorrection",
    "ThinkingResponse",
    "ThinkingResponseHandler",
    "ToolCall",
    "envelope_instructions",
]
