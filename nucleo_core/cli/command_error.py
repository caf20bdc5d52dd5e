"""`CommandError`: how every command reports a user's mistake."""

from __future__ import annotations

import click

__all__ = ["CommandError"]


class CommandError(click.ClickException):
    """A mistake in what the user asked: printed as ``Error: <message>``, exit code 2."""

    exit_code = 2
