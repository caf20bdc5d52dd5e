"""Durable approvals through a thinker: pause, decide, resume, in one process.

The cross-process story (SIGKILL, the CLI deciding, a third process resuming) is in
tests/integration/test_approval_durability.py; these pin the rules one by one.
"""

from __future__ import annotations

import asyncio
import json
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


# -- a sub-thinker's approvals surface on the root run --------------------------------------

SUB_ANSWER = '{"answer": "%s", "reasoning": "paid what I could", "artifact_refs": []}'


def delegating_answer(request: ModelRequest) -> ModelResponse:
    """The root delegates and wires acme in one answer; the sub-thinker wires bob and eve.

    The sub-thinker then answers with what its results said, for the root to read.
    """
    last = request.messages[-1]
    results = [b for b in last.content if isinstance(b, ToolResultBlock)]
    if "sub-thinker" in (request.system or ""):
        if results:
            said = " | ".join(f"{r.tool_use_id}:{r.content}" for r in results)
            return ModelResponse(
                content=(TextBlock(text=SUB_ANSWER % said.replace('"', "'")),),
                stop_reason=StopReason.END_TURN,
            )
        uses = (
            ToolUseBlock(id="w", name="wire_money", input={"to": "bob", "amount": 50}),
            ToolUseBlock(id="w2", name="wire_money", input={"to": "eve", "amount": 7}),
        )
        return ModelResponse(content=uses, stop_reason=StopReason.TOOL_USE)
    if results:
        return ModelResponse(content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN)
    uses = (
        ToolUseBlock(id="d", name="sub_thinker", input={"objective": "Pay bob and eve."}),
        ToolUseBlock(id="w", name="wire_money", input={"to": "acme", "amount": 120}),
    )
    return ModelResponse(content=uses, stop_reason=StopReason.TOOL_USE)


def delegating_treasurer(
    conversations: ConversationService, store: MemoryApprovalStore
) -> tuple[Treasurer, ScriptedModel]:
    """A treasurer whose model delegates part of the payments (see `delegating_answer`)."""
    thinker, _ = treasurer(conversations, store)
    model = ScriptedModel(delegating_answer)
    thinker.client = model
    return thinker, model


