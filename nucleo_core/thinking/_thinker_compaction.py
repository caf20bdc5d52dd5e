"""A thinker's conversation budget, and the compaction that keeps a conversation within it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.models.declaration import ThinkerDeclaration
from nucleo_core.models.messages import Message, Usage
from nucleo_core.thinking._run_observer import run_observer
from nucleo_core.thinking.llm_call import LLMCall

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.models.catalog import ModelCatalog
    from nucleo_core.models.client import ModelClient
    from nucleo_core.tools.provider import ToolProvider

__all__: list[str] = []


class _Compaction(ThinkerBase):
    """The budget and the compaction of a thinker's conversation; mixed into `Thinker`."""

    declaration: ThinkerDeclaration
    catalog: ModelCatalog | None
    pin: str | None
    client: ModelClient | None
    context_tokens: int | None

    if TYPE_CHECKING:  # what compaction needs of the thinker it is mixed into

        def system_text(self) -> str: ...

        def record_usage(self, usage: Usage) -> None: ...

        def _state_conversation_id(self, provider: ToolProvider, own: str) -> str | None: ...

    def context_budget(self) -> int:
        """Tokens the conversation may hold before it is compacted.

        Three quarters of the seat's context window (the rest is left for the answer and the
        estimate's error), less what every request sends besides the conversation: the system
        text and the tool definitions of the palette (`request_overhead`); never under a
        quarter of the window. Set ``context_tokens`` to choose another budget.
        """
        if self.context_tokens is not None:
            return self.context_tokens
        from nucleo_core.models.catalog import ModelCatalog

        if self.catalog is None:
            self.catalog = ModelCatalog.discover()
        window = self.catalog.resolve(self.declaration, self.pin).context_window
        return max(window * 3 // 4 - self.request_overhead(), window // 4)

    def request_overhead(self) -> int:
        """Tokens estimated for the system text and the palette's tool definitions.

        Estimated as the conversation is (`nucleo_core.conversations.estimate_tokens`: the
        characters over four): each tool's name, description and JSON schema, as a request
        carries them (natively, or described in the system text of a seat without native tools).
        """
        import math

        from nucleo_core.conversations.compaction import CHARS_PER_TOKEN

        chars = len(self.system_text())
        for spec in self.registry.specs():
            chars += len(spec.name) + len(spec.description) + len(json.dumps(spec.input_schema))
        return math.ceil(chars / CHARS_PER_TOKEN)

    async def compact_if_needed(self, context: ConversationContext) -> None:
        """Compact ``context`` when it passes the budget: older turns become a summary.

        The budget is `context_budget`; before the first one, the seat's context window is
        read from its server where it says it (`ModelCatalog.learn_context_window`: an
        ``openai-compatible`` entry without ``context_window`` set, and a client the catalog
        makes, not one passed in). A tool use is never separated from its result, and every
        tool's ``carried_state()`` is kept, in registry order.
        """
        from nucleo_core.conversations import compact, needs_compaction

        if self.context_tokens is None and self.client is None:
            from nucleo_core.models.catalog import ModelCatalog

            if self.catalog is None:
                self.catalog = ModelCatalog.discover()
            await self.catalog.learn_context_window(
                self.catalog.resolve(self.declaration, self.pin)
            )
        budget = self.context_budget()
        if not needs_compaction(context, budget):
            return
        carried = []
        for provider in self.registry.providers():  # every tool, in registry order
            state = provider.carried_state(self._state_conversation_id(provider, context.id))
            if state is not None:
                carried.append(state)
        await compact(context, budget_tokens=budget, summarize=self.summarize, carried=carried)

    async def summarize(self, messages: Sequence[Message]) -> str:
        """Summarize older turns for compaction, with one toolless exchange on the same seat."""
        from nucleo_core.thinking.transcript import render_transcript

        call: LLMCall[str] = LLMCall(
            declaration=self.declaration,
            messages=[Message.user(render_transcript(messages))],
            catalog=self.catalog,
            system=(
                "Summarize this conversation so far for yourself: the objective, what was "
                "found, what was decided, and what is still open. Keep names, numbers and ids."
            ),
            pin=self.pin,
            client=self.client,
            observer=run_observer(self._hub),
        )
        result = await call.run()
        self.record_usage(result.usage)
        return result.answer or ""
