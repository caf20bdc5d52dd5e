"""The ``--skill NAME`` option of ``nucleo run`` and ``nucleo chat``, and what it attaches.

`skill_option` declares the option; `attach_skills` asks for each named skill for the thinker,
as a person asks, before the first turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.repeatable_option import repeatable_option

if TYPE_CHECKING:
    from nucleo_core.hub import ThinkerBase

__all__ = ["attach_skills", "skill_option"]

_Command = TypeVar("_Command", bound=Callable[..., Any])


def skill_option(command: _Command) -> _Command:
    """The ``--skill NAME`` option (repeatable) of ``nucleo run`` and ``nucleo chat``."""
    return repeatable_option(
        "--skill",
        "skill_names",
        "NAME",
        "Attach the skill NAME before the first turn (repeat for several). It is admitted "
        "as the model's request_skill is, every guardrail asked; a skill kept from the "
        "model (disable-model-invocation) may be attached this way too.",
    )(command)


def attach_skills(thinker: ThinkerBase, names: Sequence[str], thinker_path: str) -> None:
    """Ask for each skill of ``names`` for ``thinker``, as a person; stop at a refusal.

    Each goes through the hub's admission (`ThinkerBase.request_skill` with ``by_user``), so
    a grant or refusal is on the admission record like the model's; a granted skill waits
    on the thinker and is attached to the conversation as its first turn starts. A line on
    stderr says so, keeping stdout for the answers.

    Raises:
        CommandError: A skill was refused: its name, the reason, and the skills the thinker
            may be given.
    """
    from nucleo_core.hub import ThinkerBase

    for name in dict.fromkeys(names):
        result = thinker.request_skill(name, by_user=True)
        if not result.granted:
            offered = [skill.name for skill in ThinkerBase.skill_catalog(thinker, by_user=True)]
            may = (
                f"the skills it may be given: {', '.join(offered)}"
                if offered
                else "it may be given no skill (its class declares none: declare_compatible_skills)"
            )
            raise CommandError(
                f"the skill '{name}' was refused for {thinker_path}: {result.reason}; {may} "
                f"(`nucleo catalog {thinker_path}` lists them)"
            )
        click.echo(f"Skill {name} attached.", err=True)
