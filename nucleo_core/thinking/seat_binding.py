"""How a `ModelSeat` calls a model: one toolless `LLMCall` exchange (the seat's thinking side).

A seat is declared in the tools layer, which knows neither `ThinkerDeclaration` nor `LLMCall`;
`LLMCallSeats` is what it needs from above at call time (the `SeatBinding` protocol);
``nucleo_core.thinking`` binds it, once, for every seat, when it is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, final

from nucleo_core.models.catalog import ModelCatalog
from nucleo_core.models.declaration import AnswerSize, ThinkerDeclaration
from nucleo_core.models.messages import Message
from nucleo_core.thinking.correction import ResponseCorrection
from nucleo_core.thinking.llm_call import LLMCall
from nucleo_core.thinking.response import ThinkingResponse

if TYPE_CHECKING:
    from nucleo_core.models.client import ModelClient

__all__ = ["LLMCallSeats"]


@final
class LLMCallSeats:
    """Seats whose declarations are `ThinkerDeclaration` and whose calls are `LLMCall` exchanges."""

    __slots__ = ()

    def declaration(
        self,
        value: object,
        *,
        grade: str | None = None,
        answer_size: AnswerSize | int | str | None = None,
    ) -> ThinkerDeclaration | None:
        """``value`` if it is a `ThinkerDeclaration`, on ``grade`` and ``answer_size`` if given."""
        if not isinstance(value, ThinkerDeclaration):
            return None
        if grade is not None:
            value = replace(value, grade=grade)
        if answer_size is not None:
            value = replace(value, answer_size=answer_size)
        return value

    def discover_catalog(self) -> ModelCatalog:
        """``ModelCatalog.discover()``: the project's configuration."""
        return ModelCatalog.discover()

    async def exchange(
        self,
        prompt: str | Sequence[Message],
        *,
        declaration: ThinkerDeclaration,
        catalog: ModelCatalog,
        pin: str | None,
        client: ModelClient | None,
        output_type: Any,
        system: str,
        correction: ResponseCorrection | None,
    ) -> ThinkingResponse[Any]:
        """One `LLMCall` exchange with no tools, on ``prompt`` (a user text or a conversation)."""
        messages = [Message.user(prompt)] if isinstance(prompt, str) else list(prompt)
        call: LLMCall[Any] = LLMCall(
            declaration=declaration,
            messages=messages,
            catalog=catalog,
            system=system,
            output_type=output_type,
            pin=pin,
            correction=correction,
            client=client,
        )
        return await call.run()
