"""Timing, formatting and judging shared by every benchmark section.

How a figure becomes a verdict (the rules every section follows, and
``tests/contract/test_bench_harness.py`` pins):

* A measurement is a `Samples`: one figure per **round**. Where nucleo is compared with a peer,
  both run in every round, alternating (the order rotates from round to round), so a slow
  patch of the shared machine falls on both sides; a ratio is taken **round by round**
  (`ratios`) and judged on the median of those per-round ratios.
* The garbage collector stays **enabled** while timing, as in a real process. `settled`
  collects once *before* a timed block so that one round's garbage is not charged to the next.
* A verdict is judged on the **median** round, never on the best. Every printed figure shows
  median, min and max. When the target lies inside the interquartile range of the rounds (the
  middle half of them straddles the target) the verdict is ``NOISY``, not PASS or MISS, and
  ``run.py`` repeats the section (up to ``--repeats`` times).
* Every judged verdict states, in one line above its figures, the work it covers (``work``),
  which is the same on both sides of a comparison. A figure that covers less work than its
  peers' is still printed, through `not_judged`, labelled ``not judged`` with the reason.
* Verdicts are made only here (`judge_at_most`, `judge_at_least`, `judge_check`,
  `not_judged`, `unavailable`); sections never build a `Verdict` themselves.
"""

from __future__ import annotations

import gc
import statistics
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "NOT_JUDGED",
    "Samples",
    "Status",
    "Unavailable",
    "Verdict",
    "fmt_mib",
    "fmt_ratio",
    "fmt_time",
    "judge_at_least",
    "judge_at_most",
    "judge_check",
    "not_judged",
    "print_failure",
    "print_heading",
    "print_table",
    "print_unavailable",
    "print_work",
    "ratios",
    "settled",
    "short_error",
    "unavailable",
]

#: What a verdict can say. ``NOISY``: the rounds straddle the target, so no verdict is given.
Status = Literal["PASS", "MISS", "NOISY", "N/A", "not judged"]

#: The status of a figure that covers less work than the comparison it sits next to.
NOT_JUDGED: Status = "not judged"


@dataclass(frozen=True, slots=True)
class Samples:
    """The figures of the rounds of one measurement (seconds per unit, or ratios).

    There is deliberately no "best round": verdicts are judged on `median`.

    Attributes:
        values: One figure per round, in the order measured.
    """

    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError("a measurement needs at least one round")

    @property
    def median(self) -> float:
        """The median round: what a verdict is judged on."""
        return statistics.median(self.values)

    @property
    def min(self) -> float:
        """The fastest (smallest) round, printed for the spread only."""
        return min(self.values)

    @property
    def max(self) -> float:
        """The slowest (largest) round, printed for the spread only."""
        return max(self.values)

    @property
    def quartiles(self) -> tuple[float, float]:
        """The first and third quartiles: the middle half of the rounds lies between them."""
        if len(self.values) < 2:
            return self.values[0], self.values[0]
        first, _, third = statistics.quantiles(self.values, n=4, method="inclusive")
        return first, third

    def scaled(self, factor: float) -> Samples:
        """Every round multiplied by ``factor`` (per run to per turn, say)."""
        return Samples(tuple(value * factor for value in self.values))

    def __add__(self, other: Samples) -> Samples:
        """Round-by-round sum of two measurements taken in the same rounds."""
        return Samples(tuple(a + b for a, b in zip(self.values, other.values, strict=True)))

    def __sub__(self, other: Samples) -> Samples:
        """Round-by-round difference of two measurements taken in the same rounds."""
        return Samples(tuple(a - b for a, b in zip(self.values, other.values, strict=True)))

    def text(self, unit: Callable[[float], str] | None = None) -> str:
        """``median X (min Y, max Z)`` in ``unit`` (a duration by default)."""
        show = unit or fmt_time
        return f"median {show(self.median)} (min {show(self.min)}, max {show(self.max)})"


def ratios(numerator: Samples, denominator: Samples) -> Samples:
    """Round-by-round ratios of two measurements taken in the same interleaved rounds.

    ``ratios(peer, nucleo)`` is how many times faster nucleo was in each round.
    """
    return Samples(tuple(a / b for a, b in zip(numerator.values, denominator.values, strict=True)))


