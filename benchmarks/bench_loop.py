"""Sections (h) and (i): the thinker's loop, with slow tools and against the peers.

**(h) parallel tools.** A `SingleObjectiveThinker` whose scripted model calls 8 tools in its
first turn, each sleeping 200 ms, then answers. Three figures per run: the whole run
(``thinker.run``), the tool phase (from the model answering with the 8 calls to the model being
asked again with their results: handling the answer, the two-phase executor, the results turn,
the next turn's palette and request) and the tools' own span (the first tool starting to the
last one ending). Variants: ``async`` tools (`asyncio.sleep`); synchronous tools (`time.sleep`,
run in nucleo's own tool threads, `nucleo_core.tools.workers`, sized for any concurrency cap).
Best and median of N runs, after one warm-up run, each variant in a fresh event
loop.

**(i) loop overhead.** The identical scripted exchange of `bench_loop_frameworks` (20-tool
palette, turn 1 calls two tools, turn 2 answers) on nucleo, pydantic-ai and the OpenAI Agents
SDK, many runs in one event loop. A round times N runs of each framework (rotating order,
collector paused), then N replays of its scripted model alone; the figure is the mean run of
the round, minus the model's own cost; the median of the rounds is judged. The per-turn overhead is
that figure over the run's 2 model turns.
"""

from __future__ import annotations

import asyncio
import cProfile
import io
import os
import pstats
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from bench_harness import (
    Samples,
    Unavailable,
    Verdict,
    fmt_ratio,
    fmt_time,
    judge_at_least,
    judge_at_most,
    print_failure,
    print_heading,
    print_table,
    print_unavailable,
    ratios,
    settled,
    short_error,
    unavailable,
)
from bench_loop_frameworks import (
    CALLS,
    LOOP_SIGNATURE,
    PALETTE_SIZE,
    LoopRunner,
    NucleoLoop,
    OpenAIAgentsLoop,
    PydanticAILoop,
    loop_functions,
    nucleo_thinker,
    wait_functions,
)

__all__ = ["run_loop_overhead_section", "run_parallel_tools_section"]

#: Section (h): 8 tools of 200 ms in one turn finish within 1.15 x 200 ms.
TOOL_COUNT = 8
TOOL_DELAY = 0.2
PARALLEL_FACTOR = 1.15
#: Section (i): nucleo's per-turn overhead at least 2x below the fastest peer's.
LOOP_SPEEDUP_TARGET = 2.0
TURNS_PER_RUN = 2

#: Profile rows printed when (i) misses its target.
_PROFILE_ROWS = 16


# -- (h) parallel tools ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Variant:
    label: str
    asynchronous: bool
    judged: bool = True


@dataclass(slots=True)
class _ParallelFigures:
    runs: list[float] = field(default_factory=list)
    phases: list[float] = field(default_factory=list)
    spans: list[float] = field(default_factory=list)


def _default_workers() -> int:
    # ThreadPoolExecutor's default size, which asyncio's default executor has.
    cpus = getattr(os, "process_cpu_count", os.cpu_count)() or 1
    return min(32, cpus + 4)


async def _measure_parallel(variant: _Variant, runs: int) -> _ParallelFigures:
    from nucleo_core.testing import ScriptedModel, text_response, tool_use_response

    spans: list[tuple[float, float]] = []
    marks: list[float] = []
    first = tool_use_response(
        *[(f"wait_{i}", f'{{"label": "job {i}"}}') for i in range(TOOL_COUNT)]
    )
    final = text_response(f"All {TOOL_COUNT} jobs finished.")
    clock = time.perf_counter

    def script(request: Any) -> Any:
        marks.append(clock())
        return first if len(request.messages) == 1 else final

    model = ScriptedModel(script)
    figures = _ParallelFigures()
    tag = f"wait_{'async' if variant.asynchronous else 'sync'}"
    with wait_functions(
        tag, TOOL_COUNT, TOOL_DELAY, asynchronous=variant.asynchronous, spans=spans
    ) as functions:
        thinker = nucleo_thinker(functions, model)
        for index in range(runs + 1):  # the first run warms up: schemas, worker threads
            spans.clear()
            marks.clear()
            model.requests.clear()
            with settled():
                started = clock()
                answer = await thinker.run("Run every job and report.")
                elapsed = clock() - started
            _check_parallel(answer, spans, marks, model)
            if index == 0:
                continue
            figures.runs.append(elapsed)
            figures.phases.append(marks[1] - marks[0])
            figures.spans.append(max(end for _, end in spans) - min(start for start, _ in spans))
    return figures


