"""`ToollessThinker`: one call, no loop, no tool definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Generic

from nucleo_core.errors import MisuseError, ResponseValidationError
from nucleo_core.models.messages import Message
from nucleo_core.thinking.thinker import InputT, OutputT, Thinker
from nucleo_core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.tools.provider import ToolProvider
    from nucleo_core.tools.providers import ToolLike

__all__ = ["ToollessThinker"]


class ToollessThinker(Thinker[InputT, OutputT], Generic[InputT, OutputT]):
    """One exchange with no tool definitions: the answer schema is the output type's own.

    Its validation guardrail (`validate_answer`) refuses a candidate answer with a reason that
    goes back to the model as a correction turn, at most ``MAX_GUARDRAIL_CORRECTIONS`` times;
    past that the last refusal raises `ResponseValidationError`. ``add_tool`` is refused
    outright: a toolless thinker has no palette to add to.
    """

    MAX_GUARDRAIL_CORRECTIONS: ClassVar[int] = 2

    def validate_answer(self, answer: OutputT) -> str | None:
        """A validation guardrail: ``None`` accepts, a reason (for the model) refuses."""
        del answer
        return None

    def add_tool(self, tool: ToolLike) -> ToolProvider:
        """Refused: a toolless thinker sends no tool definitions.

        Raises:
            MisuseError: Always.
        """
        raise MisuseError(
            f"{type(self).__name__} is a ToollessThinker: it sends no tool definitions, so no "
            "tool can be added; use a SingleObjectiveThinker for a thinker with tools"
        )

    def reconcile_tool_registry(self) -> ToolRegistry:
        """Always the empty palette."""
        return self.registry

    async def think(self, context: ConversationContext) -> OutputT:
        """One exchange, plus at most ``MAX_GUARDRAIL_CORRECTIONS`` guardrail corrections."""
        refusals = 0
        while True:
            result = await self.submit_thinking_call(context)
            context.extend(result.turns)
            answer: Any = result.answer
            reason = self.validate_answer(answer)
            if reason is None:
                return answer  # type: ignore[no-any-return]  # validated as the output type
            refusals += 1
            if refusals > self.MAX_GUARDRAIL_CORRECTIONS:
                raise ResponseValidationError(
                    f"{type(self).__name__}'s answer was refused by its guardrail "
                    f"{refusals} time(s): {reason}",
                    attempts=refusals,
                )
            context.append(Message.user(f"Your answer was not accepted: {reason} Answer again."))
