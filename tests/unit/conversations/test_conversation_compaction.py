"""Compaction: a summary replaces older turns, tool uses stay with their results, state carries."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from _conversation_strategies import paired_conversations
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core.conversations import (
    ConversationConflict,
    ConversationContext,
    ConversationService,
    compact,
    estimate_tokens,
    needs_compaction,
    summary_message,
)
from nucleo_core.conversations.compaction import SUMMARY_HEADER, choose_cut
from nucleo_core.models.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from nucleo_core.tools import ToolProvider, ToolRegistry
from nucleo_core.tools.provider import RawInput
from nucleo_core.tools.state import CarriedState
from nucleo_core.tools.tool import Tool

CARRIED = (
    CarriedState(tool="todo", text="2 open items"),
    CarriedState(tool="files", text="edited a.py", data={"paths": ["a.py"]}),
)


class _Summaries:
    """A summarizer that records what it was given."""

    def __init__(self) -> None:
        self.given: list[tuple[Message, ...]] = []

    async def __call__(self, messages: Sequence[Message]) -> str:
        self.given.append(tuple(messages))
        return f"{len(messages)} earlier messages"


def _ids(messages: Sequence[Message]) -> tuple[set[str], set[str]]:
    uses = {b.id for m in messages for b in m.content if isinstance(b, ToolUseBlock)}
    results = {b.tool_use_id for m in messages for b in m.content if isinstance(b, ToolResultBlock)}
    return uses, results


def _run(context: ConversationContext, **options: Any) -> Any:
    settings: dict[str, Any] = {
        "budget_tokens": 1000,
        "summarize": _Summaries(),
        "carried": CARRIED,
    }
    settings.update(options)
    return asyncio.run(compact(context, **settings))


@given(
    paired_conversations(),
    st.integers(min_value=0, max_value=8),
    st.integers(min_value=0, max_value=400),
)
def test_compaction_never_separates_a_tool_use_from_its_result(
    conversation: list[Message], keep_recent: int, budget: int
) -> None:
    """After any compaction, kept tool uses and kept results answer each other exactly."""
    context = ConversationContext()
    context.extend(conversation)
    summaries = _Summaries()
    result = _run(context, keep_recent=keep_recent, budget_tokens=budget, summarize=summaries)
    after = context.messages
    if not result.compacted:
        assert after == tuple(conversation)
        return
    summary, kept = after[0], after[1:]
    uses, results = _ids(kept)
    assert uses == results
    assert kept == tuple(conversation[result.summarized :])
    assert summaries.given == [tuple(conversation[: result.summarized])]
    assert result.summarized + result.kept == len(conversation)
    assert summary.role == "user"
    assert summary.content[0] == TextBlock(text=f"{SUMMARY_HEADER}\n{result.summary}")
    assert [block.text for block in summary.content[1:]] == [  # type: ignore[union-attr]
        f"[State carried by {state.tool}]\n{state.text}" for state in CARRIED
    ]


@given(paired_conversations(), st.integers(min_value=0, max_value=8))
def test_the_cut_keeps_at_most_keep_recent_when_pairs_allow(
    conversation: list[Message], keep_recent: int
) -> None:
    """With a roomy budget the cut keeps keep_recent messages or more, never cutting a pair."""
    cut = choose_cut(conversation, keep_recent=keep_recent, budget_tokens=10**9)
    if cut is None:
        return
    assert 1 <= cut <= len(conversation)
    assert _ids(conversation[cut:])[0] == _ids(conversation[cut:])[1]


def test_the_summary_and_carried_state_are_kept_on_the_context() -> None:
    """context.summary and context.carried hold what the last compaction wrote."""
    context = ConversationContext()
    context.extend(
        [Message.user(f"m{i}") if i % 2 == 0 else Message.assistant("a") for i in range(10)]
    )
    result = _run(context, keep_recent=4)
    assert result.compacted
    assert context.summary == result.summary
    assert context.carried == CARRIED
    assert context.messages[0] == summary_message(result.summary, CARRIED)


def test_the_cut_moves_to_keep_a_pair_together() -> None:
    """A cut that would fall between a tool use and its result moves to before the use."""
    conversation = [
        Message.user("Q"),
        Message.assistant("thinking"),
        Message(role="assistant", content=(ToolUseBlock(id="a", name="t", input={}),)),
        Message(role="user", content=(ToolResultBlock(tool_use_id="a", content="r"),)),
        Message.assistant("done"),
    ]
    # keep_recent=2 would keep [result, done] and orphan the result.
    assert choose_cut(conversation, keep_recent=2, budget_tokens=10**6) == 2


def test_the_cut_prefers_to_keep_an_assistant_message_first() -> None:
    """Between two allowed cuts one apart, the one keeping an assistant message first wins."""
    conversation = [Message.user("a"), Message.assistant("b"), Message.user("c")]
    assert choose_cut(conversation, keep_recent=1, budget_tokens=10**6) == 1


def test_the_kept_messages_take_at_most_half_the_budget() -> None:
    """Recent messages too large for half the budget are summarized too."""
    conversation = [Message.user("x" * 400), Message.assistant("y" * 400), Message.user("z" * 40)]
    # 100 + 100 + 10 tokens; half of 100 fits only the last message.
    assert choose_cut(conversation, keep_recent=3, budget_tokens=100) == 2


def test_a_lone_tool_exchange_is_summarized_whole() -> None:
    """When every cut inside would split a pair, the cut moves later to take the whole pair."""
    exchange = [
        Message(role="assistant", content=(ToolUseBlock(id="a", name="t", input={}),)),
        Message(role="user", content=(ToolResultBlock(tool_use_id="a", content="r"),)),
    ]
    assert choose_cut(exchange, keep_recent=1, budget_tokens=1000) == 2
    context = ConversationContext()
    context.extend(exchange)
    result = _run(context, keep_recent=1)
    assert result.compacted
    assert result.kept == 0


def test_an_empty_conversation_is_not_compacted() -> None:
    """With nothing to summarize, compact reports that it did nothing."""
    context = ConversationContext()
    result = _run(context, keep_recent=0)
    assert not result.compacted
    assert result.summary is None
    assert context.messages == ()


def test_carried_state_comes_in_registry_order() -> None:
    """The registry's carried_state(), passed on, appears in the summary in registry order."""
    registry = ToolRegistry([_Stateful("zeta"), _Stateful("alpha"), _Stateful("mid", None)])
    context = ConversationContext()
    context.extend([Message.user("q"), Message.assistant("a"), Message.user("q2")])
    _run(context, keep_recent=1, carried=registry.carried_state())
    assert [state.tool for state in context.carried] == ["zeta", "alpha"]
    texts = [block.text for block in context.messages[0].content]  # type: ignore[union-attr]
    assert texts[1:] == [
        "[State carried by zeta]\nzeta state",
        "[State carried by alpha]\nalpha state",
    ]


