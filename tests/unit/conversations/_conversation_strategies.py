"""Hypothesis strategies for conversations: random messages and well-paired tool exchanges."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

text_blocks = st.builds(TextBlock, text=st.text())
tool_use_blocks = st.builds(
    ToolUseBlock,
    id=st.text(min_size=1, max_size=12),
    name=st.text(min_size=1, max_size=12),
    input=st.dictionaries(st.text(max_size=8), json_values, max_size=4) | st.text(),
)
tool_result_blocks = st.builds(
    ToolResultBlock, tool_use_id=st.text(max_size=12), content=st.text(), is_error=st.booleans()
)
reasoning_blocks = st.builds(
    ReasoningBlock,
    text=st.text(),
    signature=st.none() | st.text(),
    redacted=st.booleans(),
    data=st.none() | st.text(),
)
blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    text_blocks, tool_use_blocks, tool_result_blocks, reasoning_blocks
)
messages = st.builds(
    Message,
    role=st.sampled_from(["user", "assistant"]),
    content=st.lists(blocks, max_size=5).map(tuple),
)
usages = st.builds(
    Usage,
    input_tokens=st.integers(min_value=0),
    output_tokens=st.integers(min_value=0),
    cache_read_tokens=st.integers(min_value=0),
    cache_write_tokens=st.integers(min_value=0),
    extra=st.dictionaries(st.text(max_size=8), json_values, max_size=3),
)


@st.composite
def paired_conversations(draw: st.DrawFn) -> list[Message]:
    """A conversation of user questions, tool exchanges (parallel calls too) and answers.

    Every tool use is answered by a result in the next user message, results in any order.
    """
    conversation: list[Message] = []
    next_id = 0
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        conversation.append(Message.user(draw(st.text(min_size=1, max_size=30))))
        for _ in range(draw(st.integers(min_value=0, max_value=3))):
            calls = draw(st.integers(min_value=1, max_value=3))
            ids = [f"call_{next_id + offset}" for offset in range(calls)]
            next_id += calls
            preface: tuple[ContentBlock, ...] = (
                (TextBlock(text="Let me look."),) if draw(st.booleans()) else ()
            )
            uses = tuple(ToolUseBlock(id=call, name="lookup", input={"n": call}) for call in ids)
            conversation.append(Message(role="assistant", content=preface + uses))
            answered = draw(st.permutations(ids))
            results = tuple(
                ToolResultBlock(tool_use_id=call, content=draw(st.text(max_size=40)))
                for call in answered
            )
            conversation.append(Message(role="user", content=results))
        if draw(st.booleans()):
            conversation.append(Message.assistant(draw(st.text(min_size=1, max_size=60))))
    return conversation
