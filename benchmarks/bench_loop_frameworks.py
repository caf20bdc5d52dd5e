"""The frameworks of sections (h) and (i): one identical scripted exchange, run on each.

The exchange of (i): a 20-tool palette (the same 20 generated ``async`` function tools on every
framework, see `loop_functions`); the user asks `PROMPT`; turn 1, the model calls two tools
(`CALLS`, arguments as JSON text, as a provider sends them); turn 2, the model answers
`ANSWER`. Each framework's scripted model is a function of its request (turn 1 when the request
holds only the user's message), so its own cost is near zero; that cost is measured on its own
by replaying the requests it recorded (`LoopRunner.model_only`).

* nucleo: ``SingleObjectiveThinker.run`` on a `ScriptedModel` given as the thinker's client;
* pydantic-ai: ``Agent(FunctionModel(fn), tools=[...]).run``, ``fn`` an ``async`` function (a
  plain one would be run in a worker thread);
* OpenAI Agents SDK: ``Runner.run(agent, prompt)``, the agent's model a `Model` subclass whose
  ``get_response`` returns a scripted ``ModelResponse``; tracing off (``RunConfig``).

Each adapter checks its exchange after a run (`LoopRunner.check`): the final answer, and the two
tool results the model read on turn 2, which show that each tool ran with its arguments parsed
and the default of ``limit`` applied.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any, Literal, Protocol

__all__ = [
    "ANSWER",
    "CALLS",
    "LOOP_SIGNATURE",
    "PALETTE_SIZE",
    "PROMPT",
    "LoopRunner",
    "NucleoLoop",
    "OpenAIAgentsLoop",
    "PydanticAILoop",
    "loop_functions",
    "nucleo_thinker",
    "wait_functions",
]

PALETTE_SIZE = 20
PROMPT = "What do the records say about Lisbon and Porto?"
#: Turn 1: the two tool calls, arguments as JSON text.
CALLS = (
    ("lookup_3", json.dumps({"query": "lisbon", "mode": "fast"})),
    ("lookup_17", json.dumps({"query": "porto", "mode": "thorough", "limit": 3})),
)
#: Turn 2: the final answer.
ANSWER = "Lisbon: 10 records; Porto: 3 records."
#: The tool results the model must read on turn 2 (``limit``'s default applied to the first).
EXPECTED_RESULTS = ("lisbon|fast|10|3", "porto|thorough|3|17")
LOOP_SIGNATURE = (
    'async def lookup_<i>(query: str, mode: Literal["fast", "thorough"], limit: int = 10) -> str'
)

_LOOKUP = '''
async def lookup_{index}(query: str, mode: Literal["fast", "thorough"], limit: int = 10) -> str:
    """Look up records in table {index} of the {tag} archive.

    Args:
        query: What to look for.
        mode: How hard to look.
        limit: At most this many records.
    """
    return f"{{query}}|{{mode}}|{{limit}}|{index}"
'''

_WAIT = '''
{keyword}def wait_{index}(label: str) -> str:
    """Wait for job {index} of the {tag} batch to finish.

    Args:
        label: The job's label.
    """
    started = clock()
    {awaiting}sleep(DELAY)
    spans.append((started, clock()))
    return label
'''


@contextmanager
def _module(tag: str, source: str, names: Sequence[str], **globals_: Any) -> Iterator[list[Any]]:
    """Compile ``source`` into a fresh module (in `sys.modules` while the block runs)."""
    module_name = f"nucleo_bench_loop_{tag}"
    module = ModuleType(module_name)
    module.__dict__.update(Literal=Literal, **globals_)
    # dont_inherit: this module's own `from __future__ import annotations` must not apply.
    exec(compile(source, f"<{module_name}>", "exec", dont_inherit=True), module.__dict__)
    sys.modules[module_name] = module
    try:
        yield [module.__dict__[name] for name in names]
    finally:
        del sys.modules[module_name]


@contextmanager
def loop_functions(tag: str) -> Iterator[list[Callable[..., Any]]]:
    """The 20-tool palette of (i), fresh functions named ``lookup_0`` .. ``lookup_19``."""
    source = "".join(_LOOKUP.format(index=i, tag=tag) for i in range(PALETTE_SIZE))
    with _module(tag, source, [f"lookup_{i}" for i in range(PALETTE_SIZE)]) as functions:
        yield functions


@contextmanager
def wait_functions(
    tag: str, count: int, delay: float, *, asynchronous: bool, spans: list[tuple[float, float]]
) -> Iterator[list[Callable[..., Any]]]:
    """The tools of (h): ``wait_<i>(label)`` sleeps ``delay`` s and records its span.

    An asynchronous tool awaits `asyncio.sleep`; a synchronous one calls `time.sleep` (nucleo
    runs it in a worker thread). Each appends ``(started, ended)`` (`time.perf_counter`) to
    ``spans``.
    """
    import asyncio

    keyword, awaiting = ("async ", "await ") if asynchronous else ("", "")
    source = "".join(
        _WAIT.format(index=i, tag=tag, keyword=keyword, awaiting=awaiting) for i in range(count)
    )
    sleep = asyncio.sleep if asynchronous else time.sleep
    names = [f"wait_{i}" for i in range(count)]
    with _module(
        tag, source, names, clock=time.perf_counter, sleep=sleep, DELAY=delay, spans=spans
    ) as functions:
        yield functions


def nucleo_thinker(functions: Sequence[Callable[..., Any]], client: Any) -> Any:
    """A `SingleObjectiveThinker` on an empty hub whose palette is ``functions``.

    Its seat is the catalog's standard grade (a native-tools entry); ``client`` answers every
    exchange; the execution policy is the default one.
    """
    from nucleo_core import ToolHub, tool
    from nucleo_core.models import ModelCatalog, ThinkerDeclaration
    from nucleo_core.thinking.single_objective import SingleObjectiveThinker

    declare = tool(read_only=True, risk="low")
    palette = [declare(function) for function in functions]

    class BenchThinker(SingleObjectiveThinker[str, str]):
        @classmethod
        def declare_default_tools(cls) -> list[Any]:
            return palette

    return BenchThinker(
        ThinkerDeclaration(grade="standard", answer_size=1024),
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"}),
        client=client,
    )


class LoopRunner(Protocol):
    """One framework running the scripted exchange of (i)."""

    label: str
    what: str

    async def run_once(self) -> Any:
        """One whole run: prompt, turn 1 (two tool calls), tools, turn 2 (the answer)."""
        ...

    async def model_only(self) -> None:
        """The scripted model alone, answering the two requests of one run (replayed)."""
        ...

    def check(self, output: Any) -> None:
        """Fail unless the last run was the expected exchange; ``output`` is its result."""
        ...

    def reset(self) -> None:
        """Drop what the scripted model recorded (between rounds)."""
        ...


def _check_results(framework: str, results: Sequence[str]) -> None:
    if tuple(results) != EXPECTED_RESULTS:
        raise AssertionError(
            f"{framework}: the model read tool results {list(results)!r} on turn 2, "
            f"expected {list(EXPECTED_RESULTS)!r}"
        )


class NucleoLoop:
    """nucleo: ``SingleObjectiveThinker.run``, the client a `ScriptedModel` (a function)."""

    label = "nucleo-core"
    what = "SingleObjectiveThinker(...).run(prompt); client=ScriptedModel(fn of the request)"

    def __init__(self, functions: Sequence[Callable[..., Any]]) -> None:
        from nucleo_core.testing import ScriptedModel, text_response, tool_use_response

        first = tool_use_response(*CALLS)
        final = text_response(ANSWER)
        self.model = ScriptedModel(lambda request: first if len(request.messages) == 1 else final)
        self.thinker = nucleo_thinker(functions, self.model)
        self._replay: tuple[Any, ...] = ()
        #: Tools nucleo offers beyond the palette (the conversation's artifact tools).
        self.extra_tools: list[str] = []

    async def run_once(self) -> Any:
        """One ``thinker.run``."""
        return await self.thinker.run(PROMPT)

    async def model_only(self) -> None:
        """``ScriptedModel.complete`` on the two recorded requests."""
        complete = self.model.complete
        for request in self._replay:
            await complete(request)

    def check(self, output: Any) -> None:
        """The answer, and the turn-2 request's tool results."""
        from nucleo_core.models.messages import ToolResultBlock

        if output != ANSWER:
            raise AssertionError(f"nucleo answered {output!r}")
        first, second = self.model.requests[-2:]
        blocks = [b for b in second.messages[-1].content if isinstance(b, ToolResultBlock)]
        if any(block.is_error for block in blocks):
            raise AssertionError(f"nucleo: a tool call failed: {blocks!r}")
        _check_results(self.label, [block.content for block in blocks])
        names = [spec.name for spec in first.tools]
        missing = {f"lookup_{i}" for i in range(PALETTE_SIZE)} - set(names)
        if missing:
            raise AssertionError(f"nucleo did not offer {sorted(missing)}")
        self.extra_tools = [name for name in names if not name.startswith("lookup_")]
        self._replay = (first, second)

    def reset(self) -> None:
        """Clear the scripted model's recorded requests."""
        self.model.requests.clear()


