"""Sections (a) and (b): declaring 1,000 tools, then rendering them for a model.

Each framework does the same work on functions of its own (see `bench_toolgen`):

* **define**: turn each function into the framework's tool and collect them;
* **first render**: produce what is sent to the model (OpenAI chat-completions ``tools``,
  or the closest the framework offers), which builds each schema for the first time where the
  framework builds schemas lazily;
* **second render**: render the unchanged collection again.

Every framework runs in every round, in a rotating order, so that a slow patch of the machine
does not fall on one framework only.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bench_harness import (
    Outcome,
    Samples,
    Unavailable,
    Verdict,
    fmt_ratio,
    fmt_time,
    print_failure,
    print_heading,
    print_table,
    print_unavailable,
    short_error,
    timed,
)
from bench_toolgen import SEARCH_SIGNATURE, generated_tools

__all__ = ["run_tools_section"]

#: Targets of the issue.
DECLARE_TARGET = 50e-6
DECLARE_SPEEDUP_TARGET = 10.0
SECOND_RENDER_TARGET = 2e-6

#: How many times the second render is repeated within a round (the best counts).
_SECOND_RENDER_REPEATS = 5
#: How many tools the untimed warm-up round uses.
_WARMUP_TOOLS = 50

_EXPECTED_PARAMETERS = {"query", "mode", "limit"}
_EXPECTED_MODES = ["fast", "balanced", "thorough"]


class Toolset(Protocol):
    """One framework's way of defining and rendering tools."""

    label: str
    define_what: str
    render_what: str

    def define(self, functions: Sequence[Callable[..., Any]]) -> object:
        """Turn every function into the framework's tool; return the collection."""
        ...

    def render(self, defined: Any) -> list[Any]:
        """Render the collection ``define`` returned into what is sent to a model."""
        ...

    def wire(self, rendered: Any) -> tuple[str, Mapping[str, Any], dict[str, Any]]:
        """One rendered tool as ``(name, parameters schema, JSON-able payload)``."""
        ...

    def close(self) -> None:
        """Release what the adapter holds (an event loop, ...)."""
        ...


class NucleoToolset:
    """nucleo: ``@tool`` on each function, one `ToolRegistry`, `to_openai` of its specs."""

    label = "nucleo-core"
    define_what = 'tool(read_only=True, risk="low")(fn) + ToolRegistry.register'
    render_what = "to_openai(registry.specs())"

    def __init__(self) -> None:
        import nucleo_core

        self._nucleo = nucleo_core

    def define(self, functions: Sequence[Callable[..., Any]]) -> object:
        """Declare and register every function."""
        declare = self._nucleo.tool
        registry = self._nucleo.ToolRegistry()
        register = registry.register
        for function in functions:
            register(declare(read_only=True, risk="low")(function))
        return registry

    def render(self, defined: Any) -> list[Any]:
        """Render the registry's specs in the OpenAI chat-completions format."""
        return self._nucleo.to_openai(defined.specs())

    def wire(self, rendered: Any) -> tuple[str, Mapping[str, Any], dict[str, Any]]:
        """An OpenAI tool dict."""
        return _openai_wire(rendered)

    def close(self) -> None:
        """Nothing to release."""


class LangchainToolset:
    """langchain-core: ``@tool`` on each function, then ``convert_to_openai_tool`` on each."""

    label = "langchain-core"
    define_what = "langchain_core.tools.tool(fn)"
    render_what = "convert_to_openai_tool(t) for each"

    def __init__(self) -> None:
        from langchain_core.tools import tool
        from langchain_core.utils.function_calling import convert_to_openai_tool

        self._tool = tool
        self._convert = convert_to_openai_tool

    def define(self, functions: Sequence[Callable[..., Any]]) -> object:
        """Wrap every function as a ``StructuredTool`` (builds its args model)."""
        tool = self._tool
        return [tool(function) for function in functions]

    def render(self, defined: Any) -> list[Any]:
        """Convert every tool to an OpenAI tool dict."""
        convert = self._convert
        return [convert(item) for item in defined]

    def wire(self, rendered: Any) -> tuple[str, Mapping[str, Any], dict[str, Any]]:
        """An OpenAI tool dict."""
        return _openai_wire(rendered)

    def close(self) -> None:
        """Nothing to release."""


