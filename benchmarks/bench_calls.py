"""Section (c): one tool call, from the JSON text a model sends to the result the model reads.

The tool is ``async def add(a: int, b: int) -> int`` and the model sends ``{"a": 1, "b": 2}``.
Judged: each framework's **full call path** for one call, the same work on every side: decode
the arguments, resolve the tool by name, validate the input, run the function, and produce the
result the framework hands back to the model. Paths:

* nucleo (judged): the thinker's own path, through public classes: the adapter's
  ``json.loads`` of the arguments into a ``ToolUseBlock``, ``ThinkingResponseHandler.handle``
  (name resolved against the thinker's registry, input parsed), ``ToolExecutor.prepare(...,
  check=partial(call_door, thinker))`` and ``await execution.run()`` (the call door, the
  executor's task, timeout and concurrency cap, output rendering), then
  ``report().results_message()``;
* pydantic-ai-slim (judged): ``await ToolManager.handle_call(ToolCallPart(name, text))``, the
  agent's full dispatch (its toolset prepared for the run step before the loop);
* openai-agents (judged): ``await tool.on_invoke_tool(ToolContext(...), text)`` with a
  ``ToolContext`` built per call, as the SDK's runner does;
* langchain-core (judged): ``await tool.ainvoke({"type": "tool_call", "args":
  json.loads(text), ...})``, which returns the ``ToolMessage`` a model reads.

Judged too, on a target of its own (no peer runs it): nucleo's full path for **one turn of 8
calls** (one response with 8 tool uses, handled, cleared by the door one by one, run side by side
by the executor, answered by one results message), per turn.

Printed, not judged (they cover less work: no name resolution, no door, no executor, no
result rendering): nucleo's ``provider.parse_input`` + ``run_tool``, and pydantic-ai's
``args_validator.validate_json`` + ``toolset.call_tool``.

Each path runs a tight loop of N calls inside one ``asyncio.run``; every path runs once per
round, in a rotating order, GC enabled; verdicts on the median round (speed-ups on the
per-round ratios). A cProfile of nucleo's full path is printed by module and by function, to
show where its time goes.
"""

from __future__ import annotations

import asyncio
import cProfile
import io
import json
import logging
import pstats
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from bench_harness import (
    Samples,
    Verdict,
    fmt_ratio,
    fmt_time,
    judge_at_least,
    judge_at_most,
    judge_check,
    not_judged,
    print_failure,
    print_heading,
    print_table,
    print_unavailable,
    print_work,
    ratios,
    settled,
    short_error,
    unavailable,
)

__all__ = ["run_calls_section"]

VALID_CALL = '{"a": 1, "b": 2}'
INVALID_CALL = '{"a": "seven", "b": 3}'
#: Targets of the issue (medians): nucleo's full path for one call within this long, and not
#: slower than the fastest peer's full path.
CALL_TARGET = 15e-6
VERSUS_PEER_TARGET = 1.0
#: A turn of this many calls is judged on its own target (per turn, median).
TURN_CALLS = 8
TURN_TARGET = 60e-6
#: Profile rows printed for nucleo's full path.
_PROFILE_ROWS = 18

#: The work every judged path does for one call.
WORK = (
    "one call of async add(a, b) from the model's JSON arguments: decode, resolve the tool by "
    "name, validate, run, produce the result the model reads"
)


#: The work of the judged turn.
TURN_WORK = (
    f"one turn of {TURN_CALLS} calls of async add(a, b): the model's response with {TURN_CALLS} "
    "tool uses decoded, handled, each cleared by the call door, run side by side by the "
    "executor, answered by one results message"
)


class CallPath(Protocol):
    """One framework's way of running a validated call of ``add`` from JSON text."""

    label: str
    what: str
    #: Whether the path is nucleo's rather than a peer's.
    nucleo: bool
    #: Whether the path is a framework's full call path (judged) or covers less (printed).
    full: bool

    async def calls(self, text: str, count: int) -> object:
        """Run ``count`` validated calls with ``text`` as input; return the last result."""
        ...

    async def reject(self, text: str) -> str:
        """What the path answers to invalid input: the error text it raises or returns."""
        ...


