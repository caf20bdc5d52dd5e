"""`reconcile_results` and `runs_alone`: pairing a resumed turn, and who runs alone."""

from __future__ import annotations

from typing import Any

from nucleo_core.hub.meta_tools import RequestSkillProvider, RequestToolsProvider
from nucleo_core.models.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from nucleo_core.thinking.execution import (
    NO_RESULT,
    ConversationAware,
    RegistryAware,
    reconcile_results,
    runs_alone,
)
from nucleo_core.tools import Tool, ToolProvider
from nucleo_core.tools.provider import RawInput


def assistant(*ids: str) -> Message:
    return Message(
        role="assistant",
        content=(
            TextBlock(text="Let me look."),
            *(ToolUseBlock(id=i, name="search", input={}) for i in ids),
        ),
    )


def result(tool_use_id: str, content: str = "ok") -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=tool_use_id, content=content)


def test_results_already_pairing_are_kept_as_they_are() -> None:
    """Results answering every tool use, in order, come back unchanged."""
    results = (result("a"), result("b"))
    assert reconcile_results(assistant("a", "b"), results) == results


def test_unanswered_tool_uses_are_backfilled_with_an_error_result() -> None:
    """A tool use without a result gets an error result saying none was produced."""
    reconciled = reconcile_results(assistant("a", "b", "c"), [result("b")])
    assert reconciled == (
        ToolResultBlock(tool_use_id="a", content=NO_RESULT, is_error=True),
        result("b"),
        ToolResultBlock(tool_use_id="c", content=NO_RESULT, is_error=True),
    )


def test_results_follow_the_order_of_the_tool_uses() -> None:
    """Results given out of order are put in the order of the tool uses."""
    assert reconcile_results(assistant("a", "b"), [result("b"), result("a")]) == (
        result("a"),
        result("b"),
    )


def test_stray_and_duplicate_results_are_dropped() -> None:
    """A result for no tool use is dropped; of two results for one id the first wins."""
    reconciled = reconcile_results(
        assistant("a"), [result("zz"), result("a", "first"), result("a", "second")]
    )
    assert reconciled == (result("a", "first"),)


def test_a_repeated_tool_use_id_is_answered_once() -> None:
    """A tool-use id repeated in the assistant turn gets one result, at its first place."""
    assert reconcile_results(assistant("a", "b", "a"), [result("a"), result("b")]) == (
        result("a"),
        result("b"),
    )


def test_a_turn_without_tool_uses_needs_no_results() -> None:
    """A text-only assistant turn reconciles to no results at all."""
    assert reconcile_results(Message.assistant("Done."), [result("a")]) == ()


# -- runs_alone ----------------------------------------------------------------------------------


class _Plain(Tool[Any, Any]):
    def run(self, input: Any) -> Any:
        return input


class _Talker(_Plain, ConversationAware):
    def bind_conversation(self, conversation: Any) -> None:
        self.conversation = conversation


class _Keeper(_Plain, RegistryAware):
    def bind_registry(self, registry: Any) -> None:
        self.registry = registry


class _Provider(ToolProvider):
    def __init__(self, sequential: bool = False) -> None:
        self._sequential = sequential

    @property
    def sequential(self) -> bool:
        return self._sequential

    @property
    def name(self) -> str:
        return "p"

    @property
    def description(self) -> str:
        return "A provider."

    @property
    def input_schema(self) -> dict[str, Any]:
        return {"type": "object"}

    def parse_input(self, raw: RawInput) -> Any:
        return raw

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        return _Plain(parent)


def test_aware_tools_run_alone_and_plain_ones_do_not() -> None:
    """Conversation- and registry-aware tools run alone; a plain tool runs beside others."""
    provider = _Provider()
    assert runs_alone(provider, _Talker()) is True
    assert runs_alone(provider, _Keeper()) is True
    assert runs_alone(provider, _Plain()) is False


def test_the_meta_tools_run_alone_whatever_their_tool() -> None:
    """request_tools and request_skill change the palette, so they run alone."""
    assert runs_alone(RequestToolsProvider([]), _Plain()) is True
    assert runs_alone(RequestSkillProvider([]), _Plain()) is True


def test_a_provider_declaring_sequential_runs_alone() -> None:
    """A provider that declares itself sequential runs alone; by default a provider does not."""
    assert runs_alone(_Provider(sequential=True), _Plain()) is True
    assert runs_alone(_Provider(), _Plain()) is False