@dataclass(frozen=True, slots=True)
class Unavailable:
    """A measurement that could not be made, and why.

    Attributes:
        reason: One line saying what was missing or what failed.
    """

    reason: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """One line of the closing summary: the work, the figure, the target and the status.

    Made by the judge functions of this module only.

    Attributes:
        key: The requirement's label, e.g. ``"(b) define + render with validators"``.
        work: What was measured, the same work on both sides of a comparison (one line).
        figure: The measured figure: median, min and max.
        target: The target, formatted.
        status: PASS, MISS, NOISY, N/A (could not be measured) or not judged.
        note: Anything a reader needs to interpret the line.
    """

    key: str
    work: str
    figure: str
    target: str
    status: Status
    note: str = field(default="")

    @property
    def passed(self) -> bool | None:
        """``True`` for PASS, ``False`` for MISS, ``None`` for anything else."""
        return {"PASS": True, "MISS": False}.get(self.status)

    @property
    def judged(self) -> bool:
        """Whether the line is a verdict (PASS, MISS or NOISY) rather than information."""
        return self.status in ("PASS", "MISS", "NOISY")

    def line(self) -> str:
        """The verdict as printable text: its work on one line, then its figures."""
        note = f"  [{self.note}]" if self.note else ""
        return (
            f"      work: {self.work}\n"
            f"{self.status:<5} {self.key}: {self.figure} (target {self.target}){note}"
        )


def _status(samples: Samples, meets: Callable[[float], bool]) -> Status:
    low, high = samples.quartiles
    if meets(low) != meets(high):
        return "NOISY"
    return "PASS" if meets(samples.median) else "MISS"


def judge_at_most(
    key: str,
    work: str,
    samples: Samples,
    limit: float,
    *,
    unit: Callable[[float], str] | None = None,
    note: str = "",
) -> Verdict:
    """PASS when the median round is at most ``limit`` (NOISY when the rounds straddle it)."""
    show = unit or fmt_time
    return Verdict(
        key,
        work,
        samples.text(show),
        f"<= {show(limit)}",
        _status(samples, lambda value: value <= limit),
        note,
    )


def judge_at_least(
    key: str,
    work: str,
    samples: Samples,
    limit: float,
    *,
    unit: Callable[[float], str] | None = None,
    note: str = "",
) -> Verdict:
    """PASS when the median round is at least ``limit`` (NOISY when the rounds straddle it).

    For a speed-up, pass the per-round `ratios` of the peer's time to nucleo's.
    """
    show = unit or fmt_ratio
    return Verdict(
        key,
        work,
        samples.text(show),
        f">= {show(limit)}",
        _status(samples, lambda value: value >= limit),
        note,
    )


def judge_check(key: str, work: str, figure: str, target: str, ok: bool, note: str = "") -> Verdict:
    """A verdict on a property that is not timed (what an invalid call answers, say)."""
    return Verdict(key, work, figure, target, "PASS" if ok else "MISS", note)


def not_judged(key: str, work: str, figure: str, why: str) -> Verdict:
    """A figure printed for information: it covers less work (``why``), so it is never judged."""
    return Verdict(key, work, figure, "-", NOT_JUDGED, why)


def unavailable(key: str, work: str, reason: str, *, nucleo_failed: bool = False) -> Verdict:
    """A comparison that could not be measured: N/A for a missing peer, MISS for nucleo."""
    return Verdict(key, work, "not measured", "-", "MISS" if nucleo_failed else "N/A", reason)


@contextmanager
def settled() -> Iterator[None]:
    """Collect the garbage left so far, then time with the collector enabled (as in a process).

    The collection happens before the block, so one round's garbage is not charged to the next;
    collections the block itself causes are part of its cost, as they would be in production.
    """
    gc.collect()
    if not gc.isenabled():
        gc.enable()
    yield


def fmt_time(seconds: float) -> str:
    """A duration with a unit chosen for readability (ns, µs, ms or s)."""
    if abs(seconds) < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if abs(seconds) < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if abs(seconds) < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(ratio: float) -> str:
    """A ratio such as ``12.3x``."""
    return f"{ratio:.1f}x" if ratio >= 10 else f"{ratio:.2f}x"


def fmt_mib(size: float) -> str:
    """A size in MiB."""
    return f"{size / 2**20:.1f} MiB"


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


def print_work(label: str, work: str) -> None:
    """Print the one line stating the work a comparison covers, above its figures."""
    print(f"{label} — work: {work}")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print rows as a left-aligned text table with a rule under the headers."""
    widths = [len(header) for header in headers]
    rows = [list(row) + [""] * (len(headers) - len(row)) for row in rows]
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
