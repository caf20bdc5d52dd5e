"""BenchmarkTest (seed 002: "A run leaves its transcript ... Benchmark hands it to the judge").

A benchmark builds one thinker per entry, pinned to it, runs them concurrently on the same
input, and hands each run's transcript to a judge thinker; the result is a table of entries,
verdicts, tokens and wall time.
"""

import asyncio
import functools
from typing import Any

import pytest
from _loop_kit import (
    DECLARATION,
    Lookup,
    answer,
    call,
    calls,
    fresh_catalog,
    is_sub_thinker_request,
)
from pydantic import BaseModel

from nucleo_core import ToolHub
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import MisuseError, ModelServerError
from nucleo_core.models import ModelRequest, ModelResponse, Usage
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.benchmark import Benchmark, BenchmarkResult, BenchmarkRow
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

ENTRIES = ["anthropic:alpha", "openai:beta", "anthropic:gamma"]


class Grade(BaseModel):
    score: int
    comment: str


class Researcher(SingleObjectiveThinker[str, str]):
    """The thinker under benchmark: one lookup tool."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup]


class Judge(SingleObjectiveThinker[str, Grade]):
    """Reads a transcript and grades it."""


def researchers(model: ScriptedModel) -> Any:
    """A factory of researchers on ``model``, pinned by the benchmark."""
    return functools.partial(
        Researcher,
        DECLARATION,
        hub=ToolHub(),
        catalog=fresh_catalog(),
        conversations=ConversationService(":memory:"),
        client=model,
    )


def judge(script: Any) -> tuple[Judge, ScriptedModel]:
    model = ScriptedModel(script)
    thinker = Judge(
        DECLARATION,
        hub=ToolHub(),
        catalog=fresh_catalog(),
        conversations=ConversationService(":memory:"),
        client=model,
    )
    return thinker, model


def grading(request: ModelRequest) -> ModelResponse:
    """A judge that scores a transcript by whether its run found 42."""
    asked = request.messages[0].text
    found = "tool_result" in asked and "42" in asked
    return answer(Grade(score=9 if found else 3, comment="found it" if found else "guessed"))


def per_entry(request: ModelRequest) -> ModelResponse:
    """Alpha looks the answer up, beta answers at once, gamma delegates the lookup."""
    turn = sum(1 for message in request.messages if message.role == "assistant")
    used = Usage(input_tokens=100, output_tokens=10)
    if request.model == "alpha":
        if turn == 0:
            return calls(call("lookup", {"key": "x"}), usage=used)
        return answer("x means 42", usage=used)
    if request.model == "beta":
        return answer("x means 7", usage=used)
    if is_sub_thinker_request(request):
        if turn == 0:
            return calls(call("lookup", {"key": "x"}), usage=used)
        return answer({"answer": "42"}, usage=used)
    if turn == 0:
        return calls(call("sub_thinker", {"objective": "Find what x means."}), usage=used)
    return answer("x means 42", usage=used)


def benchmark(model: ScriptedModel, the_judge: Judge) -> Benchmark[str]:
    return Benchmark(researchers(model), ENTRIES, the_judge)


def test_each_entry_is_run_pinned_and_judged_by_its_own_transcript() -> None:
    """One row per entry, in order; each verdict read that entry's transcript."""
    model = ScriptedModel(per_entry)
    the_judge, judge_model = judge(grading)
    result = asyncio.run(benchmark(model, the_judge).run("What does x mean?"))

    assert [row.entry for row in result.rows] == ENTRIES
    assert [row.answer for row in result.rows] == ["x means 42", "x means 7", "x means 42"]
    assert [row.verdict for row in result.rows] == [
        Grade(score=9, comment="found it"),
        Grade(score=3, comment="guessed"),
        Grade(score=9, comment="found it"),
    ]
    asked = [request.messages[0].text for request in judge_model.requests]
    for row, question in zip(result.rows, asked, strict=True):
        assert row.transcript is not None
        assert row.transcript in question
        assert "What does x mean?" in question


def test_every_request_of_a_run_goes_to_its_entry() -> None:
    """The runs are pinned: each entry's requests (its delegations' included) carry its model."""
    model = ScriptedModel(per_entry)
    asyncio.run(benchmark(model, judge(grading)[0]).run("What does x mean?"))

    assert sorted(request.model for request in model.requests) == sorted(
        ["alpha"] * 2 + ["beta"] + ["gamma"] * 4
    )


def test_the_judge_is_not_told_which_entry_ran() -> None:
    """The judge reads the objective and the transcript, not the entry id."""
    model = ScriptedModel(per_entry)
    the_judge, judge_model = judge(grading)
    asyncio.run(benchmark(model, the_judge).run("What does x mean?"))

    for request in judge_model.requests:
        assert not any(entry in request.messages[0].text for entry in ENTRIES)
        assert request.model == "grade-model"


def test_tokens_are_summed_over_every_exchange_of_a_run_delegations_included() -> None:
    """A row's tokens are its run's: every request's usage, its sub-thinker's too."""
    model = ScriptedModel(per_entry)
    result = asyncio.run(benchmark(model, judge(grading)[0]).run("What does x mean?"))

    assert [(row.input_tokens, row.output_tokens) for row in result.rows] == [
        (200, 20),
        (100, 10),
        (400, 40),
    ]


