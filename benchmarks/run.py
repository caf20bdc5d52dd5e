"""nucleo's benchmarks, measured in one run side by side with the peers on equal work.

Run by ``nox -s bench`` (which installs nucleo and the peers: langchain-core, pydantic-ai-slim,
openai-agents, llm), or directly with ``python benchmarks/run.py``. Prints a table per section
and a closing summary in which each requirement is two lines: the work it covers (the same on
both sides of a comparison), then its median, min and max, target, and PASS, MISS or NOISY.
Verdicts come from the median of interleaved rounds with GC enabled (see `bench_harness`); a
section with a NOISY verdict is run again, up to ``--repeats`` times. Figures covering less
work are printed as "not judged". A peer that is missing, or whose API differs in the
installed version, is shown as N/A instead of stopping the run.

The exit status is 0 even when a target is missed (the run is a report); ``--strict`` makes
any MISS exit with status 1.

Sections:
    (a)+(b) defining and rendering 1,000 generated tools with their input validators built,
        against the peers' definitions (which build their validators); the validator alone;
        the second render;
    (c) one tool call of ``async def add(a: int, b: int) -> int`` from JSON text through the
        thinker's full path (decode, handler, call door, executor, result), against each
        peer's full tool-call path, with a profile of where nucleo's time goes;
    (d) ``import nucleo_core`` in a fresh interpreter, next to ``import llm`` and the peers;
    (e) the overhead of one ``LLMCall`` round trip with a 20-tool palette (scripted model);
    (f) a fresh process to a resolved catalog of 200 installed plugins x 25 tools with every
        schema built, next to ``llm`` loading 200 tool plugins of that size; and the peak RSS
        of both after calling each of the 5,000 tools once;
    (g) the per-turn cost of a thinker's tool definitions, 50-tool palette, 5,000-tool catalog;
    (h) 8 tools of 200 ms requested in one turn of a thinker (async tools, then sync tools);
    (i) the framework overhead of one loop turn (scripted model, 20-tool palette, two tool
        calls), next to pydantic-ai (FunctionModel) and the OpenAI Agents SDK (scripted Model);
    (j) one MCP tool call through nucleo's provider and client pool (entered on the caller's
        loop), next to the MCP SDK's own ``ClientSession.call_tool`` on the same stdio test
        server, on each protocol (needs the ``mcp`` extra);
    (k) the permission guard and the audit record: what the default guard and a SQLite
        `AuditLog` add to one auto call on the full call path (target <= 15 us, amortized);
    (l) `ToolIndex`: building an index of 5,000 tools, a query over 20,000, widening and
        narrowing that catalog by one tool next to a rebuild, and retrieval quality against
        plain BM25 on the development set (benchmarks/data/tool_retrieval.json);
    (m) one MCP tool call through ``nucleo mcp serve`` (the gateway: door, guard, audit, pool)
        against the same call made directly to the upstream server with the SDK's ``Client``
        (target <= 1.5x: two hops against one);
    (n) turns per second of 8 worker processes sharing one PostgreSQL store (a server the
        section starts) against 1 worker on SQLite, each turn waiting 20 ms for the model
        twice and 20 ms for its tool (target >= 4x; needs PostgreSQL and psycopg).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from importlib import metadata

from bench_calls import run_calls_section
from bench_exchange import run_exchange_section
from bench_gateway import run_gateway_section
from bench_guard import run_guard_section
from bench_harness import NOT_JUDGED, Verdict, print_heading
from bench_imports import run_imports_section
from bench_loop import run_loop_overhead_section, run_parallel_tools_section
from bench_mcp import run_mcp_section
from bench_plugins import run_cold_catalog_section, run_turn_definitions_section
from bench_search import run_search_section
from bench_tools import run_tools_section
from bench_workers import run_workers_section

_DISTRIBUTIONS = (
    "nucleo-core",
    "langchain-core",
    "pydantic-ai-slim",
    "openai-agents",
    "llm",
    "pydantic",
    "pydantic-core",
    "mcp",
)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--tools", type=_positive, default=1000, help="tools per round in (a)/(b)")
    parser.add_argument("--rounds", type=_positive, default=5, help="timed rounds in (a)/(b)")
    parser.add_argument("--calls", type=_positive, default=5000, help="calls per round in (c)")
    parser.add_argument("--call-rounds", type=_positive, default=7, help="timed rounds in (c)")
    parser.add_argument(
        "--exchanges", type=_positive, default=2000, help="exchanges per round in (e)"
    )
    parser.add_argument(
        "--import-runs", type=_positive, default=7, help="interpreters per module (d)"
    )
    parser.add_argument(
        "--plugins", type=_positive, default=200, help="generated plugin distributions in (f)"
    )
    parser.add_argument(
        "--plugin-tools", type=_positive, default=25, help="tools per generated plugin in (f)"
    )
    parser.add_argument(
        "--plugin-runs", type=_positive, default=5, help="fresh interpreters per row in (f)"
    )
    parser.add_argument(
        "--palette-tools", type=_positive, default=50, help="the thinker's palette in (g)"
    )
    parser.add_argument(
        "--catalog-tools", type=_positive, default=5000, help="the thinker's catalog in (g)"
    )
    parser.add_argument("--turns", type=_positive, default=500, help="turns per round in (g)")
    parser.add_argument("--turn-rounds", type=_positive, default=5, help="timed rounds in (g)")
    parser.add_argument(
        "--parallel-runs", type=_positive, default=7, help="timed thinker runs per variant (h)"
    )
    parser.add_argument(
        "--loop-runs", type=_positive, default=500, help="runs per framework per round in (i)"
    )
    parser.add_argument("--loop-rounds", type=_positive, default=7, help="timed rounds in (i)")
    parser.add_argument(
        "--mcp-calls", type=_positive, default=300, help="MCP calls per path per block in (j)"
    )
    parser.add_argument("--mcp-rounds", type=_positive, default=9, help="blocks of calls in (j)")
    parser.add_argument(
        "--guard-calls", type=_positive, default=5000, help="calls per variant per round in (k)"
    )
    parser.add_argument(
        "--search-rounds", type=_positive, default=7, help="interleaved timed rounds in (l)"
    )
    parser.add_argument(
        "--gateway-calls", type=_positive, default=200, help="calls per path per block in (m)"
    )
    parser.add_argument("--gateway-rounds", type=_positive, default=7, help="blocks in (m)")
    parser.add_argument(
        "--worker-turns", type=_positive, default=40, help="turns per worker per round in (n)"
    )
    parser.add_argument("--worker-rounds", type=_positive, default=3, help="rounds in (n)")
    parser.add_argument(
        "--sections",
        default="abcdefghijklmn",
        help="which sections to run, e.g. 'ab' or 'd' ((a) and (b) always run together)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a fast smoke run with small counts (not a report)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=2,
        help="how many times a section with a NOISY verdict is run again (0: never)",
    )
    parser.add_argument("--strict", action="store_true", help="exit with status 1 on any MISS")
    arguments = parser.parse_args(argv)
    if arguments.quick:
        arguments.tools, arguments.rounds = 100, 2
        arguments.calls, arguments.call_rounds = 200, 2
        arguments.import_runs = 2
        arguments.exchanges = 100
        arguments.plugins, arguments.plugin_runs = 20, 2
        arguments.catalog_tools, arguments.turns, arguments.turn_rounds = 500, 50, 2
        arguments.parallel_runs = 2
        arguments.loop_runs, arguments.loop_rounds = 50, 2
        arguments.mcp_calls, arguments.mcp_rounds = 30, 3
        arguments.search_rounds = 2
        arguments.guard_calls = 200
        arguments.gateway_calls, arguments.gateway_rounds = 30, 3
        arguments.worker_turns, arguments.worker_rounds = 10, 1
    return arguments


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def _print_environment(arguments: argparse.Namespace) -> None:
    print("nucleo-core benchmarks")
    print(f"Python {platform.python_version()} ({sys.executable})")
    print(f"{platform.platform()}, {os.cpu_count()} CPUs")
    print("Versions: " + ", ".join(f"{name} {_version(name)}" for name in _DISTRIBUTIONS))
    if arguments.quick:
        print("QUICK RUN: small counts, figures are not a report.")


def _print_summary(verdicts: list[Verdict]) -> None:
    print_heading("Summary")
    print(
        "Judged on the median of interleaved rounds (nucleo and the peer alternating), GC "
        "enabled;\nNOISY: the middle half of the rounds straddles the target; 'not judged': "
        "a figure covering less work,\nprinted for information."
    )
    for verdict in verdicts:
        print(verdict.line())
    counts = dict.fromkeys(("PASS", "MISS", "NOISY", "N/A", NOT_JUDGED), 0)
    for verdict in verdicts:
        counts[verdict.status] += 1
    print("\n" + ", ".join(f"{count} {status}" for status, count in counts.items()))


def _run_section(name: str, measure: Callable[[], list[Verdict]], repeats: int) -> list[Verdict]:
    """Run one section; while a verdict is NOISY, run it again, up to ``repeats`` more times."""
    verdicts = measure()
    for attempt in range(repeats):
        noisy = [verdict.key for verdict in verdicts if verdict.status == "NOISY"]
        if not noisy:
            break
        print(
            f"\n>> section ({name}): NOISY {', '.join(noisy)}; repeating the section "
            f"(repeat {attempt + 1} of at most {repeats})"
        )
        verdicts = measure()
    return verdicts


def main(argv: list[str] | None = None) -> int:
    """Run the selected sections and print the summary; the exit status (see module doc)."""
    arguments = _arguments(argv)
    _print_environment(arguments)
    started = time.perf_counter()
    verdicts: list[Verdict] = []
    sections = arguments.sections.lower()
    plan: list[tuple[str, Callable[[], list[Verdict]]]] = []
    if "a" in sections or "b" in sections:
        plan.append(("a+b", lambda: run_tools_section(arguments.tools, arguments.rounds)))
    if "c" in sections:
        plan.append(("c", lambda: run_calls_section(arguments.calls, arguments.call_rounds)))
    if "d" in sections:
        plan.append(("d", lambda: run_imports_section(arguments.import_runs)))
    if "e" in sections:
        plan.append(("e", lambda: run_exchange_section(arguments.exchanges, arguments.call_rounds)))
    if "f" in sections:
        plan.append(
            (
                "f",
                lambda: run_cold_catalog_section(
                    arguments.plugins, arguments.plugin_tools, arguments.plugin_runs
                ),
            )
        )
    if "g" in sections:
        plan.append(
            (
                "g",
                lambda: run_turn_definitions_section(
                    arguments.palette_tools,
                    arguments.catalog_tools,
                    arguments.turns,
                    arguments.turn_rounds,
                ),
            )
        )
    if "h" in sections:
        plan.append(("h", lambda: run_parallel_tools_section(arguments.parallel_runs)))
    if "i" in sections:
        plan.append(
            ("i", lambda: run_loop_overhead_section(arguments.loop_runs, arguments.loop_rounds))
        )
    if "j" in sections:
        plan.append(("j", lambda: run_mcp_section(arguments.mcp_calls, arguments.mcp_rounds)))
    if "k" in sections:
        plan.append(("k", lambda: run_guard_section(arguments.guard_calls, arguments.call_rounds)))
    if "l" in sections:
        plan.append(("l", lambda: run_search_section(rounds=arguments.search_rounds)))
    if "m" in sections:
        plan.append(
            (
                "m",
                lambda: run_gateway_section(arguments.gateway_calls, arguments.gateway_rounds),
            )
        )
    if "n" in sections:
        plan.append(
            ("n", lambda: run_workers_section(arguments.worker_turns, arguments.worker_rounds))
        )
    took: list[str] = []
    for name, measure in plan:
        section_started = time.perf_counter()
        verdicts += _run_section(name, measure, arguments.repeats)
        took.append(f"({name}) {time.perf_counter() - section_started:.0f} s")
    _print_summary(verdicts)
    print(f"Total benchmark time: {time.perf_counter() - started:.0f} s ({', '.join(took)})")
    if arguments.strict and any(verdict.passed is False for verdict in verdicts):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
