"""Section (d): the cost of ``import nucleo_core`` in a fresh interpreter, next to the peers.

Two figures per module, both from fresh interpreters started with this same Python:

* **wall**: each run of ``python -c "import X"`` minus the run of ``python -c "pass"``
  (interpreter start-up) of the same round, runs interleaved module by module; the median
  round is judged;
* **-X importtime**: the sum of the "self" column of ``python -X importtime -c "import X"``
  minus the same sum for ``python -X importtime -c "pass"``, median of the runs.

Every interpreter runs once untimed first (to write bytecode caches, with
``PYTHONDONTWRITEBYTECODE`` removed from its environment), in a neutral working directory so
that the installed package is what is imported.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bench_harness import (
    Samples,
    Unavailable,
    Verdict,
    fmt_ratio,
    fmt_time,
    judge_at_least,
    judge_at_most,
    print_heading,
    print_table,
    print_unavailable,
    print_work,
    ratios,
    unavailable,
)

__all__ = ["run_imports_section"]

IMPORT_TARGET = 150e-3

#: (label, module) in the order shown; nucleo first, then the one it is judged against.
_MODULES: tuple[tuple[str, str], ...] = (
    ("nucleo-core", "nucleo_core"),
    ("llm", "llm"),
    ("langchain-core", "langchain_core.tools"),
    ("pydantic-ai-slim", "pydantic_ai"),
    ("openai-agents", "agents"),
)

#: Heavy modules whose presence after ``import nucleo_core`` is worth reporting.
_HEAVY = ("pydantic", "pydantic_core", "jsonschema", "docstring_parser", "asyncio", "pluggy")

_IMPORTTIME_LINE = re.compile(r"^import time:\s+(\d+)\s*\|\s*(\d+)\s*\|")


@dataclass(slots=True)
class ImportResult:
    """Import cost of one module, net of interpreter start-up (seconds).

    Attributes:
        label: The framework.
        module: The module imported.
        wall: Each run's wall time minus the baseline's of the same round, or why it is missing.
        importtime: Each run's ``-X importtime`` self-time total minus the baseline's.
        modules: How many modules the import added to ``sys.modules``.
    """

    label: str
    module: str
    wall: Samples | Unavailable
    importtime: Samples | Unavailable
    modules: int | None = None


def _environment() -> dict[str, str]:
    """This process's environment, minus what would make every run compile from source."""
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    return environment


