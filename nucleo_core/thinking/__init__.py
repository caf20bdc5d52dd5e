"""The thinking layer: the thinker families, the one LLM exchange, and tool execution.

`SubThinker`, `Benchmark` and the I/O shapes (`SubThinkerOutput`, ...) are pydantic-backed;
they are imported on first access, so `import nucleo_core.thinking` stays light.
"""

from typing import TYPE_CHECKING, Any

from nucleo_core.thinking.chat import ChatThinker
from nucleo_core.thinking.correction import ResponseCorrection
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.envelope import envelope_instructions
from nucleo_core.thinking.execution import (
    CallOutcome,
    CallStatus,
    ConversationAware,
    ExecutionPolicy,
    ExecutionReport,
    RegistryAware,
    ToolExecutor,
    ToolFailure,
    reconcile_results,
)
from nucleo_core.thinking.handler import ENVELOPE_FIELDS, ThinkingResponseHandler
from nucleo_core.thinking.inbox import Inbox
from nucleo_core.thinking.llm_call import LLMCall
from nucleo_core.thinking.reactive import ReactiveThinker
from nucleo_core.thinking.response import ThinkingResponse
from nucleo_core.thinking.seat_binding import LLMCallSeats as _LLMCallSeats
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import ContentEvent, Thinker, ThinkerIterationLimit
from nucleo_core.thinking.tool_call import ToolCall
from nucleo_core.thinking.toolless import ToollessThinker
from nucleo_core.thinking.transcript import render_transcript
from nucleo_core.tools._seat_binding import bind_model_seats as _bind_model_seats

if TYPE_CHECKING:
    from nucleo_core.thinking.benchmark import Benchmark, BenchmarkResult, BenchmarkRow
    from nucleo_core.thinking.io import SubThinkerInput, SubThinkerOutput
    from nucleo_core.thinking.sub_thinker import SubThinker

#: A `ModelSeat` (declared in the tools layer) runs each of its exchanges as an `LLMCall`.
_bind_model_seats(_LLMCallSeats())

__all__ = [
    "ENVELOPE_FIELDS",
    "Benchmark",
    "BenchmarkResult",
    "BenchmarkRow",
    "CallOutcome",
    "CallStatus",
    "ChatThinker",
    "ContentEvent",
    "ConversationAware",
    "Depth",
    "ExecutionPolicy",
    "ExecutionReport",
    "Inbox",
    "LLMCall",
    "ReactiveThinker",
    "RegistryAware",
    "ResponseCorrection",
    "SingleObjectiveThinker",
    "SubThinker",
    "SubThinkerInput",
    "SubThinkerOutput",
    "Thinker",
    "ThinkerIterationLimit",
    "ThinkingResponse",
    "ThinkingResponseHandler",
    "ToolCall",
    "ToolExecutor",
    "ToolFailure",
    "ToollessThinker",
    "envelope_instructions",
    "reconcile_results",
    "render_transcript",
]

_LAZY = {
    "Benchmark": "nucleo_core.thinking.benchmark",
    "BenchmarkResult": "nucleo_core.thinking.benchmark",
    "BenchmarkRow": "nucleo_core.thinking.benchmark",
    "SubThinker": "nucleo_core.thinking.sub_thinker",
    "SubThinkerInput": "nucleo_core.thinking.io",
    "SubThinkerOutput": "nucleo_core.thinking.io",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'nucleo_core.thinking' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
