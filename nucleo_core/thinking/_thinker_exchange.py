"""One exchange of a thinker's loop with the model: the `LLMCall` a turn makes, and its text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from nucleo_core.errors import ResponseError
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.thinking._run_observer import run_observer
from nucleo_core.thinking._thinker_streaming import _Streaming
from nucleo_core.thinking.llm_call import LLMCall

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.models.catalog import ModelCatalog
    from nucleo_core.models.client import ModelClient
    from nucleo_core.models.declaration import ThinkerDeclaration
    from nucleo_core.models.messages import Message, Usage
    from nucleo_core.models.request import ToolChoice
    from nucleo_core.thinking.correction import ResponseCorrection
    from nucleo_core.thinking.response import ThinkingResponse

__all__: list[str] = []


class _Exchange(_Streaming, ThinkerBase):
    """A turn's exchange with the model, and what it sends; mixed into `Thinker`."""

    output_type: ClassVar[Any]
    declaration: ThinkerDeclaration
    catalog: ModelCatalog | None
    pin: str | None
    system: str
    correction: ResponseCorrection | None
    client: ModelClient | None
    _usage: Usage

    async def submit_thinking_call(self, context: ConversationContext) -> ThinkingResponse[Any]:
        """Make this turn's one exchange with the model (the scripted-turn test seam)."""
        call = self._thinking_call(context.messages_for_model())
        try:
            result = await call.run()
        except ResponseError:
            # The refused answers and their corrections stay for the transcript: they are what
            # a developer reads to see why the answer was given up on.
            context.extend(call.turns)
            raise
        finally:
            self.end_streamed_reply(call)
        self.catalog = call.catalog
        self.record_usage(result.usage)
        return result

    def _thinking_call(
        self, messages: Sequence[Message], *, tool_choice: ToolChoice = "auto"
    ) -> LLMCall[Any]:
        """A turn's exchange over ``messages``: this thinker's seat, system text and palette."""
        return LLMCall(
            declaration=self.declaration,
            messages=messages,
            catalog=self.catalog,
            system=self.system_text(),
            tools=self.registry,
            output_type=self.output_type,
            pin=self.pin,
            tool_choice=tool_choice,
            correction=self.correction,
            client=self.client,
            observer=run_observer(self._hub),
            on_text=self.text_sink(),
        )

    def record_usage(self, usage: Usage) -> None:
        """Add ``usage`` to the run in progress (a sub-thinker's run adds its own here)."""
        self._usage = self._usage + usage

    def system_text(self) -> str:
        """The system text: the thinker's own, then each attached skill's instructions."""
        parts = [self.system] if self.system else []
        from nucleo_core.skills.files import skill_preamble

        parts.extend(skill_preamble(skill) for skill in self.skills)
        return "\n\n".join(parts)
