"""Durable approvals through a thinker: pause, decide, resume, in one process.

The cross-process story (SIGKILL, the CLI deciding, a third process resuming) is in
tests/integration/test_approval_durability.py; these pin the rules one by one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import NotPaused, RunPaused
from nucleo_core.guard import PermissionPolicy
from nucleo_core.guard.approval_store import MemoryApprovalStore
from nucleo_core.guard.approvals import Approval, ApprovalRequest
from nucleo_core.models import (
    ModelCatalog,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking._execution_pause import PAUSED_TURN

WIRED: list[str] = []


@tool(read_only=True, risk="low")
def search(query: str) -> str:
    """Search the ledger."""
    return f"found {query}"


@tool(risk="high")
def wire_money(to: str, amount: int) -> str:
    """Wire money."""
    WIRED.append(f"{to} {amount}")
    return f"wired {amount} to {to}"


class Treasurer(SingleObjectiveThinker[str, str]):
    """Search (low risk) and wire (high risk)."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        """Both tools."""
        return [search, wire_money]


def answer(request: ModelRequest) -> ModelResponse:
    """Tool calls first; "Done." once results came back."""
    if any(isinstance(b, ToolResultBlock) for b in request.messages[-1].content):
        return ModelResponse(content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN)
    uses = (
        ToolUseBlock(id="s", name="search", input={"query": "acme"}),
        ToolUseBlock(id="w", name="wire_money", input={"to": "acme", "amount": 120}),
    )
    return ModelResponse(content=uses, stop_reason=StopReason.TOOL_USE)


@pytest.fixture(autouse=True)
def _no_wires() -> None:
    WIRED.clear()


def treasurer(
    conversations: ConversationService, store: MemoryApprovalStore
) -> tuple[Treasurer, ScriptedModel]:
    """A thinker on a guarded hub, with the scripted model and the shared store."""
    model = ScriptedModel(answer)
    thinker = Treasurer(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(guard=PermissionPolicy()),
        client=model,
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        conversations=conversations,
    )
    thinker.approvals = store
    return thinker, model


def results_read(model: ScriptedModel) -> list[ToolResultBlock]:
    """The results message the model read last."""
    return [b for b in model.requests[-1].messages[-1].content if isinstance(b, ToolResultBlock)]


def pause(conversations: ConversationService, store: MemoryApprovalStore) -> RunPaused:
    thinker, _ = treasurer(conversations, store)
    with pytest.raises(RunPaused) as paused:
        asyncio.run(thinker.run("Pay acme.", conversation_id="conv", durable=True))
    return paused.value


@pytest.fixture
def conversations(tmp_path: Path) -> Any:
    """A durable conversations' file."""
    with ConversationService(tmp_path / "conversations.sqlite3") as service:
        yield service


def test_a_temporary_conversation_with_no_approver_keeps_refusing(
    conversations: ConversationService,
) -> None:
    """Nothing could resume a temporary run: the confirm call is refused, no RunPaused."""
    store = MemoryApprovalStore()
    thinker, model = treasurer(conversations, store)
    assert asyncio.run(thinker.run("Pay acme.")) == "Done."
    search_result, wire_result = results_read(model)
    assert not search_result.is_error
    assert wire_result.is_error
    assert "no approver is set here" in wire_result.content
    assert WIRED == []
    assert store.list() == []


