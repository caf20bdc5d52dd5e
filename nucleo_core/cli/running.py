"""What ``nucleo run``, ``nucleo chat`` and ``nucleo demo`` share: seating, building, printing.

A thinker class is built the way a program builds it: ``cls(declaration, hub=..., catalog=...,
pin=...)``. Its declaration is the class's ``declaration`` attribute when it has one (a
`ThinkerDeclaration`), else `DEFAULT_DECLARATION`. What goes wrong with the model (nothing
configured, a server that is not running, a provider that fails) is one ``Error:`` line.
"""

from __future__ import annotations

import inspect
import json
from typing import TYPE_CHECKING, Any, TypeVar, final, get_args, get_origin

import click

from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.preflight import check_seat
from nucleo_core.errors import (
    ModelConnectionError,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    NucleoError,
    ResponseError,
)
from nucleo_core.models._timeouts import timed_out
from nucleo_core.models.catalog import ModelCatalog, ModelEntry
from nucleo_core.models.declaration import AnswerSize, ThinkerDeclaration

if TYPE_CHECKING:
    from nucleo_core.hub import ThinkerBase
    from nucleo_core.thinking.thinker import ContentEvent

__all__ = [
    "DEFAULT_DECLARATION",
    "AnswerPrinter",
    "as_json",
    "as_text",
    "build_thinker",
    "declaration_of",
    "discover_catalog",
    "input_type_of",
    "model_failure",
    "model_settings",
    "parse_input",
    "resolve_seat",
    "seated",
    "unreachable",
]

#: The seat of a thinker class that declares none: the standard grade, a medium answer.
DEFAULT_DECLARATION = ThinkerDeclaration("standard", AnswerSize.MEDIUM)


def model_settings(
    catalog: ModelCatalog, seat: ModelEntry, **options: float | int | None
) -> ModelEntry:
    """The seat with the settings given on the command line, put in ``catalog`` in its place.

    Every thinker and exchange seated on that entry id from then on gets them. The options
    not given (``None``) keep the entry's (its configuration, else the defaults).
    """
    given = {key: value for key, value in options.items() if value is not None}
    if not given:
        return seat
    try:
        changed = seat.with_limits(**given)
    except ModelNotConfigured as exc:  # click has checked the ranges: a bug if reached
        raise CommandError(str(exc)) from exc
    catalog.add(changed)
    return changed


def declaration_of(thinker_class: type[Any]) -> ThinkerDeclaration:
    """The class's ``declaration`` attribute, or `DEFAULT_DECLARATION` when it has none.

    Raises:
        CommandError: The class has a ``declaration`` attribute that is not a
            `ThinkerDeclaration`.
    """
    found = getattr(thinker_class, "declaration", None)
    if found is None:
        return DEFAULT_DECLARATION
    if not isinstance(found, ThinkerDeclaration):
        raise CommandError(
            f"{thinker_class.__qualname__}.declaration is {type(found).__name__}, not a "
            "ThinkerDeclaration; declare the seat as declaration = ThinkerDeclaration(grade, "
            "answer_size)"
        )
    return found


def input_type_of(thinker_class: type[Any]) -> Any:
    """The ``I`` of the nearest ``Thinker[I, O]`` the class derives from; ``str`` if none."""
    from nucleo_core.thinking.thinker import Thinker

    for klass in thinker_class.__mro__:
        for base in klass.__dict__.get("__orig_bases__", ()):
            origin = get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Thinker):
                arguments = get_args(base)
                if len(arguments) == 2 and not isinstance(arguments[0], TypeVar):
                    return arguments[0]
    return str


def parse_input(text: str, input_type: Any) -> Any:
    """``text`` as the thinker's input: itself for ``str``, else read as JSON of the type.

    Raises:
        CommandError: The text is not JSON, or does not fit the type; every problem is listed.
    """
    if input_type in (str, Any, object):
        return text
    from pydantic import TypeAdapter, ValidationError

    name = getattr(input_type, "__name__", repr(input_type))
    try:
        return TypeAdapter(input_type).validate_json(text)
    except ValidationError as exc:
        problems = [
            f"  - {'.'.join(map(str, error['loc'])) or '(the input)'}: {error['msg']}"
            for error in exc.errors(include_url=False, include_input=False)
        ]
        raise CommandError(
            f"the input is read as JSON of the thinker's input type {name}, and it does not "
            "fit:\n" + "\n".join(problems)
        ) from exc
    except Exception as exc:  # a type pydantic cannot read: the user's own class
        raise CommandError(
            f"the input cannot be read as the thinker's input type {name}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def build_thinker(
    thinker_class: type[ThinkerBase],
    path: str,
    declaration: ThinkerDeclaration,
    **arguments: Any,
) -> Any:
    """``thinker_class(declaration, **arguments)``, or one ``Error:`` line saying why not.

    Raises:
        CommandError: The constructor does not take these arguments, or raised.
    """
    try:
        inspect.signature(thinker_class).bind(declaration, **arguments)
    except TypeError as exc:
        given = ", ".join(["declaration", *(f"{name}=" for name in arguments)])
        raise CommandError(
            f"cannot build '{path}' with ({given}): {exc}; give its other parameters defaults"
        ) from exc
    except ValueError:
        pass  # no signature to read: building it says what is wrong, if anything
    # ThinkerBase takes no declaration; the Thinker families this is for do.
    factory: Any = thinker_class
    try:
        return factory(declaration, **arguments)
    except Exception as exc:
        raise CommandError(f"building '{path}' raised {type(exc).__name__}: {exc}") from exc


