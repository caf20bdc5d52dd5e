"""`reconcile_results`: make a results turn answer an assistant turn's tool uses exactly."""

from __future__ import annotations

from collections.abc import Sequence

from nucleo_core.models.messages import Message, ToolResultBlock

__all__ = ["NO_RESULT", "reconcile_results"]

#: What the model reads for a tool use that no result answered.
NO_RESULT = (
    "No result was produced for this call (it was interrupted before it finished); "
    "call the tool again if you still need its result."
)


def reconcile_results(
    assistant: Message, results: Sequence[ToolResultBlock]
) -> tuple[ToolResultBlock, ...]:
    """The results answering ``assistant``'s tool uses: exactly one per tool-use id, in order.

    Results are put in the order of the tool uses; the first result for an id wins and later
    ones are dropped; a result answering no tool use of ``assistant`` is dropped; a tool use
    left unanswered gets an error result saying no result was produced. A tool-use id repeated
    within ``assistant`` is answered once, at its first place. Used when a conversation is
    resumed or a turn ended abnormally, so what is sent to the model always pairs.
    """
    answers: dict[str, ToolResultBlock] = {}
    for result in results:
        answers.setdefault(result.tool_use_id, result)
    reconciled: dict[str, ToolResultBlock] = {}
    for use in assistant.tool_uses:
        if use.id in reconciled:
            continue
        answer = answers.get(use.id)
        if answer is None:
            answer = ToolResultBlock(tool_use_id=use.id, content=NO_RESULT, is_error=True)
        reconciled[use.id] = answer
    return tuple(reconciled.values())
