"""Compaction: older turns replaced by a summary when a conversation outgrows its budget.

The thinker asks `needs_compaction` before a turn and, when it answers yes, awaits `compact`
with a summarizer (usually a cheap model call) and its registry's ``carried_state()``. The
conversation then starts with one user message::

    [Summary of earlier conversation]
    <the summary>
    [State carried by <tool>]          one block per carried state, in registry order
    <the state's text>

followed by the most recent messages, kept as they were. A tool use and the result that
answers it are never separated: the cut moves until both are kept or both are summarized.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from nucleo_core.conversations.marker import render_markers
from nucleo_core.models.messages import (
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)

if TYPE_CHECKING:
    from nucleo_core.conversations.context import ConversationContext
    from nucleo_core.tools.state import CarriedState

__all__ = [
    "CARRIED_HEADER",
    "CHARS_PER_TOKEN",
    "SUMMARY_HEADER",
    "CompactionResult",
    "Summarizer",
    "TokenEstimate",
    "choose_cut",
    "compact",
    "estimate_tokens",
    "needs_compaction",
    "summary_message",
]

#: Estimates the tokens a sequence of messages costs; assumed additive over messages.
TokenEstimate: TypeAlias = Callable[[Sequence[Message]], int]
#: Writes the summary of the messages it is given.
Summarizer: TypeAlias = Callable[[Sequence[Message]], Awaitable[str]]

#: The first line of the summary message.
SUMMARY_HEADER = "[Summary of earlier conversation]"
#: The first line of each carried state's block; ``{tool}`` is the tool's name.
CARRIED_HEADER = "[State carried by {tool}]"
#: The characters a token is taken to hold by `estimate_tokens`.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionResult:
    """What a compaction did.

    Attributes:
        compacted: Whether anything was replaced (``False`` when no cut keeps tool uses and
            their results together, or there was nothing older to summarize).
        summarized: How many messages the summary replaced.
        kept: How many messages were kept after the summary.
        tokens_before: The estimate before.
        tokens_after: The estimate after.
        summary: The summary written, or ``None``.
    """

    compacted: bool
    summarized: int
    kept: int
    tokens_before: int
    tokens_after: int
    summary: str | None


def estimate_tokens(messages: Sequence[Message]) -> int:
    """A cheap token estimate: every character the model reads, over `CHARS_PER_TOKEN`.

    Counts text, tool names and inputs, tool results and reasoning (redacted data too),
    rounded up. It is the provider-neutral default; pass a tokenizer-backed estimate where
    precision matters.
    """
    chars = 0
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                chars += len(block.text)
            elif isinstance(block, ToolUseBlock):
                chars += len(block.name) + len(str(block.input))
            elif isinstance(block, ToolResultBlock):
                chars += len(block.content)
            elif isinstance(block, ReasoningBlock):
                chars += len(block.text) + len(block.data or "")
    return math.ceil(chars / CHARS_PER_TOKEN)


def needs_compaction(
    context: ConversationContext, budget_tokens: int, estimate: TokenEstimate = estimate_tokens
) -> bool:
    """Whether ``context``'s messages are estimated to cost more than ``budget_tokens``."""
    return estimate(context.messages) > budget_tokens


def summary_message(summary: str, carried: Sequence[CarriedState]) -> Message:
    """The user message that stands for the summarized turns, carried states in the order given."""
    blocks = [TextBlock(text=f"{SUMMARY_HEADER}\n{summary}")]
    blocks += [
        TextBlock(text=f"{CARRIED_HEADER.format(tool=state.tool)}\n{state.text}")
        for state in carried
    ]
    return Message(role="user", content=tuple(blocks))