def _make_add() -> Callable[..., Any]:
    """A fresh ``add`` for one framework, so no framework sees another's declaration."""

    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return add


class NucleoFullCall:
    """nucleo's thinker path: decode, handler, call door, executor, the results message."""

    label = "nucleo-core"
    what = (
        "json.loads -> ToolUseBlock; handler.handle(response); executor.prepare(calls, "
        "check=partial(call_door, thinker)); await execution.run(); report().results_message()"
    )
    nucleo = True
    full = True

    def __init__(self) -> None:
        from nucleo_core import ThinkerBase, ToolHub, tool
        from nucleo_core.hub.call_door import call_door
        from nucleo_core.models import ModelResponse, ToolUseBlock
        from nucleo_core.thinking import ThinkingResponseHandler
        from nucleo_core.thinking.execution import ExecutionPolicy, ToolExecutor

        add = tool(read_only=True, risk="low")(_make_add())

        class Adder(ThinkerBase):
            @classmethod
            def declare_default_tools(cls) -> list[Any]:
                return [add]

        self._thinker = thinker = Adder(hub=ToolHub())
        thinker.reconcile_tool_registry()
        self._handler = ThinkingResponseHandler(str, tools=thinker.registry)
        self._executor = ToolExecutor()
        self._policy = ExecutionPolicy()
        self._check = partial(call_door, thinker)
        self._response_type = ModelResponse
        self._block_type = ToolUseBlock

    async def _one(self, text: str) -> Any:
        # What a provider adapter does with the arguments the model sent (OpenAI sends text).
        block = self._block_type(id="call_0", name="add", input=json.loads(text))
        response = self._response_type(content=(block,), stop_reason="tool_use")
        handled = self._handler.handle(response)
        thinker = self._thinker
        execution = self._executor.prepare(
            handled.tool_calls,
            check=self._check,
            parent=thinker,
            policy=self._policy,
            registry=thinker.registry,
        )
        await execution.run()
        return execution.report().results_message()

    async def calls(self, text: str, count: int) -> object:
        """The tight loop; returns the last result's text."""
        one = self._one
        message: Any = None
        for _ in range(count):
            message = await one(text)
        return _result_text(message)

    async def turns(self, text: str, count: int) -> list[Any]:
        """``count`` turns of `TURN_CALLS` calls each; returns the last turn's results."""
        block_type, response_type, loads = self._block_type, self._response_type, json.loads
        handle, prepare, thinker = self._handler.handle, self._executor.prepare, self._thinker
        ids = [f"call_{index}" for index in range(TURN_CALLS)]
        message: Any = None
        for _ in range(count):
            blocks = tuple(block_type(id=id_, name="add", input=loads(text)) for id_ in ids)
            handled = handle(response_type(content=blocks, stop_reason="tool_use"))
            execution = prepare(
                handled.tool_calls,
                check=self._check,
                parent=thinker,
                policy=self._policy,
                registry=thinker.registry,
            )
            await execution.run()
            message = execution.report().results_message()
        return [_block_value(block) for block in message.content]

    async def reject(self, text: str) -> str:
        """The text of the error result the model reads."""
        return str(_result_text(await self._one(text)))


def _result_text(message: Any) -> Any:
    (block,) = message.content
    return _block_value(block)


def _block_value(block: Any) -> Any:
    content = block.content
    text = content if isinstance(content, str) else "".join(part.text for part in content)
    return int(text) if text.isdigit() else text


