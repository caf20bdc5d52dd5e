"""A failed tool call is one ``Warning:`` line on the terminal, never a traceback.

The executor logs each failed call on ``nucleo.tools``, with its traceback, for the developer.
Nothing configures logging in a ``nucleo`` command, so without a handler of its own Python's
last-resort handler would print that traceback under the conversation. While a command runs
a thinker, this handler says the failure in one line instead, and where its details are: the
audit record keeps the exception's type, message and traceback (``nucleo audit --json``). What
the model read of it is in the transcript. Records still reach any handler the user configured.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import click

__all__ = ["tool_failures_as_lines"]

#: The logger the executor records failed calls on (`nucleo_core.thinking.execution`).
_TOOLS_LOGGER = "nucleo.tools"


class _OneLine(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            said = record.getMessage()
        except Exception:  # a malformed record is still one line, never a traceback
            said = str(record.msg)
        click.echo(
            f"Warning: {said} (its details are on the audit record: nucleo audit --json)",
            err=True,
        )


@contextlib.contextmanager
def tool_failures_as_lines() -> Iterator[None]:
    """While inside, each failed tool call is one ``Warning:`` line on stderr."""
    logger = logging.getLogger(_TOOLS_LOGGER)
    handler = _OneLine(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
