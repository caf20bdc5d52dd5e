"""The benchmark harness (benchmarks/bench_harness.py): median verdicts, unequal work labelled.

The benchmarks are scripts, not a package; the tests put their folder on the path the way
``python benchmarks/run.py`` does.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bench_harness import (  # noqa: E402  # the benchmarks folder is put on the path above
    Samples,
    judge_at_least,
    judge_at_most,
    not_judged,
    ratios,
    unavailable,
)

WORK = "the same work on both sides"


def test_a_time_verdict_is_judged_on_the_median_round_not_the_best() -> None:
    """One fast round under the limit does not make a PASS when the median round is over it."""
    samples = Samples((5.0, 20.0, 21.0, 22.0, 23.0))

    verdict = judge_at_most("(x) call", WORK, samples, 10.0)

    assert verdict.status == "MISS"
    assert judge_at_most("(x) call", WORK, Samples((9.0, 1.0, 30.0, 8.0, 7.0)), 10.0).status == (
        "PASS"
    )


def test_a_speed_up_is_judged_on_the_median_of_per_round_ratios() -> None:
    """Each round's peer time over nucleo's time; the median of those is the verdict."""
    nucleo = Samples((1.0, 1.0, 1.0, 1.0, 1.0))
    peer = Samples((10.0, 1.5, 1.6, 1.4, 1.5))

    speed_up = ratios(peer, nucleo)
    verdict = judge_at_least("(x) vs peer", WORK, speed_up, 2.0)

    assert speed_up.values == (10.0, 1.5, 1.6, 1.4, 1.5)
    assert verdict.status == "MISS"
    assert "median 1.50x" in verdict.figure


def test_rounds_straddling_the_target_are_noisy_not_pass_or_miss() -> None:
    """When the middle half of the rounds lies across the target, no PASS or MISS is given."""
    verdict = judge_at_most("(x) call", WORK, Samples((8.0, 9.0, 11.0, 12.0)), 10.0)

    assert verdict.status == "NOISY"
    assert verdict.passed is None
    assert verdict.judged


def test_every_verdict_line_states_its_work_above_median_min_and_max() -> None:
    """The printed verdict starts with the work line, then median, min and max."""
    verdict = judge_at_most("(x) call", WORK, Samples((3.0e-6, 1.0e-6, 2.0e-6)), 10e-6)

    work_line, figure_line = verdict.line().splitlines()
    assert work_line.strip() == f"work: {WORK}"
    assert "median 2.00 µs" in figure_line
    assert "min 1.00 µs" in figure_line
    assert "max 3.00 µs" in figure_line


def test_a_figure_covering_less_work_is_labelled_and_never_judged() -> None:
    """A not-judged figure is neither PASS, MISS nor NOISY and says why."""
    verdict = not_judged("(x) declaration only", "declare", "median 1 µs", "covers less work")

    assert verdict.status == "not judged"
    assert verdict.passed is None
    assert not verdict.judged
    assert "covers less work" in verdict.line()


def test_a_missing_peer_is_not_applicable_but_a_failed_nucleo_is_a_miss() -> None:
    """An unavailable peer cannot be judged; nucleo failing to run is a finding."""
    assert unavailable("(x)", WORK, "peer not installed").status == "N/A"
    assert unavailable("(x)", WORK, "crashed", nucleo_failed=True).status == "MISS"


def test_samples_offer_no_best_round() -> None:
    """There is no best-round figure to judge on: only median, min, max and quartiles."""
    samples = Samples((1.0, 2.0, 3.0))

    assert not hasattr(samples, "best")
    assert (samples.median, samples.min, samples.max) == (2.0, 1.0, 3.0)
    with pytest.raises(ValueError, match="at least one round"):
        Samples(())


def _constructed_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


@pytest.mark.parametrize(
    "section", sorted(p.name for p in BENCHMARKS.glob("*.py") if p.name != "bench_harness.py")
)
def test_no_section_builds_a_verdict_or_reads_a_best_round(section: str) -> None:
    """Every section's verdicts come from the harness's judges, so none can judge a best round."""
    path = BENCHMARKS / section
    source = path.read_text(encoding="utf-8")

    assert "Verdict" not in _constructed_names(path)
    assert ".best" not in source
    assert "gc.disable" not in source