class NucleoCall:
    """nucleo, less work: ``parse_input`` then ``run_tool``; the instance made once."""

    nucleo = True
    full = False

    def __init__(self, *, create_per_call: bool) -> None:
        import nucleo_core

        self._create_per_call = create_per_call
        self.label = "nucleo-core parse_input + run_tool" + (
            " (create per call)" if create_per_call else ""
        )
        self.what = (
            "run_tool(provider.create(None), provider.parse_input(text))"
            if create_per_call
            else "run_tool(instance, provider.parse_input(text)); instance created once"
        )
        registry = nucleo_core.ToolRegistry()
        provider = registry.register(nucleo_core.tool(read_only=True, risk="low")(_make_add()))
        if provider is None:
            raise RuntimeError("ToolRegistry.register skipped the declared add()")
        self._provider = provider
        self._run_tool = nucleo_core.run_tool
        self._error = nucleo_core.InvalidToolInput

    async def calls(self, text: str, count: int) -> object:
        """The tight loop."""
        parse = self._provider.parse_input
        run_tool = self._run_tool
        result: object = None
        if self._create_per_call:
            create = self._provider.create
            for _ in range(count):
                result = await run_tool(create(None), parse(text))
        else:
            instance = self._provider.create(None)
            for _ in range(count):
                result = await run_tool(instance, parse(text))
        return result

    async def reject(self, text: str) -> str:
        """The `InvalidToolInput` message (what the model reads)."""
        try:
            parsed = self._provider.parse_input(text)
        except self._error as exc:
            return str(exc)
        return f"ACCEPTED: {parsed!r}"


class LangchainCall:
    """langchain-core: ``await tool.ainvoke(tool_call)``, which returns a ``ToolMessage``."""

    label = "langchain-core"
    what = 'await tool.ainvoke({"type": "tool_call", "name", "args": json.loads(text), "id"})'
    nucleo = False
    full = True

    def __init__(self) -> None:
        from langchain_core.tools import tool

        self._tool = tool(_make_add())

    async def calls(self, text: str, count: int) -> object:
        """The tight loop."""
        ainvoke = self._tool.ainvoke
        loads = json.loads
        result: Any = None
        for _ in range(count):
            call = {"type": "tool_call", "name": "add", "args": loads(text), "id": "call_0"}
            result = await ainvoke(call)
        return int(result.content)

    async def reject(self, text: str) -> str:
        """The validation error langchain raises."""
        try:
            result = await self._tool.ainvoke(json.loads(text))
        except Exception as exc:
            return str(exc)
        return f"ACCEPTED: {result!r}"


class OpenAIAgentsCall:
    """openai-agents: ``await tool.on_invoke_tool(ToolContext(...), text)``."""

    label = "openai-agents"
    what = "await tool.on_invoke_tool(ToolContext(None, tool_name=, tool_call_id=, ...), text)"
    nucleo = False
    full = True

    def __init__(self) -> None:
        from agents import function_tool
        from agents.tool_context import ToolContext

        self._tool = function_tool(_make_add())
        self._context_type = ToolContext

    def _context(self, text: str) -> Any:
        return self._context_type(
            None, tool_name=self._tool.name, tool_call_id="call_0", tool_arguments=text
        )

    async def calls(self, text: str, count: int) -> object:
        """The tight loop; a `ToolContext` per call, as the runner builds one per call."""
        invoke = self._tool.on_invoke_tool
        context_type = self._context_type
        name = self._tool.name
        result: object = None
        for _ in range(count):
            context = context_type(None, tool_name=name, tool_call_id="call_0", tool_arguments=text)
            result = await invoke(context, text)
        return result

    async def reject(self, text: str) -> str:
        """With the default failure handler the SDK returns the error text to the model."""
        with _quiet("openai.agents"):
            try:
                result = await self._tool.on_invoke_tool(self._context(text), text)
            except Exception as exc:
                return str(exc)
        return str(result)


class PydanticAIValidatedCall:
    """pydantic-ai-slim, less work: ``args_validator.validate_json`` then ``call_tool``."""

    label = "pydantic-ai-slim validate + call_tool"
    what = "await toolset.call_tool(name, tool.args_validator.validate_json(text), ctx, tool)"
    nucleo = False
    full = False

    def __init__(self) -> None:
        from pydantic_ai import FunctionToolset, RunContext
        from pydantic_ai.models.test import TestModel
        from pydantic_ai.usage import RunUsage

        self._toolset = FunctionToolset([_make_add()])
        self._context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
        self._tool: Any = None

    async def _prepared(self) -> Any:
        if self._tool is None:
            tools = await self._toolset.get_tools(self._context)
            self._tool = tools["add"]
        return self._tool

    async def calls(self, text: str, count: int) -> object:
        """The tight loop."""
        tool = await self._prepared()
        validate = tool.args_validator.validate_json
        call_tool = self._toolset.call_tool
        context = self._context
        result: object = None
        for _ in range(count):
            result = await call_tool("add", validate(text), context, tool)
        return result

    async def reject(self, text: str) -> str:
        """The pydantic ``ValidationError`` the validator raises."""
        tool = await self._prepared()
        try:
            result = tool.args_validator.validate_json(text)
        except Exception as exc:
            return str(exc)
        return f"ACCEPTED: {result!r}"


