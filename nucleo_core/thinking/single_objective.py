"""`SingleObjectiveThinker`: one objective, iterations until a validated final answer."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from nucleo_core.models.messages import Message
from nucleo_core.thinking.thinker import ANSWER_REFUSED, ContentEvent, InputT, OutputT, Thinker

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext
    from nucleo_core.thinking.response import ThinkingResponse

__all__ = ["SingleObjectiveThinker"]


class SingleObjectiveThinker(Thinker[InputT, OutputT], Generic[InputT, OutputT]):
    """Goal-directed: iterates until a final answer its validation guardrails accept.

    Override `validate_answer` to refuse a candidate answer: the refusal goes back to the model
    as a correction turn and the loop goes on (within ``max_iterations``). The accepted answer
    of a top-level thinker is streamed as one done `ContentEvent`: its text when it is a
    string, else the typed answer as JSON.
    """

    #: Whether this thinker answers a user directly (sub-thinkers do not stream their answer).
    top_level: ClassVar[bool] = True

    def validate_answer(self, answer: OutputT) -> str | None:
        """A validation guardrail: ``None`` accepts, a reason (for the model) refuses."""
        del answer
        return None

    async def accept(self, result: ThinkingResponse[Any], context: ConversationContext) -> Any:
        """Run the validation guardrails; refuse with a correction turn, or accept and stream.

        Artifact resolution comes first: an answer that names artifacts (``artifact_refs``,
        as `ArtifactThinkerOutput` does) may name only artifacts of this conversation.
        """
        answer: Any = result.answer
        reason = _unresolved_artifacts(answer, context) or self.validate_answer(answer)
        if reason is not None:
            context.append(Message.user(f"Your answer was not accepted: {reason} Answer again."))
            return ANSWER_REFUSED
        if self.top_level:
            self.emit(ContentEvent(text=_as_text(answer), done=True))
        return answer


def _unresolved_artifacts(answer: object, context: ConversationContext) -> str | None:
    refs = getattr(answer, "artifact_refs", None)
    if not refs:
        return None
    store = context.artifacts
    unknown = [artifact_id for artifact_id in refs if artifact_id not in store]
    if not unknown:
        return None
    known = ", ".join(store.ids()) if len(store) else "none"
    return (
        f"artifact_refs may list only ids of artifacts you can read (known: {known}); "
        f"{len(unknown)} of the ids listed are not among them."
    )


def _as_text(answer: object) -> str:
    if isinstance(answer, str):
        return answer
    dump = getattr(answer, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    return json.dumps(answer, default=str)
