"""``nucleo run THINKER INPUT``: run a thinker class on one input and print its answer."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.governance import audit_the_hub, guard_the_hub
from nucleo_core.cli.hub import loaded_hub
from nucleo_core.cli.model_options import model_option, model_settings_options
from nucleo_core.cli.running import (
    AnswerPrinter,
    as_json,
    as_text,
    build_thinker,
    declaration_of,
    input_type_of,
    model_failure,
    parse_input,
    seated,
)
from nucleo_core.cli.skill_option import attach_skills, skill_option
from nucleo_core.cli.terminal_approver import terminal_approver
from nucleo_core.cli.thinker_class import load_thinker_class
from nucleo_core.cli.tool_failures import tool_failures_as_lines

__all__ = ["run"]


@click.command()
@model_settings_options
@click.argument("thinker")
@click.argument("input_text", metavar="INPUT")
@model_option("the entry configured for the thinker's grade")
@click.option(
    "--json",
    "as_json_output",
    is_flag=True,
    help="Print one JSON object (the answer, the model, the transcript), for machines.",
)
@skill_option
def run(
    thinker: str,
    input_text: str,
    pin: str | None,
    as_json_output: bool,
    skill_names: tuple[str, ...],
    **settings: float | int | None,
) -> None:
    """Run a thinker on INPUT and print its answer as it streams.

    THINKER is the class's import path, as for `nucleo catalog`: package.module:ClassName,
    package.module.ClassName or path/to/file.py:ClassName. It must subclass Thinker (a
    SingleObjectiveThinker or ToollessThinker, say; a ChatThinker is for `nucleo chat`). It is
    built with its class attribute `declaration` (a ThinkerDeclaration; the standard grade and
    a medium answer when it has none), hub= (a hub with the installed plugins loaded and the
    project's MCP servers bound), the project's model catalog and pin=--model.

    INPUT is the objective: a string for a thinker whose input type is str, else JSON of its
    input type (a pydantic model, a dataclass, a list...).

    --skill NAME attaches a skill of the thinker's skill catalog before the run starts,
    admitted as the model's request_skill is; a refusal exits with code 2 saying why.
    """
    from nucleo_core.thinking.chat import ChatThinker
    from nucleo_core.thinking.thinker import Thinker

    thinker_class = load_thinker_class(thinker)
    if not issubclass(thinker_class, Thinker):
        raise CommandError(
            f"'{thinker}' cannot be run: it is a ThinkerBase but not a Thinker; subclass "
            "SingleObjectiveThinker or ToollessThinker to give it a model loop"
        )
    if issubclass(thinker_class, ChatThinker):
        # Every turn of a chat is kept: one run would store a conversation no one can resume.
        raise CommandError(f"'{thinker}' is a ChatThinker: chat with it with `nucleo chat`")
    declaration = declaration_of(thinker_class)
    value = parse_input(input_text, input_type_of(thinker_class))
    catalog, seat = seated(declaration, pin, **settings)
    hub = loaded_hub(mcp_servers=True)
    try:
        guard_the_hub(hub, only_if_configured=True)  # the project's [guard], when it has one
        audit_the_hub(hub)  # every grant, refusal and call on the project's record
        instance: Thinker[Any, Any] = build_thinker(
            thinker_class, thinker, declaration, hub=hub, catalog=catalog, pin=pin
        )
        attach_skills(instance, skill_names, thinker)
        if sys.stdin.isatty() and instance.approver is None:
            instance.approver = terminal_approver  # a person at the terminal says yes or no
        printer = AnswerPrinter()
        if not as_json_output:
            instance.listeners.append(printer)
            instance.stream_text = True  # a text answer is printed as it arrives

        async def running() -> Any:
            try:
                return await instance.run(value)
            finally:
                await catalog.aclose()

        try:
            with tool_failures_as_lines():
                answer = asyncio.run(running())
        except Exception as exc:
            raise model_failure(exc, seat, thinker) from exc
    finally:
        hub.close()  # stops the MCP servers it started
    if as_json_output:
        render.print_json(
            {
                "thinker": f"{thinker_class.__module__}.{thinker_class.__qualname__}",
                "model": seat.id,
                "answer": as_json(answer),
                "transcript": instance.transcript(),
            }
        )
    elif not printer.printed:  # a thinker that streams nothing (a ToollessThinker, say)
        click.echo(as_text(answer))