class PydanticAILoop:
    """pydantic-ai: ``Agent(FunctionModel(fn), tools=functions).run(prompt)``."""

    label = "pydantic-ai-slim"
    what = "Agent(FunctionModel(async fn), tools=[...]).run(prompt)"

    def __init__(self, functions: Sequence[Callable[..., Any]]) -> None:
        from pydantic_ai import Agent
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
        from pydantic_ai.models.function import FunctionModel
        from pydantic_ai.usage import RequestUsage

        seen: dict[int, tuple[Any, Any]] = {}
        self._seen = seen

        # The response is built per call: FunctionModel sets fields of the one it is given.
        # Usage is given, so FunctionModel does not estimate it from the messages.
        async def script(messages: list[Any], info: Any) -> Any:
            turn = 1 if len(messages) == 1 else 2
            seen[turn] = (list(messages), info)  # a copy: the run goes on appending
            usage = RequestUsage(input_tokens=1, output_tokens=1)
            if turn == 1:
                parts = [
                    ToolCallPart(name, arguments, tool_call_id=f"call_{index}")
                    for index, (name, arguments) in enumerate(CALLS)
                ]
                return ModelResponse(parts=parts, usage=usage)
            return ModelResponse(parts=[TextPart(ANSWER)], usage=usage)

        self._script = script
        self._replay: tuple[Any, ...] = ()
        self.agent = Agent(FunctionModel(script), tools=list(functions))

    async def run_once(self) -> Any:
        """One ``agent.run``."""
        return await self.agent.run(PROMPT)

    async def model_only(self) -> None:
        """The script function on the two recorded ``(messages, info)``."""
        script = self._script
        for messages, info in self._replay:
            await script(messages, info)

    def check(self, output: Any) -> None:
        """The answer, and the turn-2 messages' tool returns."""
        from pydantic_ai.messages import ToolReturnPart

        if output.output != ANSWER:
            raise AssertionError(f"pydantic-ai answered {output.output!r}")
        first, second = self._seen[1], self._seen[2]
        parts = [p for p in second[0][-1].parts if isinstance(p, ToolReturnPart)]
        _check_results(self.label, [str(part.content) for part in parts])
        if len(first[1].function_tools) != PALETTE_SIZE:
            raise AssertionError(f"pydantic-ai offered {len(first[1].function_tools)} tools")
        self._replay = (first, second)

    def reset(self) -> None:
        """Nothing accumulates (the last request of each turn is kept)."""