class PydanticAIToolset:
    """pydantic-ai-slim: ``FunctionToolset.add_function`` each, then ``get_tools``.

    ``get_tools`` yields ``ToolDefinition`` objects (name, description, parameter schema):
    pydantic-ai maps them to a provider's wire format only inside its model classes
    (``OpenAIChatModel._map_tool_definition``, private and bound to a configured model), so
    that last, cheap step is not measured for pydantic-ai.
    """

    label = "pydantic-ai-slim"
    define_what = "FunctionToolset().add_function(fn)"
    render_what = "await toolset.get_tools(ctx) -> ToolDefinition"

    def __init__(self) -> None:
        from pydantic_ai import FunctionToolset, RunContext
        from pydantic_ai.models.test import TestModel
        from pydantic_ai.usage import RunUsage

        self._toolset_type = FunctionToolset
        self._context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
        self._loop = asyncio.new_event_loop()

    def define(self, functions: Sequence[Callable[..., Any]]) -> object:
        """Add every function to one toolset (builds each function's schema and validator)."""
        toolset = self._toolset_type()
        add = toolset.add_function
        for function in functions:
            add(function)
        return toolset

    def render(self, defined: Any) -> list[Any]:
        """The toolset's tool definitions for a run step, as an agent asks for them."""
        tools = self._loop.run_until_complete(defined.get_tools(self._context))
        return [item.tool_def for item in tools.values()]

    def wire(self, rendered: Any) -> tuple[str, Mapping[str, Any], dict[str, Any]]:
        """A ``ToolDefinition`` as the OpenAI function payload it maps to."""
        payload = {
            "type": "function",
            "function": {
                "name": rendered.name,
                "description": rendered.description,
                "parameters": rendered.parameters_json_schema,
            },
        }
        return rendered.name, rendered.parameters_json_schema, payload

    def close(self) -> None:
        """Close the adapter's event loop."""
        self._loop.close()


class OpenAIAgentsToolset:
    """openai-agents: ``function_tool`` each, then the chat-completions converter on each."""

    label = "openai-agents"
    define_what = "agents.function_tool(fn)"
    render_what = "chatcmpl_converter.Converter.tool_to_openai(t) for each"

    def __init__(self) -> None:
        from agents import function_tool

        self._function_tool = function_tool
        self._to_openai: Callable[[Any], Any]
        try:
            from agents.models.chatcmpl_converter import Converter
        except ImportError:  # the converter moved: render from the tool's own attributes
            self._to_openai = _agents_tool_as_openai
            self.render_what = "FunctionTool attributes -> OpenAI dict (Converter missing)"
        else:
            self._to_openai = Converter.tool_to_openai

    def define(self, functions: Sequence[Callable[..., Any]]) -> object:
        """Wrap every function (builds ``params_json_schema`` at once)."""
        function_tool = self._function_tool
        return [function_tool(function) for function in functions]

    def render(self, defined: Any) -> list[Any]:
        """Convert every tool to a chat-completions tool dict."""
        to_openai = self._to_openai
        return [to_openai(item) for item in defined]

    def wire(self, rendered: Any) -> tuple[str, Mapping[str, Any], dict[str, Any]]:
        """An OpenAI tool dict."""
        return _openai_wire(rendered)

    def close(self) -> None:
        """Nothing to release."""


@dataclass(slots=True)
class ToolsetResult:
    """What one framework measured over the rounds (per tool, in seconds).

    Attributes:
        label: The framework.
        define_what: What "define" does for it.
        render_what: What "render" does for it.
        define: Defining (and, for nucleo, registering).
        render: The first render.
        render_again: The second render of the unchanged collection.
        payload_bytes: Size of one rendered tool as compact JSON (the first tool).
    """

    label: str
    define_what: str
    render_what: str
    define: Outcome
    render: Outcome
    render_again: Outcome
    payload_bytes: int = 0

    @property
    def define_and_render(self) -> Outcome:
        """Define plus first render, summed round by round."""
        if isinstance(self.define, Samples) and isinstance(self.render, Samples):
            return self.define + self.render
        return self.define if isinstance(self.define, Unavailable) else self.render


_ADAPTERS: tuple[tuple[str, Callable[[], Toolset]], ...] = (
    ("nucleo-core", NucleoToolset),
    ("langchain-core", LangchainToolset),
    ("pydantic-ai-slim", PydanticAIToolset),
    ("openai-agents", OpenAIAgentsToolset),
)


