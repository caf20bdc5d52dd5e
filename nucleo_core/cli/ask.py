"""``nucleo ask``: one question to one model, through the same `LLMCall` every thinker uses.

What the model needs (its SDK, its key) is checked before anything heavy is imported: a key
that is not set is reported at once, not after the provider's SDK has been loaded.
"""

from __future__ import annotations

import asyncio

import click

from nucleo_core.cli import render
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.model_options import model_option, model_settings_options
from nucleo_core.cli.preflight import check_seat
from nucleo_core.cli.running import model_settings, unreachable
from nucleo_core.errors import (
    ModelConnectionError,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    ResponseError,
)
from nucleo_core.models.catalog import ModelCatalog
from nucleo_core.models.declaration import AnswerSize, ThinkerDeclaration
from nucleo_core.models.messages import Message

__all__ = ["ask"]


@click.command()
@click.argument("question")
@model_option("the entry configured for --grade")
@click.option(
    "--grade",
    default="standard",
    show_default=True,
    help="The grade whose configured entry answers, when --model is not given.",
)
@click.option("--system", default="", help="System text for the model.")
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=None,
    help=(
        "The first answer budget (default: a medium answer), doubled up to "
        "--max-output-tokens while the answer is cut off."
    ),
)
@model_settings_options
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (the model, the answer, why it stopped, the tokens spent).",
)
def ask(
    question: str,
    pin: str | None,
    grade: str,
    system: str,
    max_tokens: int | None,
    as_json: bool,
    **settings: float | int | None,
) -> None:
    """Ask one model one question and print its answer.

    The model comes from --model, or from the grade mapped in [tool.nucleo.models] of
    pyproject.toml (or [models] of nucleo.toml). Keys are read from the environment:
    ANTHROPIC_API_KEY for anthropic: entries, OPENAI_API_KEY for openai: entries; a local
    openai-compatible server (Ollama, vLLM, llama.cpp, LM Studio) needs none.
    """
    try:
        catalog = ModelCatalog.discover()
        declaration = ThinkerDeclaration(grade=grade, answer_size=max_tokens or AnswerSize.MEDIUM)
        seat = catalog.resolve(declaration, pin)
    except ModelNotConfigured as exc:
        raise CommandError(str(exc)) from exc
    seat = model_settings(catalog, seat, **settings)
    check_seat(seat)  # before LLMCall and the SDK are imported: a missing key is said at once
    from nucleo_core.thinking.llm_call import LLMCall
    from nucleo_core.thinking.response import ThinkingResponse

    call: LLMCall[str] = LLMCall(
        declaration=declaration,
        messages=[Message.user(question)],
        catalog=catalog,
        system=system,
        pin=pin,
    )

    async def exchange() -> ThinkingResponse[str]:
        try:
            return await call.run()
        finally:
            await catalog.aclose()

    try:
        result = asyncio.run(exchange())
    except ModelNotConfigured as exc:
        raise CommandError(str(exc)) from exc
    except ModelConnectionError as exc:
        raise CommandError(unreachable(seat, exc)) from exc
    except ModelRateLimited as exc:
        wait = f" Try again in {exc.retry_after:g} s." if exc.retry_after is not None else ""
        raise CommandError(f"{seat.id} is rate-limiting requests.{wait}") from exc
    except (ModelError, ResponseError) as exc:
        raise CommandError(f"{seat.id}: {exc}") from exc
    if as_json:
        usage = result.usage
        render.print_json(
            {
                "model": seat.id,
                "answer": result.answer or "",
                "stop_reason": result.response.stop_reason.value,
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cache_read_tokens": usage.cache_read_tokens,
                    "cache_write_tokens": usage.cache_write_tokens,
                },
                "corrections": result.corrections,
                "escalations": result.escalations,
            }
        )
    else:
        click.echo(result.answer or "")
