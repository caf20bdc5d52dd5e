"""Timing, formatting and verdict helpers shared by every benchmark section.

Figures are wall-clock times from `time.perf_counter`, taken over several rounds; a section
reports the best round (the least disturbed by the rest of the machine) and the median.
"""

from __future__ import annotations

import gc
import statistics
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = [
    "Outcome",
    "Samples",
    "Unavailable",
    "Verdict",
    "fmt_ratio",
    "fmt_time",
    "gc_paused",
    "print_failure",
    "print_heading",
    "print_table",
    "print_unavailable",
    "short_error",
    "timed",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Samples:
    """Per-unit times (seconds per tool, per call, ...) of the rounds of one measurement.

    Attributes:
        values: One figure per round, in the order measured.
    """

    values: tuple[float, ...]

    @property
    def best(self) -> float:
        """The fastest round."""
        return min(self.values)

    @property
    def median(self) -> float:
        """The median round."""
        return statistics.median(self.values)

    def __add__(self, other: Samples) -> Samples:
        """Round-by-round sum of two measurements taken in the same rounds."""
        return Samples(tuple(a + b for a, b in zip(self.values, other.values, strict=True)))


@dataclass(frozen=True, slots=True)
class Unavailable:
    """A measurement that could not be made, and why.

    Attributes:
        reason: One line saying what was missing or what failed.
    """

    reason: str


#: What a measurement yields: its samples, or why there are none.
Outcome = Samples | Unavailable


@dataclass(frozen=True, slots=True)
class Verdict:
    """One line of the closing summary: a figure, its target, and whether it was met.

    Attributes:
        key: The requirement's label, e.g. ``"(a) declare+register"``.
        figure: The measured figure, formatted.
        target: The target, formatted.
        passed: ``True`` for PASS, ``False`` for MISS, ``None`` when it could not be judged.
        note: Anything a reader needs to interpret the line.
    """

    key: str
    figure: str
    target: str
    passed: bool | None
    note: str = field(default="")

    @property
    def status(self) -> str:
        """``PASS``, ``MISS`` or ``N/A``."""
        if self.passed is None:
            return "N/A"
        return "PASS" if self.passed else "MISS"

    def line(self) -> str:
        """The verdict as one printable line."""
        note = f"  [{self.note}]" if self.note else ""
        return f"{self.status:<4}  {self.key}: {self.figure} (target {self.target}){note}"


@contextmanager
def gc_paused() -> Iterator[None]:
    """Collect garbage, then keep the collector off for the timed block (as `timeit` does)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def timed(work: Callable[[], T]) -> tuple[float, T]:
    """Run ``work`` once with the collector paused; return its wall time and its result."""
    with gc_paused():
        start = time.perf_counter()
        result = work()
        elapsed = time.perf_counter() - start
    return elapsed, result


def fmt_time(seconds: float) -> str:
    """A duration with a unit chosen for readability (ns, µs, ms or s)."""
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(ratio: float) -> str:
    """A ratio such as ``12.3x``."""
    return f"{ratio:.1f}x" if ratio >= 10 else f"{ratio:.2f}x"


def short_error(exc: BaseException) -> str:
    """An exception as one short line, for an "unavailable" cell."""
    text = " ".join(str(exc).split())
    if len(text) > 160:
        text = text[:157] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def print_heading(title: str) -> None:
    """Print a section heading."""
    print()
    print(title)
    print("=" * len(title))


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print rows as a left-aligned text table with a rule under the headers."""
    widths = [len(header) for header in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    print("  ".join(header.ljust(width) for header, width in zip(headers, widths, strict=True)))
    print("  ".join("-" * width for width in widths))
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def print_unavailable(reasons: Mapping[str, str]) -> None:
    """Print, under a table, why each row marked unavailable has no figures."""
    for label, reason in reasons.items():
        print(f"  {label} unavailable: {reason}")


def print_failure(label: str, exc: BaseException) -> None:
    """Print a failure of nucleo's own side in full: it is a finding, not a missing peer."""
    print(f"!! {label} failed: {short_error(exc)}")
    traceback.print_exception(exc)
