"""`Benchmark`: one thinker pinned to several model entries, raced on one input, then judged.

Pinning a thinker pins its whole conversation to one catalog entry (sub-thinkers included),
so a benchmark builds the same thinker once per entry, runs them all concurrently on the same
input, and hands each run's transcript to a judge thinker. The judge is not told which entry
ran: it reads the objective and what the run did. The result is a table of entries, verdicts,
tokens and wall time::

    benchmark = Benchmark(
        functools.partial(Researcher, DECLARATION, catalog=catalog),
        ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1"],
        judge=Judge(JUDGE_DECLARATION, catalog=catalog),
    )
    result = asyncio.run(benchmark.run("Summarise the open issues"))
    print(result.to_text())
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, final

from nucleo_core.errors import MisuseError

if TYPE_CHECKING:
    from nucleo_core.thinking.thinker import Thinker

__all__ = ["Benchmark", "BenchmarkResult", "BenchmarkRow", "ThinkerFactory"]

InputT = TypeVar("InputT")

#: The widest a verdict or error cell of `BenchmarkResult.to_text` grows by default.
_CELL = 60


class ThinkerFactory(Protocol[InputT]):
    """Builds the benchmarked thinker pinned to one entry: ``factory(pin=entry)``.

    A thinker class with its other arguments bound (``functools.partial``) is one.
    """

    def __call__(self, *, pin: str) -> Thinker[InputT, Any]:
        """A new thinker pinned to the entry ``pin``."""
        ...


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class BenchmarkRow:
    """One entry's run and its verdict.

    Attributes:
        entry: The catalog entry id the thinker was pinned to.
        answer: The run's answer, or ``None`` when it failed.
        error: Why the run failed (the error's type and message), or ``None``. A failed run
            is not judged.
        verdict: The judge's answer for this run's transcript, or ``None``.
        judge_error: Why the judge gave no verdict, or ``None``.
        input_tokens: Tokens the run read, sub-thinkers included.
        output_tokens: Tokens the run wrote, sub-thinkers included.
        wall_time: Seconds the run took.
        transcript: The run's transcript, taken as it ended.
    """

    entry: str
    answer: Any = None
    error: str | None = None
    verdict: Any = None
    judge_error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    wall_time: float = 0.0
    transcript: str | None = None

    @property
    def succeeded(self) -> bool:
        """Whether the run reached an answer."""
        return self.error is None


@final
@dataclass(frozen=True, slots=True)
class BenchmarkResult:
    """The benchmark's table: one row per entry, in the order the entries were given.

    Attributes:
        rows: The rows.
    """

    rows: tuple[BenchmarkRow, ...]

    def row(self, entry: str) -> BenchmarkRow:
        """The first row of ``entry``.

        Raises:
            KeyError: No row is for that entry.
        """
        for row in self.rows:
            if row.entry == entry:
                return row
        raise KeyError(entry)

    def to_text(self, *, width: int = _CELL) -> str:
        """The table as plain aligned text, one line per entry, each cell cut to ``width``.

        Example (``width=30``)::

            entry            verdict                         input tokens  output tokens  wall time
            anthropic:alpha  {"score":9,"comment":"found i…           200             20      1.50s
            openai:beta      failed: ModelServerError: ove…             0              0      0.25s
        """
        header = ("entry", "verdict", "input tokens", "output tokens", "wall time")
        lines = [header]
        for row in self.rows:
            lines.append(
                (
                    row.entry,
                    _cut(_verdict_cell(row), width),
                    str(row.input_tokens),
                    str(row.output_tokens),
                    f"{row.wall_time:.2f}s",
                )
            )
        widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
        rendered = []
        for line in lines:
            cells = [
                cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i])
                for i, cell in enumerate(line)
            ]
            rendered.append("  ".join(cells).rstrip())
        return "\n".join(rendered)


@dataclass(frozen=True, slots=True)
class _Run:
    """What one pinned run left, before the judge read it."""

    entry: str
    answer: Any
    error: str | None
    input_tokens: int
    output_tokens: int
    wall_time: float
    transcript: str | None


class Benchmark(Generic[InputT]):
    """Races one thinker pinned to each entry on the same input, and has a judge read each run.

    Args:
        thinker_factory: Builds the thinker pinned to an entry (``factory(pin=entry)``); a
            fresh thinker per entry, so the runs share no state.
        entries: The catalog entry ids to pin to; an entry given twice is run twice.
        judge: The thinker that reads each run's transcript and gives a verdict; its answer
            (of its declared output type) is the verdict. Judging is one run at a time.

    Raises:
        MisuseError: No entries.
    """

    def __init__(
        self,
        thinker_factory: ThinkerFactory[InputT],
        entries: Sequence[str],
        judge: Thinker[str, Any],
    ) -> None:
        if isinstance(entries, str) or not entries:
            raise MisuseError("Benchmark needs a non-empty sequence of entry ids to pin to")
        self.thinker_factory = thinker_factory
        self.entries = tuple(entries)
        self.judge = judge

    async def run(self, input: InputT) -> BenchmarkResult:
        """Run every pinned thinker concurrently on ``input``, then judge each transcript.

        A run that raises is recorded as failed (and not judged); a judge that raises leaves
        that row without a verdict. Cancelling the benchmark cancels every run.

        Raises:
            MisuseError: The factory built a thinker not pinned to the entry it was given.
        """
        thinkers = []
        for entry in self.entries:
            thinker = self.thinker_factory(pin=entry)
            if thinker.pin != entry:
                raise MisuseError(
                    f"the benchmark's thinker factory was asked for a thinker pinned to {entry!r} "
                    f"and built one pinned to {thinker.pin!r}: pass pin through to the thinker"
                )
            thinkers.append(thinker)
        objective = thinkers[0].render_input(input)
        races = zip(self.entries, thinkers, strict=True)
        runs = await asyncio.gather(*(_race(entry, thinker, input) for entry, thinker in races))
        rows = [await self._judged(run, objective) for run in runs]
        return BenchmarkResult(tuple(rows))

    def judge_input(self, objective: str, transcript: str) -> str:
        """What the judge is asked about one run (override to ask differently).

        The entry is not named: the judge reads what the run did, not who did it.
        """
        return (
            "Judge how well an agent achieved an objective, from the transcript of its run "
            "(every message, tool call and tool result, in order).\n\n"
            f"Objective:\n{objective}\n\nTranscript:\n{transcript}"
        )

    async def _judged(self, run: _Run, objective: str) -> BenchmarkRow:
        verdict: Any = None
        judge_error: str | None = None
        if run.error is None:
            try:
                verdict = await self.judge.run(self.judge_input(objective, run.transcript or ""))
            except Exception as exc:  # one verdict lost must not lose the runs already paid for
                judge_error = _describe(exc)
        return BenchmarkRow(
            entry=run.entry,
            answer=run.answer,
            error=run.error,
            verdict=verdict,
            judge_error=judge_error,
            input_tokens=run.input_tokens,
            output_tokens=run.output_tokens,
            wall_time=run.wall_time,
            transcript=run.transcript,
        )


async def _race(entry: str, thinker: Thinker[Any, Any], input: object) -> _Run:
    """Run one pinned thinker; a failure is recorded, not raised (cancellation is raised)."""
    answer: Any = None
    error: str | None = None
    started = time.perf_counter()
    try:
        answer = await thinker.run(input)
    except Exception as exc:
        error = _describe(exc)
    wall_time = time.perf_counter() - started
    usage = thinker.last_usage
    return _Run(
        entry=entry,
        answer=answer,
        error=error,
        input_tokens=usage.input_tokens if usage is not None else 0,
        output_tokens=usage.output_tokens if usage is not None else 0,
        wall_time=wall_time,
        transcript=thinker.transcript(),
    )


def _describe(exc: BaseException) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _verdict_cell(row: BenchmarkRow) -> str:
    if row.error is not None:
        return f"failed: {row.error}"
    if row.judge_error is not None:
        return f"no verdict: {row.judge_error}"
    verdict = row.verdict
    if isinstance(verdict, str):
        return verdict
    dump = getattr(verdict, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    return json.dumps(verdict, default=str)


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"