def read_by(model: ScriptedModel, sub: bool) -> list[list[ToolResultBlock]]:
    """Every results message the root's (or the sub-thinker's) model read, in order."""
    return [
        [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
        for request in model.requests
        if ("sub-thinker" in (request.system or "")) is sub
        and any(isinstance(b, ToolResultBlock) for b in request.messages[-1].content)
    ]


def test_a_sub_thinker_s_approvals_pause_the_root_run_with_the_root_s_own(
    conversations: ConversationService,
) -> None:
    """The root's RunPaused lists the sub-thinker's approvals with its own, in call order."""
    store = MemoryApprovalStore()
    thinker, _ = delegating_treasurer(conversations, store)
    with pytest.raises(RunPaused) as paused:
        asyncio.run(thinker.run("Pay everyone.", conversation_id="conv", durable=True))
    bob, eve, acme = paused.value.approvals
    assert [a.arguments["to"] for a in (bob, eve, acme)] == ["bob", "eve", "acme"]
    assert {a.conversation_id for a in paused.value.approvals} == {"conv"}
    assert bob.thinker == eve.thinker == "nucleo_core.thinking.sub_thinker.SubThinker"
    assert acme.thinker.endswith("Treasurer")
    parents, asker = bob.requested_by.split(" > ")
    assert ".Treasurer#" in parents
    assert asker.startswith("nucleo_core.thinking.sub_thinker.SubThinker#")
    assert {r.id for r in store.list(status="pending")} == {bob.id, eve.id, acme.id}
    assert WIRED == []
    # The sub-thinker's conversation is kept, durable, with its own paused turn.
    root = conversations.open("conv", durable=True)
    kept = root.metadata[PAUSED_TURN]
    conversations.close(root)
    (child,) = [state["conversation"] for state in kept["delegations"].values()]
    sub = conversations.open(child, durable=True)
    assert [m.role for m in sub.messages] == ["user", "assistant"]
    assert [a["call_id"] for a in sub.metadata[PAUSED_TURN]["approvals"]] == ["w", "w2"]
    conversations.close(sub)


def test_resuming_the_root_continues_the_sub_thinker_whose_answer_goes_back_to_the_parent(
    conversations: ConversationService,
) -> None:
    """Approved calls run once inside the sub-thinker, a rejection reaches its model."""
    store = MemoryApprovalStore()
    thinker, _ = delegating_treasurer(conversations, store)
    with pytest.raises(RunPaused) as paused:
        asyncio.run(thinker.run("Pay everyone.", conversation_id="conv", durable=True))
    bob, eve, acme = paused.value.approvals
    root = conversations.open("conv", durable=True)
    (child,) = [s["conversation"] for s in root.metadata[PAUSED_TURN]["delegations"].values()]
    conversations.close(root)
    store.approve(bob.id)
    store.approve(acme.id)
    store.reject(eve.id, "unknown payee")

    resumed, model = delegating_treasurer(conversations, store)
    assert asyncio.run(resumed.resume("conv")) == "Done."
    assert sorted(WIRED) == ["acme 120", "bob 50"]
    (sub_read,) = read_by(model, sub=True)
    assert [(r.tool_use_id, r.is_error) for r in sub_read] == [("w", False), ("w2", True)]
    assert "unknown payee" in sub_read[1].content
    (root_read,) = read_by(model, sub=False)
    assert [(r.tool_use_id, r.is_error) for r in root_read] == [("d", False), ("w", False)]
    assert "w:wired 50 to bob" in root_read[0].content
    assert "unknown payee" in root_read[0].content
    assert not conversations.exists(child)  # kept only for the pause
    stored = conversations.open("conv", durable=True)
    assert [m.role for m in stored.messages] == ["user", "assistant", "user", "assistant"]
    assert PAUSED_TURN not in stored.metadata or stored.metadata[PAUSED_TURN] is None
    conversations.close(stored)

    with pytest.raises(NotPaused):
        asyncio.run(delegating_treasurer(conversations, store)[0].resume("conv"))
    assert sorted(WIRED) == ["acme 120", "bob 50"]


def test_a_resume_with_a_sub_thinker_s_approval_pending_runs_nothing(
    conversations: ConversationService,
) -> None:
    """One of the sub-thinker's approvals still pending: RunPaused again, nothing runs."""
    store = MemoryApprovalStore()
    thinker, _ = delegating_treasurer(conversations, store)
    with pytest.raises(RunPaused) as paused:
        asyncio.run(thinker.run("Pay everyone.", conversation_id="conv", durable=True))
    bob, eve, acme = paused.value.approvals
    store.approve(bob.id)
    store.approve(acme.id)
    with pytest.raises(RunPaused) as again:
        asyncio.run(delegating_treasurer(conversations, store)[0].resume("conv"))
    assert [a.id for a in again.value.approvals] == [eve.id]
    assert WIRED == []


def test_a_sub_thinker_launched_in_a_temporary_run_is_refused_as_before(
    conversations: ConversationService,
) -> None:
    """Nothing could resume a temporary root: the sub-thinker's confirm calls are refused."""
    store = MemoryApprovalStore()
    thinker, model = delegating_treasurer(conversations, store)
    assert asyncio.run(thinker.run("Pay everyone.")) == "Done."
    (sub_read,) = read_by(model, sub=True)
    assert all(r.is_error and "no approver is set here" in r.content for r in sub_read)
    assert WIRED == []
    assert store.list() == []


# -- grants made during a run survive its pause ----------------------------------------------


class Clerk(SingleObjectiveThinker[str, str]):
    """Starts with no tools; may ask for wire_money."""

    @classmethod
    def declare_compatible_tools(cls) -> Any:
        """wire_money, on request."""
        from nucleo_core import ToolSelector

        return ToolSelector.of([wire_money])


def granting_answer(request: ModelRequest) -> ModelResponse:
    """Ask for wire_money, then call it, then answer "Done."."""
    results = [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
    offered = {spec.name for spec in request.tools}
    if not results:
        use = ToolUseBlock(id="r", name="request_tools", input={"tools": ["wire_money"]})
    elif results[0].tool_use_id == "r" and "wire_money" in offered:
        use = ToolUseBlock(id="w", name="wire_money", input={"to": "acme", "amount": 120})
    else:
        return ModelResponse(content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN)
    return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)


def clerk(
    conversations: ConversationService, store: MemoryApprovalStore, hub: ToolHub | None = None
) -> tuple[Clerk, ScriptedModel]:
    """A clerk on its own (or the given) guarded hub."""
    model = ScriptedModel(granting_answer)
    thinker = Clerk(
        ThinkerDeclaration("standard", "short"),
        hub=hub or ToolHub(guard=PermissionPolicy()),
        client=model,
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        conversations=conversations,
    )
    thinker.approvals = store
    return thinker, model


def test_a_tool_granted_before_the_pause_runs_after_resume_in_a_new_thinker(
    conversations: ConversationService,
) -> None:
    """The grant is kept with the paused turn and admitted again on resume: the call runs."""
    store = MemoryApprovalStore()
    first, _ = clerk(conversations, store)
    with pytest.raises(RunPaused) as paused:
        asyncio.run(first.run("Pay acme.", conversation_id="conv", durable=True))
    (approval,) = paused.value.approvals
    store.approve(approval.id)
    hub = ToolHub(guard=PermissionPolicy())
    resumed, model = clerk(conversations, store, hub)
    assert asyncio.run(resumed.resume("conv")) == "Done."
    assert WIRED == ["acme 120"]
    assert [(r.tool_use_id, r.is_error) for r in results_read(model)] == [("w", False)]
    (admission,) = [e for e in hub.admission_record if e.name == "wire_money"]
    assert admission.granted  # admitted again, through the door, on the record


def test_a_grant_the_rules_no_longer_admit_is_refused_on_resume_and_its_call_does_not_run(
    conversations: ConversationService,
) -> None:
    """Fail closed: a rule added since the pause refuses the grant; the approved call is refused."""
    from _hub_kit import Rule

    store = MemoryApprovalStore()
    first, _ = clerk(conversations, store)
    with pytest.raises(RunPaused) as paused:
        asyncio.run(first.run("Pay acme.", conversation_id="conv", durable=True))
    store.approve(paused.value.approvals[0].id)
    hub = ToolHub(guard=PermissionPolicy())
    hub.register_admission(Clerk, "wire_money", Rule.refuse("no wires this quarter"))
    resumed, model = clerk(conversations, store, hub)
    assert asyncio.run(resumed.resume("conv")) == "Done."
    assert WIRED == []
    (wire_result,) = results_read(model)
    assert wire_result.is_error
    (admission,) = [e for e in hub.admission_record if e.name == "wire_money"]
    assert not admission.granted
    assert admission.reason == "no wires this quarter"
    assert store.get(paused.value.approvals[0].id).status == "approved"  # never claimed


def stepwise_answer(request: ModelRequest) -> ModelResponse:
    """The root delegates; its sub-thinker wires bob, then (once told) eve, then reports."""
    results = [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
    if "sub-thinker" not in (request.system or ""):
        if results:
            text = "Done." if not results[0].is_error else "Failed."
            return ModelResponse(content=(TextBlock(text=text),), stop_reason=StopReason.END_TURN)
        use = ToolUseBlock(id="d", name="sub_thinker", input={"objective": "Pay bob, then eve."})
        return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)
    told = [
        b.tool_use_id for m in request.messages for b in m.content if isinstance(b, ToolResultBlock)
    ]
    if not told:
        use = ToolUseBlock(id="w1", name="wire_money", input={"to": "bob", "amount": 50})
    elif told == ["w1"]:
        use = ToolUseBlock(id="w2", name="wire_money", input={"to": "eve", "amount": 7})
    else:
        return ModelResponse(
            content=(TextBlock(text=SUB_ANSWER % "paid bob and eve"),),
            stop_reason=StopReason.END_TURN,
        )
    return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)