def choose_cut(
    messages: Sequence[Message],
    *,
    keep_recent: int,
    budget_tokens: int,
    estimate: TokenEstimate = estimate_tokens,
) -> int | None:
    """How many leading messages to summarize, or ``None`` when no cut is possible.

    The target keeps the ``keep_recent`` most recent messages, fewer when they alone are
    estimated above half of ``budget_tokens`` (the other half is for the summary and the turns
    to come). The cut then moves to the nearest position that separates no tool use from its
    result: earlier (keeping more) when there is one, else later. Where the budget allows, one
    more message is kept when that makes an assistant message the first kept, so the summary
    (a user message) is followed by the model's turn, as strictly alternating chat templates
    require.
    """
    count = len(messages)
    sizes = [estimate((message,)) for message in messages]
    target = max(count - max(keep_recent, 0), 0)
    tail = sum(sizes[target:])
    while target < count and tail > budget_tokens // 2:
        tail -= sizes[target]
        target += 1
    allowed = _allowed_cuts(messages)
    below = [cut for cut in allowed if cut <= target]
    if below:
        cut = max(below)
        if (
            cut < count
            and messages[cut].role == "user"
            and cut - 1 in allowed
            and messages[cut - 1].role == "assistant"
            and tail + sum(sizes[cut - 1 : target]) <= budget_tokens // 2
        ):
            cut -= 1
        return cut
    above = [cut for cut in allowed if cut > target]
    return min(above) if above else None


async def compact(
    context: ConversationContext,
    *,
    budget_tokens: int,
    summarize: Summarizer,
    carried: Sequence[CarriedState],
    keep_recent: int = 4,
    estimate: TokenEstimate = estimate_tokens,
) -> CompactionResult:
    """Replace the older messages of ``context`` by one summary message.

    The summarizer is given the messages to be replaced, with the notes of the markers among
    them (so an abnormal end is not forgotten). The summary and ``carried`` are kept as
    ``context.summary`` and ``context.carried``; on a durable context, the replacement is one
    transaction. Messages appended while the summarizer ran are kept after the summary.

    Args:
        context: The conversation.
        budget_tokens: The conversation's budget; the kept messages take at most half of it
            where the pairing of tool uses and results allows.
        summarize: Writes the summary of the messages it is given.
        carried: The registry's ``carried_state()``, in registry order.
        keep_recent: How many of the most recent messages to keep as they are, at most.
        estimate: The token estimate.

    Raises:
        ConversationConflict: The summarized messages changed while the summarizer ran (a
            rollback, say); nothing was replaced.
    """
    messages = context.messages
    before = estimate(messages)
    cut = choose_cut(
        messages, keep_recent=keep_recent, budget_tokens=budget_tokens, estimate=estimate
    )
    if cut is None or cut == 0:
        return CompactionResult(
            compacted=False,
            summarized=0,
            kept=len(messages),
            tokens_before=before,
            tokens_after=before,
            summary=None,
        )
    replaced = messages[:cut]
    placed = [m for m in context.markers if m.position is not None and m.position <= cut]
    summary = await summarize(render_markers(replaced, placed))
    if not isinstance(summary, str):
        raise TypeError(f"the summarizer returned {type(summary).__name__}, not the summary text")
    states = tuple(carried)
    context.apply_compaction(
        replaced, summary_message(summary, states), summary=summary, carried=states
    )
    after = context.messages
    return CompactionResult(
        compacted=True,
        summarized=cut,
        kept=len(after) - 1,
        tokens_before=before,
        tokens_after=estimate(after),
        summary=summary,
    )


def _allowed_cuts(messages: Sequence[Message]) -> set[int]:
    """Every cut in ``1..len`` that leaves each answered tool use on one side with its result."""
    uses: dict[str, int] = {}
    results: dict[str, int] = {}
    for index, message in enumerate(messages):
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                uses.setdefault(block.id, index)
            elif isinstance(block, ToolResultBlock):
                results[block.tool_use_id] = index
    blocked: set[int] = set()
    for call_id, used in uses.items():
        answered = results.get(call_id)
        if answered is not None:
            low, high = min(used, answered), max(used, answered)
            blocked.update(range(low + 1, high + 1))
    return {cut for cut in range(1, len(messages) + 1) if cut not in blocked}