def test_markers_among_summarized_messages_reach_the_summarizer() -> None:
    """A summarized marker is shown to the summarizer and loses its position."""
    context = ConversationContext()
    context.extend([Message.user("Q"), Message.assistant("partial")])
    context.rollback_to_last_user_utterance("timeout")
    context.extend([Message.user("Q2"), Message.assistant("A2"), Message.user("Q3")])
    context.record_marker("note", "later")
    summaries = _Summaries()
    _run(context, keep_recent=1, summarize=summaries)
    (given_messages,) = summaries.given
    assert any("timeout" in message.text for message in given_messages)
    # Summarized: [Q, Q2]; kept: [A2, Q3] after the summary, the later marker after Q3.
    assert [m.position for m in context.markers] == [None, 3]


def test_messages_appended_while_summarizing_are_kept() -> None:
    """A message appended while the summarizer runs stays after the summary."""
    context = ConversationContext()
    context.extend([Message.user("a"), Message.assistant("b"), Message.user("c")])

    async def summarize(messages: Sequence[Message]) -> str:
        context.append(Message.assistant("late"))
        return "s"

    _run(context, keep_recent=1, summarize=summarize)
    assert context.messages[-1] == Message.assistant("late")


def test_a_rollback_during_summarizing_is_a_conflict() -> None:
    """If the summarized messages change under the summarizer, nothing is replaced."""
    context = ConversationContext()
    context.extend([Message.user("a")] + [Message.assistant(text) for text in "bcd"])

    async def summarize(messages: Sequence[Message]) -> str:
        context.rollback_to_last_user_utterance("cancelled")  # removes b, c and d
        context.extend([Message.assistant(text) for text in "bcd"])
        return "s"

    with pytest.raises(ConversationConflict, match="compact it again"):
        _run(context, keep_recent=1, summarize=summarize)
    assert context.summary is None
    assert [m.text for m in context.messages] == ["a", "b", "c", "d"]


def test_estimate_tokens_counts_every_character_over_four() -> None:
    """The default estimate is characters of text, tool calls and results over four, rounded up."""
    messages = [
        Message.user("abcd"),
        Message(role="assistant", content=(ToolUseBlock(id="1", name="ab", input="cd"),)),
        Message(role="user", content=(ToolResultBlock(tool_use_id="1", content="x"),)),
    ]
    assert estimate_tokens(messages) == 3  # 4 + 4 + 1 = 9 chars


def test_needs_compaction_compares_the_estimate_with_the_budget() -> None:
    """needs_compaction is true only above the budget, with a pluggable estimate."""
    context = ConversationContext()
    context.append(Message.user("x" * 40))
    assert not needs_compaction(context, 10)
    assert needs_compaction(context, 9)
    assert needs_compaction(context, 1000, estimate=lambda messages: 1001)


def test_a_durable_compaction_is_stored(tmp_path: Path) -> None:
    """After a restart the compacted conversation is what the compaction left."""
    path = tmp_path / "c.sqlite3"
    with ConversationService(path) as service:
        context = service.open("c", durable=True)
        context.extend([Message.user(str(i)) for i in range(6)])
        _run(context, keep_recent=2)
        before = context.snapshot()
    with ConversationService(path) as service:
        assert service.open("c", durable=True).snapshot() == before


def test_a_non_text_summary_is_refused() -> None:
    """A summarizer that returns something other than text is a TypeError, nothing replaced."""
    context = ConversationContext()
    context.extend([Message.user("a"), Message.assistant("b")])

    async def summarize(messages: Sequence[Message]) -> Any:
        return None

    with pytest.raises(TypeError, match="summarizer"):
        _run(context, keep_recent=0, summarize=summarize)
    assert len(context.messages) == 2


class _Stateful(ToolProvider):
    """A provider whose only feature is the state it carries."""

    def __init__(self, name: str, state: str | None = "") -> None:
        self._name = name
        self._state = f"{name} state" if state == "" else state

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return "carries state"

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object"}

    def parse_input(self, raw: RawInput) -> Any:
        return raw

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        raise NotImplementedError

    def carried_state(self, conversation_id: str | None = None) -> CarriedState | None:
        return None if self._state is None else CarriedState(tool=self._name, text=self._state)