def discover_catalog() -> ModelCatalog:
    """The model catalog configured nearest the working directory.

    Raises:
        CommandError: The configuration is malformed.
    """
    try:
        return ModelCatalog.discover()
    except ModelNotConfigured as exc:
        raise CommandError(str(exc)) from exc


def resolve_seat(
    catalog: ModelCatalog, declaration: ThinkerDeclaration, pin: str | None
) -> ModelEntry:
    """The entry a thinker is seated on: ``pin``, else the declared grade's; checked usable.

    Raises:
        CommandError: The pin is malformed, no entry is assigned to the grade, or what the
            entry needs is missing (its SDK, its key): said before anything runs.
    """
    try:
        seat = catalog.resolve(declaration, pin)
    except ModelNotConfigured as exc:
        raise CommandError(str(exc)) from exc
    check_seat(seat)
    return seat


def seated(
    declaration: ThinkerDeclaration, pin: str | None, **settings: float | int | None
) -> tuple[ModelCatalog, ModelEntry]:
    """The project's model catalog, and the seat of ``declaration`` in it with ``settings``.

    The seat is ``pin``, else the declared grade's entry (`resolve_seat`), with the settings
    given on the command line (`model_settings`).

    Raises:
        CommandError: The configuration is malformed, or the seat cannot be used.
    """
    catalog = discover_catalog()
    return catalog, model_settings(catalog, resolve_seat(catalog, declaration, pin), **settings)


def model_failure(error: Exception, seat: ModelEntry, thinker: str) -> CommandError:
    """The one ``Error:`` line for what ended a run: the model's failure, or the thinker's."""
    if isinstance(error, ModelNotConfigured):
        return CommandError(str(error))
    if isinstance(error, ModelConnectionError):
        return CommandError(unreachable(seat, error))
    if isinstance(error, ModelRateLimited):
        wait = f" Try again in {error.retry_after:g} s." if error.retry_after is not None else ""
        return CommandError(f"{seat.id} is rate-limiting requests.{wait}")
    if isinstance(error, ModelError | ResponseError):
        return CommandError(f"{seat.id}: {error}")
    if isinstance(error, NucleoError):
        return CommandError(f"{thinker}: {error}")
    return CommandError(f"running '{thinker}' raised {type(error).__name__}: {error}")


def unreachable(seat: ModelEntry, error: ModelConnectionError) -> str:
    """What to do when the seat's server cannot be reached; or, when it timed out, that."""
    if timed_out(error):
        return (
            f"{seat.id}: {error}. The server was reached but did not answer in time: raise "
            "--timeout or --deadline (or the entry's timeout and deadline settings), or lower "
            "--max-tokens."
        )
    if seat.provider == "openai-compatible":
        return (
            f"cannot reach the server at {seat.base_url}. Start it (for Ollama: "
            f"`ollama serve`, then `ollama pull {seat.model}`) or fix the URL in --model."
        )
    return f"cannot reach {seat.provider} ({error}); check your network or the base URL."


@final
class AnswerPrinter:
    """A thinker listener printing each `ContentEvent` on stdout as it arrives.

    Attributes:
        printed: Whether any event was printed since `reset`.
    """

    def __init__(self) -> None:
        self.printed = False
        self._at_line_start = True

    def __call__(self, event: ContentEvent) -> None:
        """Print the chunk; end the line after the last one."""
        if event.text:
            click.echo(event.text, nl=False)
            self._at_line_start = event.text.endswith("\n")
        if event.done:
            if not self._at_line_start:
                click.echo()
            self._at_line_start = True
        self.printed = True

    def reset(self) -> None:
        """Forget what was printed: a new answer begins."""
        self.printed = False


def as_text(answer: object) -> str:
    """An answer as it is printed: a string as it is, anything else as JSON."""
    if isinstance(answer, str):
        return answer
    return json.dumps(as_json(answer), ensure_ascii=False)


def as_json(answer: object) -> Any:
    """An answer as a JSON value (pydantic models and dataclasses included)."""
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(answer, fallback=str)
