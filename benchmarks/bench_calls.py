"""Section (c): one validated tool call, from the JSON text a model sends to the result.

The tool is ``async def add(a: int, b: int) -> int`` and the model sends ``{"a": 1, "b": 2}``.
Each call path validates that text against the tool's parameters and awaits the function;
each runs its own tight loop of N calls inside one ``asyncio.run``, so the loop's overhead is
the framework's own. Paths:

* nucleo: ``provider.parse_input(text)`` then ``await run_tool(instance, parsed)``, with the
  instance built once by ``provider.create(None)`` before the loop (a function tool instance
  holds no per-call state), and again with ``create`` inside the loop;
* langchain-core: ``await tool.ainvoke(json.loads(text))`` (langchain takes a dict; the
  function is a coroutine, so ``ainvoke`` is its call path: ``invoke`` refuses coroutines);
* openai-agents: ``await tool.on_invoke_tool(ToolContext(...), text)``, with a ``ToolContext``
  built per call as the SDK's runner does;
* pydantic-ai-slim: ``tool.args_validator.validate_json(text)`` then
  ``await toolset.call_tool(...)``, the public toolset API an agent's ``ToolManager`` calls
  (the fastest public path); and ``ToolManager.handle_call``, the agent's full dispatch, shown
  for context.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from bench_harness import (
    Outcome,
    Samples,
    Unavailable,
    Verdict,
    fmt_ratio,
    fmt_time,
    gc_paused,
    print_failure,
    print_heading,
    print_table,
    print_unavailable,
    short_error,
)

__all__ = ["run_calls_section"]

VALID_CALL = '{"a": 1, "b": 2}'
INVALID_CALL = '{"a": "seven", "b": 3}'
CALL_TARGET = 10e-6


class CallPath(Protocol):
    """One framework's way of running a validated call of ``add`` from JSON text."""

    label: str
    what: str
    #: Whether the path is nucleo's (judged) rather than a peer's (compared against).
    nucleo: bool

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


class NucleoCall:
    """nucleo: ``parse_input`` then ``run_tool``; the instance made once, or per call."""

    nucleo = True

    def __init__(self, *, create_per_call: bool) -> None:
        import nucleo_core

        self._create_per_call = create_per_call
        self.label = "nucleo-core" + (" (create per call)" if create_per_call else "")
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
    """langchain-core: ``await tool.ainvoke(json.loads(text))``."""

    label = "langchain-core"
    what = "await tool.ainvoke(json.loads(text))"
    nucleo = False

    def __init__(self) -> None:
        from langchain_core.tools import tool

        self._tool = tool(_make_add())

    async def calls(self, text: str, count: int) -> object:
        """The tight loop."""
        ainvoke = self._tool.ainvoke
        loads = json.loads
        result: object = None
        for _ in range(count):
            result = await ainvoke(loads(text))
        return result

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
    """pydantic-ai-slim: ``args_validator.validate_json`` then ``toolset.call_tool``."""

    label = "pydantic-ai-slim"
    what = "await toolset.call_tool(name, tool.args_validator.validate_json(text), ctx, tool)"
    nucleo = False

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

    label = "pydantic-ai-slim (ToolManager)"
    what = "await tool_manager.handle_call(ToolCallPart('add', text, tool_call_id=...))"
    nucleo = False

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
    ("nucleo-core", lambda: NucleoCall(create_per_call=False)),
    ("nucleo-core (create per call)", lambda: NucleoCall(create_per_call=True)),
    ("langchain-core", LangchainCall),
    ("openai-agents", OpenAIAgentsCall),
    ("pydantic-ai-slim", PydanticAIValidatedCall),
    ("pydantic-ai-slim (ToolManager)", PydanticAIManagedCall),
)


@dataclass(slots=True)
class CallResult:
    """Per-call seconds of one path over the rounds, or why it is missing.

    Attributes:
        label: The path.
        what: What one call runs.
        nucleo: Whether it is nucleo's path.
        outcome: The samples, or why there are none.
        rejection: What the path answered to the invalid input.
    """

    label: str
    what: str
    nucleo: bool
    outcome: Outcome
    rejection: str = ""


async def _timed_calls(path: CallPath, text: str, count: int) -> float:
    with gc_paused():
        start = time.perf_counter()
        await path.calls(text, count)
        elapsed = time.perf_counter() - start
    return elapsed / count


