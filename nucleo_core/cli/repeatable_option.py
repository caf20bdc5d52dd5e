"""`repeatable_option`: an option given once per value (``--from``, ``--thinker``, ``--skill``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["repeatable_option"]

CommandT = TypeVar("CommandT", bound=Callable[..., Any])


def repeatable_option(
    flag: str, parameter: str, metavar: str, help_text: str
) -> Callable[[CommandT], CommandT]:
    """The option ``flag``, repeatable: its values, in the order given, as a tuple.

    Args:
        flag: The option, ``--from``.
        parameter: The command's parameter that takes the values, ``sources``.
        metavar: What one value is, in the help: ``MODULE_OR_PATH``.
        help_text: The option's help.
    """
    return click.option(flag, parameter, multiple=True, metavar=metavar, help=help_text)