def _check_parallel(answer: Any, spans: list[Any], marks: list[float], model: Any) -> None:
    from nucleo_core.models.messages import ToolResultBlock

    if answer != f"All {TOOL_COUNT} jobs finished." or len(marks) != 2:
        raise AssertionError(f"unexpected run: answer {answer!r} after {len(marks)} turns")
    results = [
        block
        for block in model.requests[-1].messages[-1].content
        if isinstance(block, ToolResultBlock)
    ]
    failed = [block.content for block in results if block.is_error]
    if len(spans) != TOOL_COUNT or len(results) != TOOL_COUNT or failed:
        raise AssertionError(f"{len(spans)} tools ran, {len(results)} results, failed: {failed}")


def run_parallel_tools_section(runs: int) -> list[Verdict]:
    """Measure and print section (h); return its verdicts."""
    limit = PARALLEL_FACTOR * TOOL_DELAY
    print_heading(
        f"(h) {TOOL_COUNT} tools of {fmt_time(TOOL_DELAY)} requested in one turn "
        "(SingleObjectiveThinker, scripted model)"
    )
    default_workers = _default_workers()
    print(
        f"Turn 1: the model calls wait_0 .. wait_{TOOL_COUNT - 1} (each sleeps "
        f"{fmt_time(TOOL_DELAY)}); turn 2: it answers. Default ExecutionPolicy (max_concurrency "
        f"8).\ntool phase = model answering with the calls -> model asked again with the "
        "results; tools' span = first tool start -> last tool end.\n"
        f"Best and median of {runs} runs after one warm-up run; each variant in a fresh event "
        "loop. Synchronous tools run in nucleo's own\ntool threads, not the loop's default "
        f"executor (min(32, CPUs + 4) = {default_workers} workers here)."
    )
    variants = [
        _Variant("async tools (asyncio.sleep)", asynchronous=True),
        _Variant("sync tools (time.sleep), nucleo's tool threads", asynchronous=False),
    ]
    rows: list[list[str]] = []
    verdicts: list[Verdict] = []
    for variant in variants:
        try:
            figures = asyncio.run(_measure_parallel(variant, runs))
        except Exception as exc:
            print_failure(variant.label, exc)
            if variant.judged:
                verdicts.append(
                    unavailable(
                        f"(h) {variant.label}", variant.label, short_error(exc), nucleo_failed=True
                    )
                )
            continue
        run, phase, span = (
            Samples(tuple(v)) for v in (figures.runs, figures.phases, figures.spans)
        )
        rows.append(
            [
                variant.label,
                fmt_time(run.median),
                f"{fmt_time(run.min)}-{fmt_time(run.max)}",
                fmt_time(phase.median),
                f"{fmt_time(phase.min)}-{fmt_time(phase.max)}",
                fmt_time(span.median),
                f"{phase.median / TOOL_DELAY:.3f}x",
            ]
        )
        if not variant.judged:
            continue
        work = (
            f"{TOOL_COUNT} tools of {fmt_time(TOOL_DELAY)} requested in one turn of a thinker "
            f"({variant.label})"
        )
        verdicts.append(
            judge_at_most(
                f"(h) {TOOL_COUNT} x {fmt_time(TOOL_DELAY)} {variant.label}: tool phase",
                work,
                phase,
                limit,
                note=f"{PARALLEL_FACTOR:.2f}x one tool's delay; tools' span "
                f"{fmt_time(span.median)}; whole run {fmt_time(run.median)}",
            )
        )
        if variant.asynchronous:  # the whole run too, for the async tools
            verdicts.append(
                judge_at_most(
                    f"(h) {TOOL_COUNT} x {fmt_time(TOOL_DELAY)} {variant.label}: whole run",
                    work + ", whole run: 2 model turns + the tool phase",
                    run,
                    limit,
                )
            )
    print()
    print_table(
        [
            "variant",
            "whole run (median)",
            "min-max",
            "tool phase (median)",
            "min-max",
            "tools' span (median)",
            "phase / 200 ms",
        ],
        rows,
    )
    return verdicts


