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
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bench_harness import (
    Samples,
    Verdict,
    fmt_ratio,
    fmt_time,
    judge_at_least,
    judge_at_most,
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
from bench_toolgen import SEARCH_SIGNATURE, generated_tools

__all__ = ["run_tools_section"]

#: Targets of the issue (medians): define + render with validators built at least this many
#: times faster than the fastest peer; one simple-signature validator built within this long;
#: a second render within this long per tool.
SPEEDUP_TARGET = 2.0
VALIDATOR_TARGET = 150e-6
SECOND_RENDER_TARGET = 2e-6

#: How many times the second render is repeated within a round (the median counts).
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

    def build_validators(self, defined: Any) -> None:
        """Build every tool's input validator (its input model), as its first call would."""
        for provider in defined.providers():
            provider.input_type  # noqa: B018  # the property builds the validator on first need

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


_ADAPTERS: tuple[tuple[str, Callable[[], Toolset]], ...] = (
    ("nucleo-core", NucleoToolset),
    ("langchain-core", LangchainToolset),
    ("pydantic-ai-slim", PydanticAIToolset),
    ("openai-agents", OpenAIAgentsToolset),
)

#: The per-round figures each framework records (seconds per tool).
_PHASES = ("define", "render", "validators", "render_again")


@dataclass(slots=True)
class _Measured:
    """One framework's per-tool seconds, round by round, or why it has none."""

    label: str
    what: str
    rounds: dict[str, list[float]]
    unavailable: str | None = None
    payload_bytes: int = 0

    def samples(self, phase: str) -> Samples:
        return Samples(tuple(self.rounds[phase]))

    @property
    def full(self) -> Samples:
        """Define + first render + validators built: the work every framework does."""
        return self.samples("define") + self.samples("render") + self.samples("validators")


def run_tools_section(count: int, rounds: int) -> list[Verdict]:
    """Measure (a) and (b) for every framework, print the tables, return the verdicts."""
    print_heading(f"(a)+(b) Defining and rendering {count:,} tools, with their input validators")
    print(f"Each tool: {SEARCH_SIGNATURE}, distinct name and docstring (Google-style Args).")
    print(
        f"{rounds} rounds after one warm-up round of {_WARMUP_TOOLS} tools; in every round "
        "every framework runs once, in a rotating order,\non fresh functions; GC enabled; "
        "verdicts on the median round (per-round ratios for speed-ups)."
    )
    print_work("(a)+(b) judged", _WORK)
    adapters: dict[str, Toolset] = {}
    measured: dict[str, _Measured] = {}
    for label, factory in _ADAPTERS:
        what = f"{getattr(factory, 'define_what', '')}; then {getattr(factory, 'render_what', '')}"
        measured[label] = _Measured(label, what, {phase: [] for phase in _PHASES})
        try:
            adapters[label] = factory()
        except Exception as exc:
            measured[label].unavailable = short_error(exc)
            if label == "nucleo-core":
                print_failure("setting up nucleo", exc)

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
                measured[label].unavailable = short_error(exc)
                del adapters[label]
                adapter.close()
                if label == "nucleo-core":
                    print_failure("nucleo's define/render round", exc)
                continue
            if warmup:
                continue
            for name, value in figures.items():
                measured[label].rounds[name].append(value)
            if not measured[label].payload_bytes:
                payload = adapter.wire(rendered[0])[2]
                measured[label].payload_bytes = len(json.dumps(payload, separators=(",", ":")))
                if label == "nucleo-core":
                    sample_tool = payload
    for adapter in adapters.values():
        adapter.close()
    # A framework that failed in a later round has fewer rounds: it is reported unavailable.
    for label, result in measured.items():
        if result.unavailable is None and label not in adapters:
            result.unavailable = "failed"

    _print_results(measured, count)
    if sample_tool is not None:
        print("\nnucleo's first rendered tool (OpenAI chat-completions format):")
        print(json.dumps(sample_tool, indent=1)[:1200])
    return _verdicts(measured)


#: The work every judged comparison of (a)+(b) covers, on every side.
_WORK = (
    "turn each function into a tool (schema + description, input validator built) and render "
    "all to OpenAI tool dicts, per tool"
)


def _one_round(adapter: Toolset, size: int, tag: str) -> tuple[dict[str, float], list[Any]]:
    """Define, render, build validators and re-render ``size`` fresh tools; per-tool seconds."""
    clock = time.perf_counter
    with generated_tools(size, tag) as functions, settled():
        started = clock()
        defined = adapter.define(functions)
        defined_at = clock()
        rendered = adapter.render(defined)
        rendered_at = clock()
        # The peers build their validators at definition; nucleo builds them on first need.
        build = getattr(adapter, "build_validators", None)
        if build is not None:
            build(defined)
        validated_at = clock()
        again = []
        for _ in range(_SECOND_RENDER_REPEATS):
            before = clock()
            adapter.render(defined)
            again.append(clock() - before)
        _check_rendered(adapter, rendered, functions)
    figures = {
        "define": (defined_at - started) / size,
        "render": (rendered_at - defined_at) / size,
        "validators": (validated_at - rendered_at) / size,
        "render_again": statistics.median(again) / size,
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


def _print_results(measured: Mapping[str, _Measured], count: int) -> None:
    print(f"\nPer tool, median round (min-max); x{count:,} for the whole set.")
    nucleo = measured["nucleo-core"]
    rows: list[list[str]] = []
    missing: dict[str, str] = {}
    for result in measured.values():
        if result.unavailable is not None:
            rows.append([result.label, "unavailable (below)"])
            missing[result.label] = result.unavailable
            continue
        ratio = "-"
        if nucleo.unavailable is None and result is not nucleo:
            ratio = fmt_ratio(ratios(result.full, nucleo.full).median)
        rows.append(
            [
                result.label,
                _cell(result.samples("define")),
                _cell(result.samples("render")),
                _cell(result.samples("validators")) if result is nucleo else "(in define)",
                _cell(result.full),
                _cell(result.samples("render_again")),
                ratio,
                str(result.payload_bytes),
            ]
        )
    print_table(
        [
            "framework",
            "define",
            "first render",
            "validators",
            "all three (judged)",
            "second render",
            "peer / nucleo",
            "JSON bytes/tool",
        ],
        rows,
    )
    print_unavailable(missing)
    print("\nWhat each framework runs:")
    for result in measured.values():
        print(f"  {result.label}: {result.what}")
    print(
        "  nucleo builds schemas and validators lazily: its 'define' is the declaration only, "
        "its first render\n  builds the schemas, and 'validators' builds each tool's input "
        "model (provider.input_type, what\n  the first call needs). The peers build all of "
        "it at definition, so only 'all three' is compared."
    )


def _verdicts(measured: Mapping[str, _Measured]) -> list[Verdict]:
    nucleo = measured["nucleo-core"]
    keys = (
        "(a)+(b) define + render with validators built, vs fastest peer",
        "(b) validator built per simple-signature tool",
        "(b) second render per tool",
    )
    if nucleo.unavailable is not None:
        return [unavailable(key, _WORK, nucleo.unavailable, nucleo_failed=True) for key in keys]
    peers = {
        label: result.full
        for label, result in measured.items()
        if result is not nucleo and result.unavailable is None
    }
    verdicts: list[Verdict] = []
    if not peers:
        verdicts.append(unavailable(keys[0], _WORK, "no peer available"))
    else:
        fastest = min(peers, key=lambda label: peers[label].median)
        verdicts.append(
            judge_at_least(
                keys[0],
                _WORK,
                ratios(peers[fastest], nucleo.full),
                SPEEDUP_TARGET,
                note=f"fastest peer {fastest} {fmt_time(peers[fastest].median)}/tool vs nucleo "
                f"{fmt_time(nucleo.full.median)}/tool (medians)",
            )
        )
    verdicts.append(
        judge_at_most(
            keys[1],
            f"build one tool's input validator (pydantic-core's, as its first call needs) from its "
            "resolved signature, "
            f"{SEARCH_SIGNATURE}",
            nucleo.samples("validators"),
            VALIDATOR_TARGET,
        )
    )
    verdicts.append(
        judge_at_most(
            keys[2],
            "render the unchanged registry of tools to OpenAI tool dicts again, per tool",
            nucleo.samples("render_again"),
            SECOND_RENDER_TARGET,
        )
    )
    verdicts.append(
        not_judged(
            "(a) nucleo declare + register per tool",
            "@tool + ToolRegistry.register only",
            nucleo.samples("define").text(),
            "covers less work than the peers' definition: no schema, no docstring parse, no "
            "validator",
        )
    )
    verdicts.append(
        not_judged(
            "(a)+(b) nucleo define + first render per tool",
            "declaration + schemas + descriptions, no validator",
            (nucleo.samples("define") + nucleo.samples("render")).text(),
            "covers less work than the peers' definition: no input validator",
        )
    )
    return verdicts


def _cell(samples: Samples) -> str:
    return f"{fmt_time(samples.median)} ({fmt_time(samples.min)}-{fmt_time(samples.max)})"