def test_a_sub_thinker_that_pauses_again_after_resume_pauses_the_root_again(
    conversations: ConversationService,
) -> None:
    """Resumed, the sub-thinker's next confirm call pauses the root again; the third run ends."""
    store = MemoryApprovalStore()

    def stepwise() -> Treasurer:
        thinker, _ = treasurer(conversations, store)
        thinker.client = ScriptedModel(stepwise_answer)
        return thinker

    with pytest.raises(RunPaused) as first:
        asyncio.run(stepwise().run("Pay.", conversation_id="conv", durable=True))
    (bob,) = first.value.approvals
    store.approve(bob.id)
    with pytest.raises(RunPaused) as second:
        asyncio.run(stepwise().resume("conv"))
    (eve,) = second.value.approvals
    assert (eve.arguments["to"], eve.conversation_id) == ("eve", "conv")
    assert WIRED == ["bob 50"]
    store.approve(eve.id)
    last = stepwise()
    assert asyncio.run(last.resume("conv")) == "Done."
    assert WIRED == ["bob 50", "eve 7"]  # each once
    stored = conversations.open("conv", durable=True)
    assert [m.role for m in stored.messages] == ["user", "assistant", "user", "assistant"]
    (result,) = [b for b in stored.messages[2].content if isinstance(b, ToolResultBlock)]
    assert (result.tool_use_id, result.is_error) == ("d", False)
    conversations.close(stored)
    assert conversations.list_ids() == ["conv"]