def _python(arguments: Sequence[str], workdir: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=workdir,
        env=_environment(),
        capture_output=True,
        text=True,
        check=False,
    )


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module.partition(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def _check(completed: subprocess.CompletedProcess[str]) -> None:
    if completed.returncode != 0:
        lines = completed.stderr.strip().splitlines()
        raise RuntimeError(lines[-1] if lines else f"exit status {completed.returncode}")


def _wall(code: str, workdir: str) -> float:
    start = time.perf_counter()
    completed = _python(["-c", code], workdir)
    elapsed = time.perf_counter() - start
    _check(completed)
    return elapsed


def _importtime(code: str, workdir: str) -> float:
    completed = _python(["-X", "importtime", "-c", code], workdir)
    _check(completed)
    total_us = sum(
        int(match.group(1))
        for line in completed.stderr.splitlines()
        if (match := _IMPORTTIME_LINE.match(line))
    )
    return total_us / 1e6


def _module_count(module: str, workdir: str) -> int | None:
    code = (
        "import sys; before = len(sys.modules); import "
        + module
        + "; print(len(sys.modules) - before)"
    )
    completed = _python(["-c", code], workdir)
    return int(completed.stdout) if completed.returncode == 0 else None


def _nucleo_heavy_imports(workdir: str) -> str:
    code = (
        "import sys, nucleo_core; print(' '.join(m for m in "
        + repr(_HEAVY)
        + " if m in sys.modules))"
    )
    completed = _python(["-c", code], workdir)
    if completed.returncode != 0:
        return "(import failed)"
    return completed.stdout.strip() or "none of them"


def run_imports_section(runs: int) -> list[Verdict]:
    """Measure (d) for every module, print the table, return the verdicts."""
    print_heading("(d) import cost in a fresh interpreter")
    print_work("(d) judged", _WORK)
    print(
        f"Interpreter: {sys.executable}\nwall = each of {runs} runs of python -c 'import X' "
        f"minus the same round's python -c 'pass'; -X importtime = sum of self times, minus "
        f"the baseline's; medians of {runs} rounds."
    )
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print(
            "PYTHONDONTWRITEBYTECODE is set here; it is unset for the measured interpreters so "
            "that bytecode caches are written once and read after, as in an ordinary install."
        )
    with tempfile.TemporaryDirectory(prefix="nucleo-bench-") as workdir:
        results = _measure(runs, workdir)
        heavy = _nucleo_heavy_imports(workdir)
    _print_results(results)
    print(f"\nOf {', '.join(_HEAVY)}, `import nucleo_core` loads: {heavy}")
    return _verdicts(results)


def _measure(runs: int, workdir: str) -> list[ImportResult]:
    results: dict[str, ImportResult] = {}
    codes: dict[str, str] = {}
    for label, module in _MODULES:
        if not _installed(module):
            missing = Unavailable(f"{module} is not installed")
            results[label] = ImportResult(label, module, missing, missing)
            continue
        code = f"import {module}"
        try:
            _wall(code, workdir)  # untimed: writes the bytecode caches
        except Exception as exc:
            failed = Unavailable(f"import {module} failed: {exc}")
            results[label] = ImportResult(label, module, failed, failed)
            continue
        codes[label] = code
        results[label] = ImportResult(
            label, module, Unavailable(""), Unavailable(""), _module_count(module, workdir)
        )

    _wall("pass", workdir)
    wall: dict[str, list[float]] = {label: [] for label in [*codes, "baseline"]}
    importtime: dict[str, list[float]] = {label: [] for label in [*codes, "baseline"]}
    for _ in range(runs):
        for label, code in [*codes.items(), ("baseline", "pass")]:
            wall[label].append(_wall(code, workdir))
            importtime[label].append(_importtime(code, workdir))
    base_wall = Samples(tuple(wall["baseline"]))
    base_importtime = Samples(tuple(importtime["baseline"]))
    for label in codes:
        results[label].wall = Samples(tuple(wall[label])) - base_wall
        results[label].importtime = Samples(tuple(importtime[label])) - base_importtime
    print(
        f"Baseline (python -c pass): wall {fmt_time(base_wall.median)}, "
        f"-X importtime {fmt_time(base_importtime.median)} (medians)"
    )
    return list(results.values())


def _figure(value: Samples | Unavailable) -> str:
    if isinstance(value, Unavailable):
        return "unavailable (below)"
    return f"{fmt_time(value.median)} ({fmt_time(value.min)}-{fmt_time(value.max)})"


def _print_results(results: Sequence[ImportResult]) -> None:
    nucleo = results[0]
    rows: list[list[str]] = []
    for result in results:
        ratio = "-"
        if (
            result is not nucleo
            and isinstance(result.wall, Samples)
            and isinstance(nucleo.wall, Samples)
            and nucleo.wall.min > 0
        ):
            ratio = fmt_ratio(ratios(result.wall, nucleo.wall).median)
        rows.append(
            [
                result.label,
                f"import {result.module}",
                _figure(result.wall),
                _figure(result.importtime),
                "-" if result.modules is None else str(result.modules),
                ratio,
            ]
        )
    print()
    print_table(
        [
            "framework",
            "statement",
            "wall (net, median)",
            "-X importtime (net)",
            "modules",
            "x nucleo",
        ],
        rows,
    )
    print_unavailable(
        {
            result.label: result.wall.reason
            for result in results
            if isinstance(result.wall, Unavailable)
        }
    )


_WORK = "a fresh interpreter importing the package, net of `python -c pass` of the same round"


def _verdicts(results: Sequence[ImportResult]) -> list[Verdict]:
    nucleo = results[0]
    llm = next(result for result in results if result.label == "llm")
    key = "(d) import nucleo_core (wall, net of start-up)"
    lighter = "(d) import nucleo_core lighter than import llm (wall, per-run ratio llm / nucleo)"
    if not isinstance(nucleo.wall, Samples) or not isinstance(nucleo.importtime, Samples):
        reason = nucleo.wall.reason if isinstance(nucleo.wall, Unavailable) else ""
        return [unavailable(key, _WORK, reason, nucleo_failed=True)]
    verdicts = [
        judge_at_most(
            key,
            "a fresh interpreter running `import nucleo_core`, net of start-up",
            nucleo.wall,
            IMPORT_TARGET,
            note=f"-X importtime {fmt_time(nucleo.importtime.median)}",
        )
    ]
    if not isinstance(llm.wall, Samples) or not isinstance(llm.importtime, Samples):
        reason = llm.wall.reason if isinstance(llm.wall, Unavailable) else ""
        verdicts.append(unavailable(lighter, _WORK, reason))
        return verdicts
    verdicts.append(
        judge_at_least(
            lighter,
            _WORK,
            ratios(llm.wall, nucleo.wall),
            1.0,
            note=f"-X importtime {fmt_time(nucleo.importtime.median)} vs "
            f"{fmt_time(llm.importtime.median)} (medians)",
        )
    )
    return verdicts