class OpenAIAgentsLoop:
    """OpenAI Agents SDK: ``Runner.run(agent, prompt)`` on a scripted `Model` subclass."""

    label = "openai-agents"
    what = "Runner.run(Agent(model=<scripted Model>, tools=[function_tool(fn)...]), prompt)"

    def __init__(self, functions: Sequence[Callable[..., Any]]) -> None:
        from agents import Agent, RunConfig, Runner, function_tool
        from agents.items import ModelResponse
        from agents.models.interface import Model
        from agents.usage import Usage
        from openai.types.responses import (
            ResponseFunctionToolCall,
            ResponseOutputMessage,
            ResponseOutputText,
        )

        seen: dict[int, dict[str, Any]] = {}
        self._seen = seen

        class ScriptedAgentsModel(Model):
            """Answers from the script; records the last request of each turn."""

            async def get_response(self, **request: Any) -> Any:  # the runner passes keywords
                items = request["input"]
                turn = 1 if isinstance(items, str) or len(items) == 1 else 2
                copied = items if isinstance(items, str) else list(items)  # the run appends
                seen[turn] = {**request, "input": copied}
                usage = Usage(requests=1, input_tokens=1, output_tokens=1, total_tokens=2)
                if turn == 1:
                    output: list[Any] = [
                        ResponseFunctionToolCall(
                            id=f"fc_{index}",
                            call_id=f"call_{index}",
                            type="function_call",
                            name=name,
                            arguments=arguments,
                        )
                        for index, (name, arguments) in enumerate(CALLS)
                    ]
                else:
                    text = ResponseOutputText(text=ANSWER, type="output_text", annotations=[])
                    output = [
                        ResponseOutputMessage(
                            id="msg_1",
                            type="message",
                            role="assistant",
                            status="completed",
                            content=[text],
                        )
                    ]
                return ModelResponse(output=output, usage=usage, response_id=None)

            def stream_response(self, *args: Any, **kwargs: Any) -> Any:
                # Required by the SDK's Model interface; Runner.run never streams, so the
                # benchmark's exchange never reaches it.
                raise NotImplementedError("the benchmark does not stream")

        self.model = ScriptedAgentsModel()
        self._replay: tuple[dict[str, Any], ...] = ()
        self.agent = Agent(
            name="bench",
            instructions="",
            model=self.model,
            tools=[function_tool(function) for function in functions],
        )
        self._runner = Runner
        self._config = RunConfig(tracing_disabled=True)

    async def run_once(self) -> Any:
        """One ``Runner.run``."""
        return await self._runner.run(self.agent, PROMPT, run_config=self._config)

    async def model_only(self) -> None:
        """``get_response`` on the two recorded requests."""
        get_response = self.model.get_response
        for request in self._replay:
            await get_response(**request)

    def check(self, output: Any) -> None:
        """The final output, and the turn-2 input's function-call outputs."""
        if output.final_output != ANSWER:
            raise AssertionError(f"openai-agents answered {output.final_output!r}")
        first, second = self._seen[1], self._seen[2]
        items = second["input"]
        results = [
            str(item.get("output"))
            for item in items
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        _check_results(self.label, results)
        if len(first["tools"]) != PALETTE_SIZE:
            raise AssertionError(f"openai-agents offered {len(first['tools'])} tools")
        self._replay = (first, second)

    def reset(self) -> None:
        """Nothing accumulates (the last request of each turn is kept)."""