def run_calls_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (c) for every call path, print the tables, return the verdicts."""
    print_heading("(c) A validated call of async add(a: int, b: int) -> int from JSON text")
    print(
        f"Input {VALID_CALL!r}; {rounds} timed rounds of {count:,} calls per path (after one "
        "warm-up round); each round is one asyncio.run around the path's own loop."
    )
    paths: dict[str, CallPath] = {}
    results: dict[str, CallResult] = {}
    for label, factory in _PATHS:
        try:
            path = factory()
            value = asyncio.run(path.calls(VALID_CALL, 1))
            if value != 3:
                raise AssertionError(f"add(1, 2) returned {value!r}")
            rejection = asyncio.run(path.reject(INVALID_CALL))
        except Exception as exc:
            is_nucleo = label.startswith("nucleo")
            results[label] = CallResult(label, "", is_nucleo, Unavailable(short_error(exc)))
            if label.startswith("nucleo"):
                print_failure(f"setting up {label}", exc)
            continue
        paths[label] = path
        results[label] = CallResult(label, path.what, path.nucleo, Samples(()), rejection)

    samples: dict[str, list[float]] = {label: [] for label in paths}
    for round_index in range(rounds + 1):
        labels = list(paths)
        shift = round_index % max(len(labels), 1)
        for label in labels[shift:] + labels[:shift]:
            size = max(count // 10, 1) if round_index == 0 else count
            try:
                per_call = asyncio.run(_timed_calls(paths[label], VALID_CALL, size))
            except Exception as exc:
                results[label].outcome = Unavailable(short_error(exc))
                del paths[label]
                continue
            if round_index:
                samples[label].append(per_call)
    for label in paths:
        results[label].outcome = Samples(tuple(samples[label]))

    _print_results(results)
    return _verdicts(results)


def _print_results(results: dict[str, CallResult]) -> None:
    nucleo = results["nucleo-core"].outcome
    rows: list[list[str]] = []
    missing: dict[str, str] = {}
    for result in results.values():
        outcome = result.outcome
        if isinstance(outcome, Unavailable):
            rows.append([result.label, "unavailable (below)"])
            missing[result.label] = outcome.reason
            continue
        ratio = "-"
        if isinstance(nucleo, Samples) and not result.nucleo:
            ratio = fmt_ratio(outcome.best / nucleo.best)
        rows.append(
            [result.label, fmt_time(outcome.best), fmt_time(outcome.median), ratio, result.what]
        )
    rows = [row + [""] * (5 - len(row)) for row in rows]
    print()
    print_table(["path", "per call (best)", "median", "peer / nucleo", "one call runs"], rows)
    print_unavailable(missing)

    print(f"\nInvalid call {INVALID_CALL!r}: what each path answers")
    for result in results.values():
        if isinstance(result.outcome, Unavailable) or not result.rejection:
            continue
        echoes = "echoes the value" if "seven" in result.rejection else "does not echo the value"
        print(f"  {result.label} ({echoes}):")
        for line in result.rejection.splitlines()[:6]:
            print(f"      {line}")


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
    return Verdict(
        "(c) invalid call rejected naming a and integer, without the value",
        repr(" ".join(message.split())[:160]),
        "names a + integer, no 'seven'",
        passed,
        checks,
    )


def _verdicts(results: dict[str, CallResult]) -> list[Verdict]:
    peers = {
        label: result.outcome
        for label, result in results.items()
        if not result.nucleo and isinstance(result.outcome, Samples)
    }
    fastest_label = min(peers, key=lambda label: peers[label].best) if peers else None
    verdicts: list[Verdict] = []
    for label, key in (
        ("nucleo-core", "(c) nucleo validated call, instance created once"),
        ("nucleo-core (create per call)", "(c) nucleo validated call, create per call"),
    ):
        result = results[label]
        outcome = result.outcome
        if isinstance(outcome, Unavailable):
            verdicts.append(Verdict(key, "not measured", "-", False, outcome.reason))
            continue
        per_call = outcome.best
        verdicts.append(
            Verdict(
                key,
                fmt_time(per_call),
                f"< {fmt_time(CALL_TARGET)}",
                per_call < CALL_TARGET,
                f"median {fmt_time(outcome.median)}",
            )
        )
        if fastest_label is None:
            verdicts.append(Verdict(f"{key} vs peers", "-", "faster", None, "no peer"))
        else:
            fastest = peers[fastest_label].best
            verdicts.append(
                Verdict(
                    f"{key}: vs fastest validating peer",
                    f"{fmt_time(per_call)} vs {fmt_time(fastest)} "
                    f"({fmt_ratio(fastest / per_call)})",
                    "faster",
                    per_call < fastest,
                    f"fastest peer: {fastest_label}",
                )
            )
    nucleo = results["nucleo-core"]
    if isinstance(nucleo.outcome, Unavailable):
        verdicts.append(Verdict("(c) invalid call", "not measured", "-", False))
    else:
        verdicts.append(_rejection_verdict(nucleo))
    return verdicts