class PydanticAIManagedCall:
    """pydantic-ai-slim's full dispatch: ``ToolManager.handle_call(ToolCallPart(...))``."""

    label = "pydantic-ai-slim"
    what = "await tool_manager.handle_call(ToolCallPart('add', text, tool_call_id=...))"
    nucleo = False
    full = True

    def __init__(self) -> None:
        from pydantic_ai import FunctionToolset, RunContext
        from pydantic_ai.messages import ToolCallPart
        from pydantic_ai.models.test import TestModel
        from pydantic_ai.tool_manager import ToolManager
        from pydantic_ai.usage import RunUsage

        self._toolset = FunctionToolset([_make_add()])
        self._context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
        self._manager_type = ToolManager
        self._part_type = ToolCallPart

    async def calls(self, text: str, count: int) -> object:
        """The tight loop (the manager is prepared for the run step before it)."""
        manager = await self._manager_type(toolset=self._toolset).for_run_step(self._context)
        handle = manager.handle_call
        part_type = self._part_type
        result: object = None
        for _ in range(count):
            result = await handle(part_type("add", text, tool_call_id="call_0"))
        return result

    async def reject(self, text: str) -> str:
        """The error the manager raises (a retry request, or giving up on retries)."""
        manager = await self._manager_type(toolset=self._toolset).for_run_step(self._context)
        try:
            result = await manager.handle_call(self._part_type("add", text, tool_call_id="c"))
        except Exception as exc:
            return str(exc)
        return f"ACCEPTED: {result!r}"


@contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


_PATHS: tuple[tuple[str, Callable[[], CallPath]], ...] = (
    ("nucleo-core", NucleoFullCall),
    ("langchain-core", LangchainCall),
    ("openai-agents", OpenAIAgentsCall),
    ("pydantic-ai-slim", PydanticAIManagedCall),
    ("nucleo-core parse_input + run_tool", lambda: NucleoCall(create_per_call=False)),
    ("pydantic-ai-slim validate + call_tool", PydanticAIValidatedCall),
)


@dataclass(slots=True)
class CallResult:
    """Per-call seconds of one path over the rounds, or why it is missing.

    Attributes:
        label: The path.
        what: What one call runs.
        nucleo: Whether it is nucleo's path.
        full: Whether it is the framework's full call path (judged).
        rounds: Per-call seconds of each round.
        unavailable: Why the path has no figures.
        rejection: What the path answered to the invalid input.
    """

    label: str
    what: str
    nucleo: bool
    full: bool
    rounds: list[float]
    unavailable: str | None = None
    rejection: str = ""

    @property
    def samples(self) -> Samples:
        return Samples(tuple(self.rounds))


async def _timed_calls(path: CallPath, text: str, count: int) -> float:
    with settled():
        start = time.perf_counter()
        await path.calls(text, count)
        elapsed = time.perf_counter() - start
    return elapsed / count