def run_tools_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (a) and (b) for every framework, print the tables, return the verdicts."""
    print_heading(f"(a)+(b) Declaring and rendering {count:,} tools")
    print(f"Each tool: {SEARCH_SIGNATURE}, distinct name and docstring (Google-style Args).")
    print(
        f"{rounds} timed rounds after one warm-up round of {_WARMUP_TOOLS} tools; fresh "
        "functions for every framework in every round; garbage collector paused while timing."
    )
    adapters: dict[str, Toolset] = {}
    failures: dict[str, Unavailable] = {}
    for label, factory in _ADAPTERS:
        try:
            adapters[label] = factory()
        except Exception as exc:
            failures[label] = Unavailable(short_error(exc))
            if label == "nucleo-core":
                print_failure("setting up nucleo", exc)

    samples: dict[str, dict[str, list[float]]] = {
        label: {"define": [], "render": [], "render_again": []} for label in adapters
    }
    payloads: dict[str, int] = {}
    sample_tool: dict[str, Any] | None = None
    for round_index in range(rounds + 1):
        warmup = round_index == 0
        size = min(count, _WARMUP_TOOLS) if warmup else count
        labels = list(adapters)
        shift = round_index % max(len(labels), 1)
        for label in labels[shift:] + labels[:shift]:
            adapter = adapters[label]
            tag = f"r{round_index}_{label.replace('-', '_')}"
            try:
                figures, rendered = _one_round(adapter, size, tag)
            except Exception as exc:
                failures[label] = Unavailable(short_error(exc))
                del adapters[label]
                adapter.close()
                if label == "nucleo-core":
                    print_failure("nucleo's declare/render round", exc)
                continue
            if warmup:
                continue
            for name, value in figures.items():
                samples[label][name].append(value)
            if label not in payloads:
                payload = adapter.wire(rendered[0])[2]
                payloads[label] = len(json.dumps(payload, separators=(",", ":")))
                if label == "nucleo-core":
                    sample_tool = payload
    for adapter in adapters.values():
        adapter.close()

    results: dict[str, ToolsetResult] = {}
    for label, factory in _ADAPTERS:
        define_what = getattr(factory, "define_what", "")
        render_what = getattr(factory, "render_what", "")
        if label in adapters:
            measured = samples[label]
            results[label] = ToolsetResult(
                label=label,
                define_what=define_what,
                render_what=adapters[label].render_what,
                define=Samples(tuple(measured["define"])),
                render=Samples(tuple(measured["render"])),
                render_again=Samples(tuple(measured["render_again"])),
                payload_bytes=payloads.get(label, 0),
            )
        else:
            missing = failures[label]
            results[label] = ToolsetResult(
                label, define_what, render_what, missing, missing, missing
            )

    _print_results(results, count)
    if sample_tool is not None:
        print("\nnucleo's first rendered tool (OpenAI chat-completions format):")
        print(json.dumps(sample_tool, indent=1)[:1200])
    return _verdicts(results)


def _one_round(adapter: Toolset, size: int, tag: str) -> tuple[dict[str, float], list[Any]]:
    """Define, render and re-render ``size`` fresh tools; per-tool seconds and the render."""
    with generated_tools(size, tag) as functions:
        define_time, defined = timed(lambda: adapter.define(functions))
        render_time, rendered = timed(lambda: adapter.render(defined))
        again_time = min(
            timed(lambda: adapter.render(defined))[0] for _ in range(_SECOND_RENDER_REPEATS)
        )
        _check_rendered(adapter, rendered, functions)
    figures = {
        "define": define_time / size,
        "render": render_time / size,
        "render_again": again_time / size,
    }
    return figures, rendered


def _check_rendered(
    adapter: Toolset, rendered: Sequence[Any], functions: Sequence[Callable[..., Any]]
) -> None:
    """Fail unless every function was rendered, in order, with the three parameters."""
    if len(rendered) != len(functions):
        raise AssertionError(f"rendered {len(rendered)} tools for {len(functions)} functions")
    for item, function in zip(rendered, functions, strict=True):
        name, parameters, _ = adapter.wire(item)
        properties = parameters.get("properties", {})
        if name != function.__name__ or set(properties) != _EXPECTED_PARAMETERS:
            raise AssertionError(f"unexpected rendering of {function.__name__}: {name}")
        mode = properties["mode"]
        enum = mode.get("enum") or [mode.get("const")]
        if list(enum) != _EXPECTED_MODES:
            raise AssertionError(f"'mode' of {name} lost its Literal values: {mode}")


def _openai_wire(rendered: Any) -> tuple[str, Mapping[str, Any], dict[str, Any]]:
    function = rendered["function"]
    return function["name"], function["parameters"], rendered


def _agents_tool_as_openai(tool: Any) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description or "",
            "parameters": tool.params_json_schema,
            "strict": tool.strict_json_schema,
        },
    }


def _cell(outcome: Outcome) -> str:
    if isinstance(outcome, Unavailable):
        return "-"
    return f"{fmt_time(outcome.best)} (med {fmt_time(outcome.median)})"


def _print_results(results: Mapping[str, ToolsetResult], count: int) -> None:
    print(f"\nPer tool, best round (median in brackets); x{count:,} for the whole set.")
    nucleo = results["nucleo-core"]
    nucleo_define = nucleo.define.best if isinstance(nucleo.define, Samples) else None
    rows: list[list[str]] = []
    missing: dict[str, str] = {}
    for result in results.values():
        if isinstance(result.define, Unavailable):
            rows.append([result.label, "unavailable (below)"])
            missing[result.label] = result.define.reason
            continue
        both = result.define_and_render
        ratio = "-"
        if nucleo_define and isinstance(both, Samples) and result.label != "nucleo-core":
            ratio = fmt_ratio(both.best / nucleo_define)
        rows.append(
            [
                result.label,
                _cell(result.define),
                _cell(result.render),
                _cell(both),
                _cell(result.render_again),
                ratio,
                str(result.payload_bytes),
            ]
        )
    headers = [
        "framework",
        "define",
        "first render",
        "define + first render",
        "second render",
        "d+r / nucleo define",
        "JSON bytes/tool",
    ]
    rows = [row + [""] * (len(headers) - len(row)) for row in rows]
    print_table(headers, rows)
    print_unavailable(missing)
    print("\nWhat each column runs:")
    for result in results.values():
        print(f"  {result.label}: define = {result.define_what}; render = {result.render_what}")
    print(
        "  nucleo builds schemas lazily, so its 'define' is declaration only and its first "
        "render builds the schemas;\n  the peers build schemas at definition, so their "
        "'define + first render' is the comparable figure."
    )


def _verdicts(results: Mapping[str, ToolsetResult]) -> list[Verdict]:
    nucleo = results["nucleo-core"]
    peers = {
        label: result.define_and_render
        for label, result in results.items()
        if label != "nucleo-core" and isinstance(result.define_and_render, Samples)
    }
    fastest_label = min(peers, key=lambda label: peers[label].best) if peers else None
    fastest = peers[fastest_label].best if fastest_label else None
    versus = f"fastest peer {fastest_label}" if fastest_label else "no peer available"
    verdicts: list[Verdict] = []

    if not isinstance(nucleo.define, Samples) or not isinstance(nucleo.render, Samples):
        reason = nucleo.define if isinstance(nucleo.define, Unavailable) else nucleo.render
        note = reason.reason if isinstance(reason, Unavailable) else ""
        for key in ("(a) declare+register", "(a) vs peers", "(b) first render", "(b) second"):
            verdicts.append(Verdict(key, "not measured", "-", False, note))
        return verdicts

    declare = nucleo.define.best
    verdicts.append(
        Verdict(
            "(a) nucleo declare+register per tool",
            fmt_time(declare),
            f"< {fmt_time(DECLARE_TARGET)}",
            declare < DECLARE_TARGET,
            f"median {fmt_time(nucleo.define.median)}",
        )
    )
    if fastest is None:
        verdicts.append(Verdict("(a) speed-up vs fastest peer", "-", ">= 10x", None, versus))
    else:
        speedup = fastest / declare
        verdicts.append(
            Verdict(
                "(a) speed-up vs fastest peer define+render",
                fmt_ratio(speedup),
                f">= {DECLARE_SPEEDUP_TARGET:.0f}x",
                speedup >= DECLARE_SPEEDUP_TARGET,
                f"{versus}: {fmt_time(fastest)}/tool vs nucleo {fmt_time(declare)}/tool",
            )
        )

    first = nucleo.render.best
    total = (nucleo.define + nucleo.render).best
    if fastest is None:
        verdicts.append(Verdict("(b) first render", fmt_time(first), "<= peer", None, versus))
    else:
        verdicts.append(
            Verdict(
                "(b) nucleo first render per tool vs fastest peer define+render",
                f"{fmt_time(first)} vs {fmt_time(fastest)} ({fmt_ratio(fastest / first)})",
                "not slower",
                first <= fastest,
                versus,
            )
        )
        verdicts.append(
            Verdict(
                "(b) stricter: nucleo declare+register+first render vs fastest peer",
                f"{fmt_time(total)} vs {fmt_time(fastest)} ({fmt_ratio(fastest / total)})",
                "not slower",
                total <= fastest,
                "identical end-to-end work on both sides",
            )
        )
    if isinstance(nucleo.render_again, Samples):
        again = nucleo.render_again.best
        verdicts.append(
            Verdict(
                "(b) nucleo second render per tool",
                fmt_time(again),
                f"< {fmt_time(SECOND_RENDER_TARGET)}",
                again < SECOND_RENDER_TARGET,
                f"median {fmt_time(nucleo.render_again.median)}",
            )
        )
    return verdicts
