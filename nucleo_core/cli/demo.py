"""``nucleo demo``: the thinker shipped with nucleo, told step by step as it runs.

With no model configured for its grade (and no ``--model``) a script plays the model, so the
demo runs anywhere, offline; with one, the same thinkers run on it.
"""

from __future__ import annotations

import asyncio
import shutil
import textwrap
from typing import TYPE_CHECKING

import click

from nucleo_core.cli import render
from nucleo_core.cli.model_options import model_settings_options
from nucleo_core.cli.running import discover_catalog, model_failure, model_settings, resolve_seat

if TYPE_CHECKING:
    from nucleo_core.demo import DemoEvent, DemoRun
    from nucleo_core.models.catalog import ModelEntry

__all__ = ["demo"]

# Output is wrapped to the terminal, never wider than this: it reads as a story, not a table.
_MAX_WIDTH = 100
_INDENT = {
    "thinker": 0,
    "objective": 2,
    "turn": 2,
    "step": 2,
    "host": 4,
    "says": 4,
    "call": 4,
    "result": 4,
    "answer": 4,
    "correction": 4,
    "stopped": 4,
    "approval": 4,
    "pending": 4,
}


@click.command()
@model_settings_options
@click.option(
    "--model",
    "pin",
    metavar="ENTRY",
    help=(
        "Run the demo on this model, as a catalog entry id: anthropic:<model>, openai:<model> "
        "or openai-compatible:<base_url>#<model>. Default: the model configured for the "
        "standard grade, or the script when there is none."
    ),
)
@click.option(
    "--max-turns",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help=(
        "Each thinker's turn limit (default: its own, 12): a small model on a slow machine "
        "finishes sooner, and the steps it did not reach are told as not shown."
    ),
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (the steps shown, every event, the answers and transcripts).",
)
def demo(
    pin: str | None, as_json: bool, max_turns: int | None, **settings: float | int | None
) -> None:
    """Run the thinker shipped with nucleo and tell each step of its design as it happens.

    A PicnicPlanner asks for three tools with request_tools: two are admitted, one is refused
    by an admission rule, with its reason. It pulls in a skill with request_skill and calls two
    tools in one turn, which run in parallel. A PlanReviewer, bound read-only, is given a
    mutating tool while its model thinks; its call is refused at the call. A PicnicHost sends
    invitations with a high-risk tool: a scripted approver approves one call, which runs, and
    leaves the other pending, so the run pauses (the approval is listed, with how to decide it
    with `nucleo approvals`). Then the transcripts. With no model configured for the standard
    grade, and no --model, a script plays the model.
    """
    from nucleo_core.demo import PicnicPlanner, run_demo

    catalog = discover_catalog()
    declaration = PicnicPlanner.declaration
    scripted = pin is None and str(declaration.grade) not in catalog.grades
    # The entry, its SDK and its key are checked before a word of the story is printed.
    seat = None if scripted else resolve_seat(catalog, declaration, pin)
    if seat is not None:
        seat = model_settings(catalog, seat, **settings)
    story = _Story(_banner(seat, str(declaration.grade)), held=seat is not None)
    try:
        result = asyncio.run(
            run_demo(
                catalog=None if scripted else catalog,
                pin=pin,
                on_event=None if as_json else story.tell,
                max_turns=max_turns,
            )
        )
    except Exception as exc:
        if seat is None:
            raise  # the script failed: a bug in nucleo, shown with its traceback
        raise model_failure(exc, seat, "nucleo demo") from exc
    if not as_json:
        story.flush()
    if as_json:
        render.print_json(
            {
                "model": result.model,
                "scripted": scripted,
                "steps": list(result.steps),
                "events": [event.as_json() for event in result.events],
                "answers": result.answers,
                "stopped": result.stopped,
                "transcripts": result.transcripts,
            }
        )
        return
    _print_transcripts(result)
    _print_summary(result)


def _banner(seat: ModelEntry | None, grade: str) -> str:
    if seat is None:
        return (
            f"nucleo demo, on the scripted model: no model is configured for the grade "
            f"'{grade}', so a script plays it. Give --model ENTRY, or configure a model, to run "
            "the same thinkers on a real one."
        )
    return f"nucleo demo, on {seat.id}."


_NUMBERS = {6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}

# The events told before a model has answered anything: held back on a real model, so that a
# server that cannot be reached ends the demo with its one Error line, not half a story.
_BEFORE_AN_ANSWER = frozenset({"thinker", "objective", "turn"})


class _Story:
    """Prints the banner and the events; on a real model, only once the model has answered."""

    def __init__(self, banner: str, *, held: bool) -> None:
        self._pending: list[DemoEvent] = []
        self._banner: str | None = banner
        self._held = held

    def tell(self, event: DemoEvent) -> None:
        if self._held and event.kind in _BEFORE_AN_ANSWER:
            self._pending.append(event)
            return
        self._held = False
        self.flush()
        _print_event(event)

    def flush(self) -> None:
        if self._banner is not None:
            _say(self._banner, 0)
            self._banner = None
        for event in self._pending:
            _print_event(event)
        self._pending.clear()


def _print_event(event: DemoEvent) -> None:
    from nucleo_core.demo import STEPS, TRANSCRIPT_STEP

    if event.step == TRANSCRIPT_STEP:
        return  # told with the transcripts, at the end
    indent = _INDENT[event.kind]
    if event.kind == "thinker":
        click.echo()
    if event.step is not None:
        _say(f"Step {event.step} - {STEPS[event.step]}", indent)
        indent += 2
    _say(event.text, indent)


def _print_transcripts(result: DemoRun) -> None:
    from nucleo_core.demo import STEPS, TRANSCRIPT_STEP

    click.echo()
    _say(f"Step {TRANSCRIPT_STEP} - {STEPS[TRANSCRIPT_STEP]}", 0)
    for name, transcript in result.transcripts.items():
        _say(name, 2)
        for line in transcript.splitlines():
            _say(line, 4, hanging=4)


def _print_summary(result: DemoRun) -> None:
    from nucleo_core.demo import STEPS

    click.echo()
    if result.stopped:
        _say(
            f"Stopped without an answer: {', '.join(result.stopped)} (what the model did is in "
            "the transcripts above).",
            0,
        )
    missing = [str(step) for step in STEPS if step not in result.steps]
    if not missing:
        _say(f"All {_NUMBERS.get(len(STEPS), str(len(STEPS)))} steps were shown.", 0)
    else:
        _say(
            f"Steps shown: {', '.join(map(str, result.steps))}. Not shown: {', '.join(missing)} "
            "(the model took another way).",
            0,
        )


def _say(text: str, indent: int, *, hanging: int = 2) -> None:
    """Print ``text`` wrapped to the terminal, indented; continuation lines indented more."""
    width = min(shutil.get_terminal_size((_MAX_WIDTH, 24)).columns, _MAX_WIDTH)
    for paragraph in text.splitlines() or [""]:
        lines = textwrap.wrap(
            paragraph,
            width=max(width, 40),
            initial_indent=" " * indent,
            subsequent_indent=" " * (indent + hanging),
            break_long_words=False,
            break_on_hyphens=False,
        )
        click.echo("\n".join(lines) if lines else "")