# -- (i) loop overhead -------------------------------------------------------------------------


_ADAPTERS: tuple[tuple[str, Callable[[Any], LoopRunner]], ...] = (
    ("nucleo-core", NucleoLoop),
    ("pydantic-ai-slim", PydanticAILoop),
    ("openai-agents", OpenAIAgentsLoop),
)


@dataclass(slots=True)
class _LoopFigures:
    totals: list[float] = field(default_factory=list)
    models: list[float] = field(default_factory=list)

    @property
    def total(self) -> Samples:
        return Samples(tuple(self.totals))

    @property
    def model(self) -> Samples:
        return Samples(tuple(self.models))

    @property
    def net(self) -> Samples:
        return Samples(tuple(t - m for t, m in zip(self.totals, self.models, strict=True)))


async def _mean_run(work: Callable[[], Any], count: int) -> float:
    clock = time.perf_counter
    with settled():
        started = clock()
        for _ in range(count):
            await work()
        return (clock() - started) / count


async def _measure_loops(
    runners: dict[str, LoopRunner], runs: int, rounds: int, failures: dict[str, Unavailable]
) -> dict[str, _LoopFigures]:
    figures = {label: _LoopFigures() for label in runners}
    warmup = max(1, min(runs, 50))
    for label in list(runners):
        runner = runners[label]
        try:
            runner.check(await runner.run_once())  # the first run builds schemas, caches
            await _mean_run(runner.run_once, warmup)
            runner.check(await runner.run_once())
            runner.reset()
        except Exception as exc:
            _drop(label, exc, runners, figures, failures)
    for round_index in range(rounds):
        labels = list(runners)
        shift = round_index % max(len(labels), 1)
        for label in labels[shift:] + labels[:shift]:
            runner = runners[label]
            try:
                figures[label].totals.append(await _mean_run(runner.run_once, runs))
                figures[label].models.append(await _mean_run(runner.model_only, runs))
                runner.check(await runner.run_once())
                runner.reset()
            except Exception as exc:
                _drop(label, exc, runners, figures, failures)
    return figures


def _drop(
    label: str,
    exc: Exception,
    runners: dict[str, LoopRunner],
    figures: dict[str, _LoopFigures],
    failures: dict[str, Unavailable],
) -> None:
    failures[label] = Unavailable(short_error(exc))
    runners.pop(label, None)
    figures.pop(label, None)
    if label == "nucleo-core":
        print_failure("nucleo's loop run", exc)


def _profile_nucleo(runner: LoopRunner, runs: int) -> str:
    async def profiled() -> cProfile.Profile:
        profiler = cProfile.Profile()
        with settled():
            profiler.enable()
            for _ in range(runs):
                await runner.run_once()
            profiler.disable()
        return profiler

    profiler = asyncio.run(profiled())
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream).strip_dirs().sort_stats("tottime")
    stats.print_stats(_PROFILE_ROWS)
    lines = stream.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(line for line in lines[start:] if line.strip())