def run_calls_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (c) for every call path, print the tables, return the verdicts."""
    print_heading("(c) One tool call of async add(a: int, b: int) -> int, from JSON text")
    print(
        f"Input {VALID_CALL!r}; {rounds} rounds of {count:,} calls per path (after one warm-up "
        "round); each round runs every path once, in a rotating order, each in its own "
        "asyncio.run; GC enabled."
    )
    print_work("(c) judged", WORK)
    paths: dict[str, CallPath] = {}
    results: dict[str, CallResult] = {}
    for label, factory in _PATHS:
        is_nucleo = label.startswith("nucleo")
        try:
            path = factory()
            value = asyncio.run(path.calls(VALID_CALL, 1))
            if value != 3:
                raise AssertionError(f"add(1, 2) returned {value!r}")
            rejection = asyncio.run(path.reject(INVALID_CALL))
        except Exception as exc:
            results[label] = CallResult(label, "", is_nucleo, True, [], short_error(exc))
            if is_nucleo:
                print_failure(f"setting up {label}", exc)
            continue
        paths[label] = path
        results[label] = CallResult(label, path.what, path.nucleo, path.full, [], None, rejection)

    for round_index in range(rounds + 1):
        labels = list(paths)
        shift = round_index % max(len(labels), 1)
        for label in labels[shift:] + labels[:shift]:
            size = max(count // 10, 1) if round_index == 0 else count
            try:
                per_call = asyncio.run(_timed_calls(paths[label], VALID_CALL, size))
            except Exception as exc:
                results[label].unavailable = short_error(exc)
                del paths[label]
                continue
            if round_index:
                results[label].rounds.append(per_call)

    _print_results(results)
    nucleo = paths.get("nucleo-core")
    turn: Verdict | None = None
    if isinstance(nucleo, NucleoFullCall):
        turn = _turn_verdict(nucleo, count, rounds)
        _print_profile(nucleo, count)
    verdicts = _verdicts(results)
    if turn is not None:
        verdicts.insert(2, turn)
    return verdicts


async def _timed_turns(path: NucleoFullCall, text: str, count: int) -> float:
    with settled():
        start = time.perf_counter()
        await path.turns(text, count)
        elapsed = time.perf_counter() - start
    return elapsed / count


def _turn_verdict(path: NucleoFullCall, count: int, rounds: int) -> Verdict:
    """Measure and judge nucleo's full path for a turn of `TURN_CALLS` calls."""
    key = f"(c) nucleo full call path, a turn of {TURN_CALLS} calls"
    turns = max(count // TURN_CALLS, 1)
    try:
        values = asyncio.run(path.turns(VALID_CALL, 1))
        if values != [3] * TURN_CALLS:
            raise AssertionError(f"a turn of add(1, 2) calls returned {values!r}")
        asyncio.run(_timed_turns(path, VALID_CALL, max(turns // 10, 1)))  # warm-up
        samples = Samples(
            tuple(asyncio.run(_timed_turns(path, VALID_CALL, turns)) for _ in range(rounds))
        )
    except Exception as exc:
        print_failure(f"timing {key}", exc)
        return unavailable(key, TURN_WORK, short_error(exc), nucleo_failed=True)
    print()
    print_work(f"(c) judged, a turn of {TURN_CALLS} calls", TURN_WORK)
    print(
        f"  nucleo-core: {fmt_time(samples.median)} per turn (median of {rounds} rounds of "
        f"{turns:,} turns; min {fmt_time(samples.min)}, max {fmt_time(samples.max)}); "
        f"{fmt_time(samples.median / TURN_CALLS)} per call"
    )
    return judge_at_most(key, TURN_WORK, samples, TURN_TARGET)


def _print_results(results: dict[str, CallResult]) -> None:
    nucleo = results["nucleo-core"]
    rows: list[list[str]] = []
    missing: dict[str, str] = {}
    for result in results.values():
        if result.unavailable is not None:
            rows.append([result.label, "unavailable (below)"])
            missing[result.label] = result.unavailable
            continue
        samples = result.samples
        ratio = "-"
        if nucleo.unavailable is None and not result.nucleo:
            ratio = fmt_ratio(ratios(samples, nucleo.samples).median)
        rows.append(
            [
                result.label,
                "judged" if result.full else "not judged (less work)",
                fmt_time(samples.median),
                f"{fmt_time(samples.min)}-{fmt_time(samples.max)}",
                ratio,
                result.what,
            ]
        )
    print()
    print_table(
        ["path", "", "per call (median)", "min-max", "peer / nucleo full", "one call runs"], rows
    )
    print_unavailable(missing)

    print(f"\nInvalid call {INVALID_CALL!r}: what each path answers")
    for result in results.values():
        if result.unavailable is not None or not result.rejection:
            continue
        echoes = "echoes the value" if "seven" in result.rejection else "does not echo the value"
        print(f"  {result.label} ({echoes}):")
        for line in result.rejection.splitlines()[:6]:
            print(f"      {line}")


def _print_profile(path: NucleoFullCall, count: int) -> None:
    """Where nucleo's full path spends its time: own time by module, then the top functions."""
    profiler = cProfile.Profile()

    async def loop() -> None:
        profiler.enable()
        await path.calls(VALID_CALL, count)
        profiler.disable()

    asyncio.run(loop())
    stats = pstats.Stats(profiler)
    by_area: dict[str, float] = defaultdict(float)
    total = 0.0
    # pstats.Stats keeps its table in ``stats``, which typeshed does not declare.
    for (filename, _, _), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        total += own
        by_area[_area(filename)] += own
    print(
        f"\nWhere nucleo's full path spends its time (cProfile of {count:,} calls; own time, "
        "profiler overhead included):"
    )
    for area, own in sorted(by_area.items(), key=lambda item: -item[1]):
        print(f"  {own / total:6.1%}  {area}")
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).strip_dirs().sort_stats("tottime").print_stats(
        _PROFILE_ROWS
    )
    lines = stream.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    print("\n".join(line for line in lines[start:] if line.strip()))


def _area(filename: str) -> str:
    match = re.search(r"nucleo_core/([a-z_]+)/([a-z_]+)\.py$", filename.replace("\\", "/"))
    if match:
        return f"nucleo_core/{match.group(1)}/{match.group(2)}.py"
    if "nucleo_core" in filename:
        return "nucleo_core (other)"
    if "asyncio" in filename:
        return "asyncio"
    if "pydantic" in filename:
        return "pydantic"
    if filename.startswith("~") or filename == "<built-in>":
        return "builtins (C)"
    return "other: " + filename.rsplit("/", 1)[-1]


def _rejection_verdict(result: CallResult) -> Verdict:
    message = result.rejection
    # The field is named as a path ("a: expected ...") or quoted ('a', "a", `a`).
    names_field = re.search(r"(?<![\w.])(?:a:|'a'|\"a\"|`a`)", message) is not None
    names_type = "integer" in message
    echoes = "seven" in message
    accepted = message.startswith("ACCEPTED")
    passed = not accepted and names_field and names_type and not echoes
    checks = (
        f"names 'a': {'yes' if names_field else 'NO'}; says integer: "
        f"{'yes' if names_type else 'NO'}; contains 'seven': {'YES' if echoes else 'no'}"
    )
    return judge_check(
        "(c) invalid call rejected naming a and integer, without the value",
        f"the error result of a call with {INVALID_CALL!r} through the full path",
        repr(" ".join(message.split())[:160]),
        "names a + integer, no 'seven'",
        passed,
        checks,
    )


def _verdicts(results: dict[str, CallResult]) -> list[Verdict]:
    nucleo = results["nucleo-core"]
    key = "(c) nucleo full call path, one call"
    versus = "(c) nucleo full call path vs fastest peer's full path"
    if nucleo.unavailable is not None:
        return [
            unavailable(key, WORK, nucleo.unavailable, nucleo_failed=True),
            unavailable(versus, WORK, nucleo.unavailable, nucleo_failed=True),
        ]
    verdicts = [judge_at_most(key, WORK, nucleo.samples, CALL_TARGET)]
    peers = {
        label: result.samples
        for label, result in results.items()
        if not result.nucleo and result.full and result.unavailable is None
    }
    if not peers:
        verdicts.append(unavailable(versus, WORK, "no peer available"))
    else:
        fastest = min(peers, key=lambda label: peers[label].median)
        verdicts.append(
            judge_at_least(
                versus,
                WORK,
                ratios(peers[fastest], nucleo.samples),
                VERSUS_PEER_TARGET,
                note=f"fastest peer {fastest} {fmt_time(peers[fastest].median)} vs nucleo "
                f"{fmt_time(nucleo.samples.median)} (medians)",
            )
        )
    verdicts.append(_rejection_verdict(nucleo))
    for label, result in results.items():
        if result.full or result.unavailable is not None:
            continue
        verdicts.append(
            not_judged(
                f"(c) {label}",
                result.what,
                result.samples.text(),
                "covers less work: no name resolution, call door, executor or result rendering",
            )
        )
    return verdicts