def delegated_grant_answer(request: ModelRequest) -> ModelResponse:
    """The root delegates; its sub-thinker asks for wire_money, then calls it, then reports."""
    results = [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
    if "sub-thinker" not in (request.system or ""):
        if results:
            return ModelResponse(
                content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN
            )
        use = ToolUseBlock(id="d", name="sub_thinker", input={"objective": "Pay acme."})
        return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)
    if not results:
        use = ToolUseBlock(id="r", name="request_tools", input={"tools": ["wire_money"]})
    elif results[0].tool_use_id == "r":
        use = ToolUseBlock(id="w", name="wire_money", input={"to": "acme", "amount": 120})
    else:
        return ModelResponse(
            content=(TextBlock(text=SUB_ANSWER % results[0].content),),
            stop_reason=StopReason.END_TURN,
        )
    return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)


def test_a_tool_a_sub_thinker_was_granted_before_the_pause_runs_inside_it_after_resume(
    conversations: ConversationService,
) -> None:
    """The sub-thinker's own grant is kept with its paused turn and admitted again on resume."""
    store = MemoryApprovalStore()

    def delegating_clerk(hub: ToolHub | None = None) -> Clerk:
        thinker, _ = clerk(conversations, store, hub)
        thinker.client = ScriptedModel(delegated_grant_answer)
        return thinker

    with pytest.raises(RunPaused) as paused:
        asyncio.run(delegating_clerk().run("Pay.", conversation_id="conv", durable=True))
    (approval,) = paused.value.approvals
    assert approval.thinker == "nucleo_core.thinking.sub_thinker.SubThinker"
    store.approve(approval.id)
    hub = ToolHub(guard=PermissionPolicy())
    assert asyncio.run(delegating_clerk(hub).resume("conv")) == "Done."
    assert WIRED == ["acme 120"]
    regranted = [e for e in hub.admission_record if e.name == "wire_money"]
    assert [(e.thinker_class, e.granted) for e in regranted] == [("SubThinker", True)]


def only_delegating_answer(request: ModelRequest) -> ModelResponse:
    """The root only delegates; its sub-thinker wires bob, then reports."""
    results = [b for b in request.messages[-1].content if isinstance(b, ToolResultBlock)]
    if "sub-thinker" in (request.system or ""):
        if results:
            return ModelResponse(
                content=(TextBlock(text=SUB_ANSWER % results[0].content),),
                stop_reason=StopReason.END_TURN,
            )
        use = ToolUseBlock(id="w", name="wire_money", input={"to": "bob", "amount": 50})
    elif results:
        return ModelResponse(content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN)
    else:
        use = ToolUseBlock(id="d", name="sub_thinker", input={"objective": "Pay bob."})
    return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)


def test_nucleo_resume_resumes_the_root_class_when_only_a_sub_thinker_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`nucleo resume` builds the root's class, kept with the paused turn, not SubThinker."""
    from click.testing import CliRunner

    from nucleo_core.cli.app import nucleo
    from nucleo_core.guard.approval_store import SQLiteApprovalStore
    from nucleo_core.testing import override_client

    path = tmp_path / "conversations.sqlite3"
    monkeypatch.setenv("NUCLEO_CONVERSATIONS", str(path))
    monkeypatch.setenv("NUCLEO_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("NUCLEO_APPROVALS", raising=False)
    monkeypatch.chdir(tmp_path)
    store = SQLiteApprovalStore(tmp_path / "approvals.sqlite3")
    with ConversationService(path) as service:
        thinker, _ = treasurer(service, MemoryApprovalStore())
        thinker.approvals = store
        thinker.client = ScriptedModel(only_delegating_answer)
        with pytest.raises(RunPaused) as paused:
            asyncio.run(thinker.run("Pay bob.", conversation_id="conv", durable=True))
    (approval,) = paused.value.approvals
    assert approval.thinker == "nucleo_core.thinking.sub_thinker.SubThinker"
    store.approve(approval.id)
    store.close()

    model = ScriptedModel(only_delegating_answer)
    with override_client(model):
        result = CliRunner().invoke(
            nucleo, ["resume", "conv", "--model", "anthropic:any", "--json"], env={"NO_COLOR": "1"}
        )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["thinker"] == f"{Treasurer.__module__}.Treasurer"
    assert printed["answer"] == "Done."
    assert WIRED == ["bob 50"]