def run_loop_overhead_section(runs: int, rounds: int) -> list[Verdict]:
    """Measure and print section (i); return its verdicts."""
    print_heading(
        f"(i) One loop turn's framework overhead: {PALETTE_SIZE}-tool palette, two tool calls, "
        "scripted model"
    )
    calls = ", ".join(f"{name}({arguments})" for name, arguments in CALLS)
    print(
        f"The same {PALETTE_SIZE} tools on every framework: {LOOP_SIGNATURE}.\n"
        f"Turn 1: the model calls {calls}; turn 2: it answers text.\n"
        f"{rounds} rounds of {runs} runs per framework in one event loop (rotating order, "
        "GC enabled), after a warm-up;\nper run = mean run of the round minus the "
        "scripted model alone (its two recorded requests replayed);\nper turn = per run / "
        f"{TURNS_PER_RUN}. Each framework's exchange is checked (answer, and the tool results "
        "read on turn 2)."
    )
    runners: dict[str, LoopRunner] = {}
    failures: dict[str, Unavailable] = {}
    whats: dict[str, str] = {}
    with ExitStack() as stack:
        for label, factory in _ADAPTERS:
            whats[label] = str(getattr(factory, "what", ""))
            try:
                functions = stack.enter_context(loop_functions(label.replace("-", "_")))
                runners[label] = factory(functions)
            except Exception as exc:
                failures[label] = Unavailable(short_error(exc))
                if label == "nucleo-core":
                    print_failure("setting up nucleo", exc)
        figures = asyncio.run(_measure_loops(runners, runs, rounds, failures))
        extra = list(getattr(runners.get("nucleo-core"), "extra_tools", []))
        verdicts, missed = _report_loops(figures, failures, whats, extra)
        if missed and "nucleo-core" in runners:
            print(
                f"\nnucleo missed: cProfile of {runs} runs, by own time (top {_PROFILE_ROWS}):\n"
                + _profile_nucleo(runners["nucleo-core"], runs)
            )
    return verdicts


def _report_loops(
    figures: dict[str, _LoopFigures],
    failures: dict[str, Unavailable],
    whats: dict[str, str],
    extra: list[str],
) -> tuple[list[Verdict], bool]:
    nucleo = figures.get("nucleo-core")
    rows: list[list[str]] = []
    for label, _ in _ADAPTERS:
        measured = figures.get(label)
        if measured is None:
            rows.append([label, "unavailable (below)", "", "", "", "", ""])
            continue
        net = measured.net
        ratio = (
            "-"
            if nucleo is None or measured is nucleo
            else fmt_ratio(ratios(net, nucleo.net).median)
        )
        rows.append(
            [
                label,
                fmt_time(measured.total.median),
                fmt_time(measured.model.median),
                fmt_time(net.median),
                f"{fmt_time(net.min)}-{fmt_time(net.max)}",
                fmt_time(net.median / TURNS_PER_RUN),
                ratio,
            ]
        )
    print()
    print_table(
        [
            "framework",
            "run (median)",
            "model alone",
            "per run, net (median)",
            "min-max",
            "per turn (median)",
            "peer / nucleo",
        ],
        rows,
    )
    print_unavailable({label: failure.reason for label, failure in failures.items()})
    print("\nWhat each row runs:")
    for label, what in whats.items():
        print(f"  {label}: {what}")
    print(
        "  openai-agents runs with tracing disabled (RunConfig(tracing_disabled=True)); "
        "pydantic-ai without instrumentation."
    )
    if extra:
        print(
            f"  nucleo's requests also offer the conversation's {len(extra)} artifact tools "
            f"({', '.join(extra)}):\n  {PALETTE_SIZE + len(extra)} tool definitions a turn, "
            f"against the peers' {PALETTE_SIZE}."
        )
    key = f"(i) loop turn overhead vs fastest peer ({PALETTE_SIZE}-tool palette, two tool calls)"
    work = (
        f"a two-turn run (two tool calls, then a text answer) with a {PALETTE_SIZE}-tool palette, "
        "minus the scripted model alone"
    )
    if nucleo is None:
        reason = failures.get("nucleo-core", Unavailable("not measured")).reason
        return [unavailable(key, work, reason, nucleo_failed=True)], False
    peers = {label: f.net for label, f in figures.items() if label != "nucleo-core"}
    own = nucleo.net
    summary = (
        f"nucleo {fmt_time(own.median / TURNS_PER_RUN)}/turn, {fmt_time(own.median)}/run (medians)"
    )
    if not peers:
        return [unavailable(key, work, summary + "; no peer")], False
    fastest = min(peers, key=lambda label: peers[label].median)
    verdict = judge_at_least(
        key,
        work,
        ratios(peers[fastest], own),
        LOOP_SPEEDUP_TARGET,
        note=f"{summary}; fastest peer {fastest} "
        f"{fmt_time(peers[fastest].median / TURNS_PER_RUN)}/turn",
    )
    return [verdict], verdict.passed is False