def test_an_approver_that_defers_pauses_a_durable_run_and_is_refused_in_a_temporary_one(
    conversations: ConversationService,
) -> None:
    """Approval.defer() leaves the decision to a durable approval, where one can be kept."""
    store = MemoryApprovalStore()
    asked: list[ApprovalRequest] = []

    def defer(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval.defer()

    thinker, model = treasurer(conversations, store)
    thinker.approver = defer
    with pytest.raises(RunPaused) as paused:
        asyncio.run(thinker.run("Pay acme.", conversation_id="conv", durable=True))
    assert [a.tool for a in paused.value.approvals] == ["wire_money"]
    assert paused.value.conversation_id == "conv"
    assert asked[0].call_id == "w"

    other, model = treasurer(conversations, MemoryApprovalStore())
    other.approver = lambda request: "defer"
    assert asyncio.run(other.run("Pay acme.")) == "Done."
    assert "it was deferred" in results_read(model)[1].content
    assert WIRED == []


def test_a_paused_turn_keeps_the_tool_uses_and_the_results_of_the_calls_that_ran(
    conversations: ConversationService,
) -> None:
    """The low-risk call ran before the pause; its result waits, with no results message."""
    store = MemoryApprovalStore()
    paused = pause(conversations, store)
    (approval,) = paused.approvals
    assert approval.arguments == {"to": "acme", "amount": 120}
    assert approval.risk == "high"
    assert approval.status_at() == "pending"
    assert approval.thinker.endswith("Treasurer")
    context = conversations.open("conv", durable=True)
    assert [m.role for m in context.messages] == ["user", "assistant"]
    kept = context.metadata[PAUSED_TURN]
    assert [r["tool_use_id"] for r in kept["results"]["content"]] == ["s"]
    conversations.close(context)


def test_resume_runs_the_approved_call_once_even_when_resumed_twice(
    conversations: ConversationService,
) -> None:
    """Approved: runs once, then the run ends; a second resume finds nothing paused."""
    store = MemoryApprovalStore()
    (approval,) = pause(conversations, store).approvals
    store.approve(approval.id)
    thinker, model = treasurer(conversations, store)
    assert asyncio.run(thinker.resume("conv")) == "Done."
    assert WIRED == ["acme 120"]
    assert [(r.tool_use_id, r.is_error) for r in results_read(model)] == [
        ("s", False),
        ("w", False),
    ]
    with pytest.raises(NotPaused, match="no paused turn"):
        asyncio.run(treasurer(conversations, store)[0].resume("conv"))
    assert WIRED == ["acme 120"]


def test_a_claimed_approval_whose_result_was_lost_is_not_run_again(
    conversations: ConversationService,
) -> None:
    """An approval consumed by a resume that died is refused, never run a second time."""
    store = MemoryApprovalStore()
    (approval,) = pause(conversations, store).approvals
    store.approve(approval.id)
    assert store.claim(approval.id)  # a resume claimed it, then died before its result
    thinker, model = treasurer(conversations, store)
    assert asyncio.run(thinker.resume("conv")) == "Done."
    assert WIRED == []
    wire_result = results_read(model)[1]
    assert wire_result.is_error
    assert "it was not run again" in wire_result.content


def test_an_approval_cannot_authorise_different_arguments(
    conversations: ConversationService,
) -> None:
    """A paused call whose arguments changed after the approval is refused, not run."""
    store = MemoryApprovalStore()
    (approval,) = pause(conversations, store).approvals
    store.approve(approval.id)
    context = conversations.open("conv", durable=True)
    kept = dict(context.metadata[PAUSED_TURN])
    kept["calls"] = [
        {**call, "input": {"to": "mallory", "amount": 120_000}} if call["id"] == "w" else call
        for call in kept["calls"]
    ]
    context.set_metadata(PAUSED_TURN, kept)
    conversations.close(context)
    thinker, model = treasurer(conversations, store)
    assert asyncio.run(thinker.resume("conv")) == "Done."
    assert WIRED == []
    wire_result = results_read(model)[1]
    assert wire_result.is_error
    assert "the approval given was for other arguments" in wire_result.content
    assert "mallory" not in wire_result.content


def test_a_resume_with_a_pending_approval_stays_paused_and_runs_nothing(
    conversations: ConversationService,
) -> None:
    """Still pending: RunPaused again, nothing runs; decided later, the resume goes on."""
    store = MemoryApprovalStore()
    (approval,) = pause(conversations, store).approvals
    with pytest.raises(RunPaused) as again:
        asyncio.run(treasurer(conversations, store)[0].resume("conv"))
    assert [a.id for a in again.value.approvals] == [approval.id]
    assert WIRED == []
    store.reject(approval.id, "not this month")
    thinker, model = treasurer(conversations, store)
    assert asyncio.run(thinker.resume("conv")) == "Done."
    wire_result = results_read(model)[1]
    assert wire_result.is_error
    assert "not this month" in wire_result.content
    assert WIRED == []


def test_a_conversation_that_is_not_kept_cannot_be_resumed(
    conversations: ConversationService,
) -> None:
    """resume() of a conversation the store does not hold raises NotPaused, creating none.

    (One resumed already has no paused turn: see the resume-twice test.)
    """
    thinker, _ = treasurer(conversations, MemoryApprovalStore())
    with pytest.raises(NotPaused, match="no such conversation"):
        asyncio.run(thinker.resume("never"))
    assert not conversations.exists("never")  # resuming creates nothing