def test_the_runs_are_concurrent() -> None:
    """No entry's first request is answered before every entry has sent its first."""
    arrived: set[str] = set()
    everyone = asyncio.Event()

    async def scenario() -> BenchmarkResult:
        class Gate:
            async def complete(self, request: ModelRequest) -> ModelResponse:
                arrived.add(request.model)
                if len(arrived) == len(ENTRIES):
                    everyone.set()
                await asyncio.wait_for(everyone.wait(), timeout=5)
                return answer(f"answer of {request.model}")

            async def aclose(self) -> None:
                pass

        return await benchmark(Gate(), judge(grading)[0]).run("Go.")  # type: ignore[arg-type]

    result = asyncio.run(scenario())
    assert [row.answer for row in result.rows] == [
        "answer of alpha",
        "answer of beta",
        "answer of gamma",
    ]


#: How long the slow entry's model waits: long beside a loaded machine's scheduling delays.
SLOW = 2.0


def test_wall_time_is_measured_per_run() -> None:
    """A slow entry's row shows its own time; the others are not charged for it."""

    async def scenario() -> BenchmarkResult:
        class Slow:
            async def complete(self, request: ModelRequest) -> ModelResponse:
                if request.model == "beta":
                    await asyncio.sleep(SLOW)
                return answer("done")

            async def aclose(self) -> None:
                pass

        return await benchmark(Slow(), judge(grading)[0]).run("Go.")  # type: ignore[arg-type]

    times = {row.entry: row.wall_time for row in asyncio.run(scenario()).rows}
    assert times["openai:beta"] >= SLOW
    # Not charged for beta's wait: alpha's own time stays well under it, with a margin of half
    # the wait for a loaded machine (a run that took beta's wait too would be past it).
    assert times["anthropic:alpha"] < times["openai:beta"] - SLOW / 2


def test_a_failed_run_is_recorded_with_its_transcript_and_not_judged() -> None:
    """A run that raises gets a row with its error and transcript; the others are judged."""

    def script(request: ModelRequest) -> ModelResponse:
        if request.model == "beta":
            if len(request.messages) == 1:
                return calls(call("lookup", {"key": "x"}))
            raise ModelServerError("overloaded", provider="openai", status=503)
        return per_entry(request)

    model = ScriptedModel(script)
    the_judge, judge_model = judge(grading)
    result = asyncio.run(benchmark(model, the_judge).run("What does x mean?"))

    failed = result.row("openai:beta")
    assert failed.error == "ModelServerError: overloaded"
    assert not failed.succeeded
    assert failed.verdict is None
    assert failed.transcript is not None
    assert "tool_result" in failed.transcript
    assert len(judge_model.requests) == 2
    assert result.row("anthropic:alpha").verdict == Grade(score=9, comment="found it")


def test_a_judge_that_fails_leaves_that_row_without_a_verdict() -> None:
    """A verdict lost does not lose the runs: the row says why it has none."""

    def flaky(request: ModelRequest) -> ModelResponse:
        if "x means 7" in request.messages[0].text:
            raise ModelServerError("judge overloaded", provider="anthropic", status=529)
        return grading(request)

    model = ScriptedModel(per_entry)
    result = asyncio.run(benchmark(model, judge(flaky)[0]).run("What does x mean?"))

    beta = result.row("openai:beta")
    assert beta.succeeded
    assert beta.verdict is None
    assert beta.judge_error == "ModelServerError: judge overloaded"
    assert result.row("anthropic:gamma").verdict is not None


def test_the_table_lists_entries_verdicts_tokens_and_wall_time() -> None:
    """to_text is one aligned line per entry under a header, long cells cut."""
    result = BenchmarkResult(
        (
            BenchmarkRow(
                entry="anthropic:alpha",
                verdict=Grade(score=9, comment="found it"),
                input_tokens=200,
                output_tokens=20,
                wall_time=1.5,
            ),
            BenchmarkRow(entry="openai:beta", error="ModelServerError: overloaded", wall_time=0.25),
            BenchmarkRow(entry="openai:gamma", verdict="x" * 100, input_tokens=7, wall_time=12.0),
        )
    )

    assert result.to_text(width=30).splitlines() == [
        "entry            verdict                         input tokens  output tokens  wall time",
        'anthropic:alpha  {"score":9,"comment":"found i…           200             20      1.50s',
        "openai:beta      failed: ModelServerError: ove…             0              0      0.25s",
        "openai:gamma     xxxxxxxxxxxxxxxxxxxxxxxxxxxxx…             7              0     12.00s",
    ]


def test_a_factory_that_ignores_the_pin_is_refused_before_any_run() -> None:
    """A thinker not pinned to the entry it was built for would race the wrong model."""
    model = ScriptedModel(per_entry)

    def unpinned(*, pin: str) -> Researcher:
        return researchers(model)()  # type: ignore[no-any-return]

    with pytest.raises(MisuseError, match="pass pin through"):
        asyncio.run(Benchmark(unpinned, ENTRIES, judge(grading)[0]).run("Go."))
    assert model.requests == []


@pytest.mark.parametrize("entries", [[], "anthropic:alpha"])
def test_a_benchmark_needs_a_sequence_of_entries(entries: Any) -> None:
    """No entries (or one id given as a bare string) is a mistake."""
    with pytest.raises(MisuseError, match="non-empty sequence"):
        Benchmark(researchers(ScriptedModel()), entries, judge(grading)[0])
