"""What a `ModelSeat` needs at call time from the layers above tools, and the binding in use.

The tools layer declares seats (`ModelSeat`, `SeatGrade`) but makes no model call: it knows
neither `ThinkerDeclaration` (models) nor `LLMCall` (thinking). A `SeatBinding` is those pieces,
behind a protocol; the thinking layer binds its own once (``nucleo_core.thinking.seat_binding``),
and every seat calls through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from nucleo_core.errors import MisuseError

__all__ = ["SeatBinding", "SeatDeclaration", "bind_model_seats", "bound_binding"]


class SeatDeclaration(Protocol):
    """What a seat is declared with: a `ThinkerDeclaration` (grade and answer size)."""

    @property
    def grade(self) -> str: ...

    @property
    def answer_size(self) -> int | str: ...

    @property
    def answer_tokens(self) -> int: ...


class SeatBinding(Protocol):
    """What a `ModelSeat` needs at call time from the layers above tools.

    The thinking layer binds one (``nucleo_core.thinking.seat_binding``): its declarations are
    `ThinkerDeclaration`s, its catalog is ``ModelCatalog.discover()`` and a call is one
    `LLMCall` exchange with no tools.
    """

    def declaration(
        self, value: object, *, grade: str | None = None, answer_size: int | str | None = None
    ) -> Any | None:
        """``value`` if it is a seat declaration, with ``grade`` and ``answer_size`` if given.

        Returns ``None`` when ``value`` is not a declaration (a parent that is not a thinker).
        """

    def discover_catalog(self) -> Any:
        """The model catalog of a seat given none (``ModelCatalog.discover()``)."""

    async def exchange(
        self,
        prompt: str | Sequence[Any],
        *,
        declaration: Any,
        catalog: Any,
        pin: str | None,
        client: Any,
        output_type: Any,
        system: str,
        correction: Any,
    ) -> Any:
        """One exchange on the seat so described; its `ThinkingResponse`."""


@dataclass(slots=True)
class _Bound:
    binding: SeatBinding | None = None


#: The binding every seat calls through, set once by the thinking layer.
_BOUND = _Bound()


def bind_model_seats(binding: SeatBinding) -> None:
    """Make ``binding`` what every `ModelSeat` calls a model through (the thinking layer's)."""
    _BOUND.binding = binding


def bound_binding() -> SeatBinding:
    """The binding seats call through (`bind_model_seats`)."""
    binding = _BOUND.binding
    if binding is None:  # pragma: no cover - the thinking layer binds it when imported
        raise MisuseError("no model-seat binding: import nucleo_core.thinking first")
    return binding
