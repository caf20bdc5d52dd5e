"""Model-dependent tools: a tool that calls a model itself does so on its parent thinker's seat.

A tool that asks a model for something (a summary, a classification, a translation) declares
so, and its provider hands it a `ModelSeat` when it is created for a thinker (seed 000: "a
ModelDependent tool that declares no grade receives its parent's"):

- a `Tool` class mixes in `ModelDependent` and reads ``self.seat``; it may declare
  ``grade = "fast"`` to be seated on another grade than its parent's;
- a function tool takes a parameter annotated `ModelSeat` (or
  ``Annotated[ModelSeat, SeatGrade("fast")]``), which the framework fills in and leaves out of
  the published input schema, so the model never sees it.

The seat is the parent's: its declaration (grade and answer size), pin, model catalog and
client, read when a call is made. A declared grade replaces the parent's grade; a pin beats
every grade (seed 002: "the pin reaches every call"), so a pinned thinker's tools are pinned to
the same entry. The tokens a seat spends are added to the parent's run
(``record_usage``), like a sub-thinker's.

This module is in the tools layer, which knows nothing of the models and thinking layers: a
seat holds its declaration and where it is seated, and what a call needs from above (what a
`ThinkerDeclaration` is, the catalog to discover, the `LLMCall` exchange) is a `SeatBinding`
(``tools/_seat_binding.py``), which the thinking layer binds (``thinking/seat_binding.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, overload

from nucleo_core.errors import MisuseError, ToolDeclarationError
from nucleo_core.tools._seat_binding import SeatDeclaration, bound_binding

__all__ = ["ModelDependent", "ModelSeat", "ModelSeatUnavailable", "SeatGrade"]

AnswerT = TypeVar("AnswerT")


class ModelSeatUnavailable(MisuseError):
    """A model-dependent tool tried to call a model but was created without a thinker."""


def _check_grade(grade: object, where: str) -> str | None:
    if grade is None or (isinstance(grade, str) and grade):
        return grade
    raise ToolDeclarationError(
        where, ["its grade must be a non-empty grade name (e.g. 'fast'), or None for its parent's"]
    )


@dataclass(frozen=True, slots=True)
class SeatGrade:
    """The grade a function tool's seat is declared with: ``Annotated[ModelSeat, SeatGrade(...)]``.

    Attributes:
        grade: A grade name the catalog maps to an entry (``"fast"``, ``"standard"``, ...).
    """

    grade: str

    def __post_init__(self) -> None:
        if not isinstance(self.grade, str) or not self.grade:
            raise MisuseError("SeatGrade needs a non-empty grade name, e.g. SeatGrade('fast')")


class ModelSeat:
    """The model seat a model-dependent tool calls a model through.

    A tool's provider builds it for the thinker the tool runs for (`ModelSeat.of`); a test or a
    script may build one of its own with a declaration, a catalog and a client. Either way a call
    is one `LLMCall` exchange, with its corrections and truncation escalation, and no tools.

    Args:
        declaration: The seat's `ThinkerDeclaration` (grade and answer size).
        pin: An entry id that beats the grade.
        catalog: The `ModelCatalog` the seat is resolved in; ``ModelCatalog.discover()`` when
            ``None``.
        client: A `ModelClient` to use instead of the catalog's.

    Example:
        >>> from nucleo_core import ModelCatalog, ModelSeat, ThinkerDeclaration
        >>> seat = ModelSeat(
        ...     ThinkerDeclaration("fast", "short"),
        ...     catalog=ModelCatalog(grades={"fast": "anthropic:claude-haiku-4-5"}),
        ... )
        >>> seat.entry().id
        'anthropic:claude-haiku-4-5'
    """

    __slots__ = ("_catalog", "_client", "_declaration", "_grade", "_parent", "_pin", "_tool")

    def __init__(
        self,
        declaration: SeatDeclaration,
        *,
        pin: str | None = None,
        catalog: Any = None,
        client: Any = None,
    ) -> None:
        if bound_binding().declaration(declaration) is None:
            raise MisuseError(
                "ModelSeat needs a ThinkerDeclaration(grade, answer_size) as its first argument"
            )
        self._declaration: SeatDeclaration | None = declaration
        self._pin = pin
        self._catalog = catalog
        self._client = client
        self._parent: object | None = None
        self._grade: str | None = None
        self._tool: str | None = None

    @classmethod
    def of(cls, parent: object | None, *, grade: str | None = None, tool: str = "") -> ModelSeat:
        """The seat of ``parent`` (a thinker), with ``grade`` in place of its grade if given.

        The parent is read at each call: its ``declaration``, ``pin``, ``catalog`` and
        ``client``. A parent that is not a thinker (``None``, in a test) gives a seat that
        raises `ModelSeatUnavailable` when it is used, naming ``tool``.
        """
        seat = cls.__new__(cls)
        seat._declaration = None
        seat._pin = None
        seat._catalog = None
        seat._client = None
        seat._parent = parent
        seat._grade = _check_grade(grade, f"the seat of tool '{tool}'")
        seat._tool = tool
        return seat

    # -- what the seat is ---------------------------------------------------------------------

    @property
    def available(self) -> bool:
        """Whether a call can be made: the seat was built for a thinker, or with a declaration."""
        return self._base_declaration() is not None

    @property
    def declaration(self) -> Any:
        """The `ThinkerDeclaration` calls are made with: the parent's, on the declared grade.

        Raises:
            ModelSeatUnavailable: The tool was created without a thinker.
        """
        base = self._base_declaration()
        if base is None:
            raise self._unavailable()
        if self._grade is None or self._grade == base.grade:
            return base
        return bound_binding().declaration(base, grade=self._grade)

    @property
    def pin(self) -> str | None:
        """The entry id every call is pinned to (the parent's pin), or ``None``."""
        if self._parent is not None:
            return _str_or_none(getattr(self._parent, "pin", None))
        return self._pin

    @property
    def catalog(self) -> Any:
        """The `ModelCatalog` calls are resolved in (the parent's), or ``None`` to discover one."""
        if self._parent is not None:
            parents = getattr(self._parent, "catalog", None)
            if parents is not None:
                return parents
        return self._catalog

    @property
    def client(self) -> Any:
        """The `ModelClient` calls go to (the parent's), or ``None`` for the catalog's."""
        if self._parent is not None:
            return getattr(self._parent, "client", None)
        return self._client

    def entry(self) -> Any:
        """The `ModelEntry` a call is seated on now (the pin beats the grade).

        Raises:
            ModelSeatUnavailable: The tool was created without a thinker.
            ModelNotConfigured: No pin, and no entry is assigned to the grade.
        """
        declaration = self.declaration
        return self._resolved_catalog().resolve(declaration, self.pin)

    # -- calls --------------------------------------------------------------------------------

    @overload
    async def complete(
        self,
        prompt: str | Sequence[Any],
        *,
        system: str = "",
        answer_size: int | str | None = None,
        correction: Any = None,
    ) -> str: ...

    @overload
    async def complete(
        self,
        prompt: str | Sequence[Any],
        *,
        output_type: type[AnswerT],
        system: str = "",
        answer_size: int | str | None = None,
        correction: Any = None,
    ) -> AnswerT: ...

    async def complete(self, prompt: str | Sequence[Any], **options: Any) -> Any:
        """Ask the model on this seat and return its answer, of ``output_type`` (text by default).

        The arguments and the errors are `respond`'s; the answer is its response's ``answer``.
        """
        response = await self.respond(prompt, **options)
        return response.answer

    async def respond(
        self,
        prompt: str | Sequence[Any],
        *,
        output_type: Any = str,
        system: str = "",
        answer_size: int | str | None = None,
        correction: Any = None,
    ) -> Any:
        """Like `complete`, but return the whole `ThinkingResponse` (answer, usage, its entry).

        Args:
            prompt: The user message's text, or the whole conversation to send (its messages).
            output_type: The answer's declared type (``str``, a pydantic model, ...).
            system: The system text.
            answer_size: The answer budget (an `AnswerSize`, its value or a token count),
                instead of the seat's declaration's.
            correction: The `ResponseCorrection` budget of the exchange.

        Raises:
            ModelSeatUnavailable: The tool was created without a thinker.
            ResponseParseError: The answer could not be parsed within the correction budget.
            ResponseValidationError: The answer did not fit ``output_type`` within it.
            ModelError: The model provider failed.
            ModelNotConfigured: No seat, SDK or key.
        """
        declaration = self.declaration
        binding = bound_binding()
        if answer_size is not None:
            declaration = binding.declaration(declaration, answer_size=answer_size)
        result = await binding.exchange(
            prompt,
            declaration=declaration,
            catalog=self._resolved_catalog(),
            pin=self.pin,
            client=self.client,
            output_type=output_type,
            system=system,
            correction=correction,
        )
        record = getattr(self._parent, "record_usage", None) if self._parent is not None else None
        if callable(record):  # the tool's tokens count in its thinker's run
            record(result.usage)
        return result

    # -- internals ----------------------------------------------------------------------------

    def _base_declaration(self) -> SeatDeclaration | None:
        if self._parent is None:
            return self._declaration
        declaration: SeatDeclaration | None = bound_binding().declaration(
            getattr(self._parent, "declaration", None)
        )
        return declaration

    def _resolved_catalog(self) -> Any:
        catalog = self.catalog
        if catalog is None:
            # Kept, so that one seat discovers its configuration once.
            catalog = self._catalog = bound_binding().discover_catalog()
        return catalog

    def _unavailable(self) -> ModelSeatUnavailable:
        tool = f"Tool '{self._tool}'" if self._tool else "This model-dependent tool"
        made_for = (
            "without a parent"
            if self._parent is None
            else f"for a {type(self._parent).__name__}, which is not a thinker"
        )
        return ModelSeatUnavailable(
            f"{tool} calls a model on its thinker's seat, but it was created {made_for}. Run it "
            "for a thinker (provider.create(thinker), as a thinker's turn does), or give it a "
            "seat of its own: ModelSeat(ThinkerDeclaration(grade, answer_size), catalog=..., "
            "client=...)."
        )

    def __repr__(self) -> str:
        if self._parent is not None:
            grade = f", grade={self._grade!r}" if self._grade is not None else ""
            return f"<ModelSeat of {type(self._parent).__name__}{grade}>"
        return f"<ModelSeat {self._declaration!r} pin={self._pin!r}>"


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


class ModelDependent:
    """Mix into a `Tool` class that calls a model itself: it gets its parent thinker's seat.

    ``create(parent)`` sets ``self.seat`` to the parent's `ModelSeat` (its grade, pin, catalog
    and client), seated on the class's ``grade`` instead of the parent's when it declares one.
    A tool created without a thinker has a seat that raises `ModelSeatUnavailable` when used.

    Attributes:
        grade: The grade the tool's calls are seated on, or ``None`` for the parent's grade. A
            parent's pin beats it.
        seat: The seat the tool calls a model through, set when the tool is created.

    Example:
        >>> from pydantic import BaseModel
        >>> from nucleo_core import ModelDependent, Tool, tool
        >>> class Text(BaseModel):
        ...     text: str
        >>> @tool(read_only=True, risk="low")
        ... class Summarize(ModelDependent, Tool[Text, str]):
        ...     '''Summarize a text in one sentence.'''
        ...     grade = "fast"
        ...     async def run(self, input: Text) -> str:
        ...         return await self.seat.complete(f"Summarize in one sentence: {input.text}")
    """

    grade: ClassVar[str | None] = None
    seat: ModelSeat = ModelSeat.of(None)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_grade(cls.__dict__.get("grade"), f"tool class {cls.__module__}.{cls.__qualname__}")
