"""The options that choose and bound the model: ``--model`` and the entry's settings.

``nucleo run``, ``chat``, ``resume``, ``ask`` and ``demo`` take ``--timeout``, ``--retries``,
``--deadline`` and ``--max-output-tokens`` (`model_settings_options`); `model_option` is the
``--model ENTRY`` of a command, with what it defaults to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["model_option", "model_settings_options"]

CommandT = TypeVar("CommandT", bound=Callable[..., Any])

#: The model entry settings a command line may override: option, type, help.
_SETTINGS: tuple[tuple[str, click.ParamType[Any], str], ...] = (
    (
        "--timeout",
        click.FloatRange(min=0, min_open=True),
        "Seconds one request attempt may take (default: the entry's timeout, else 600).",
    ),
    (
        "--retries",
        click.IntRange(min=0),
        "How often a request that failed transiently is sent again, each retry logged "
        "(default: the entry's retries, else 2).",
    ),
    (
        "--deadline",
        click.FloatRange(min=0, min_open=True),
        "Seconds one exchange with the model may take in all, retries, corrections and "
        "escalations included (default: the entry's deadline, else none).",
    ),
    (
        "--max-output-tokens",
        click.IntRange(min=1),
        "The ceiling the answer budget is doubled up to when an answer is cut off "
        "(default: the entry's max_output_tokens, else 8192).",
    ),
)


def model_settings_options(command: CommandT) -> CommandT:
    """Add ``--timeout``, ``--retries``, ``--deadline`` and ``--max-output-tokens``."""
    for name, kind, help_text in reversed(_SETTINGS):
        command = click.option(name, type=kind, default=None, help=help_text)(command)
    return command


def model_option(default: str) -> Callable[[CommandT], CommandT]:
    """``--model ENTRY`` (the parameter ``pin``), a catalog entry id; ``default`` says what else.

    Args:
        default: What answers without it, e.g. "the entry configured for --grade".
    """
    return click.option(
        "--model",
        "pin",
        metavar="ENTRY",
        help=(
            "The model, as a catalog entry id: anthropic:<model>, openai:<model> or "
            f"openai-compatible:<base_url>#<model>. Default: {default}."
        ),
    )
