"""The audit record of a thinker's run: every grant, refusal, decision, approval and call.

A hub given an `AuditLog` (``ToolHub(audit=...)``) writes each admission and, for every call,
its permission decision, its approval, its start and its finish, in the order they happen,
chained; a ``notify``- or ``confirm``-level call's start is stored before its tool runs. A hub
given none keeps a log in memory, and its `admission_record` is read back from the log.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from _loop_kit import Define, Ledger, Lookup, answer, call, calls, make
from pydantic import BaseModel

from nucleo_core import ThinkerBase, Tool, ToolHub, ToolSelector, tool
from nucleo_core.guard import PermissionPolicy
from nucleo_core.guard.approvals import Approval, ApprovalRequest
from nucleo_core.guard.audit import AuditLog, AuditRecord, MemoryAuditStore, SQLiteAuditStore
from nucleo_core.hub import REQUEST_TOOLS
from nucleo_core.models import ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

SECRET = "sk-live-planted-secret"


class KeyInput(BaseModel):
    key: str


#: The store the running test's log writes to, read by the tools while they run.
STORE: list[MemoryAuditStore] = []


@tool(name="purge", risk="high")
class Purge(Tool[KeyInput, str]):
    """Purge a record; it reads the audit store as it starts."""

    async def run(self, input: KeyInput) -> str:
        started = [r for r in STORE[0].read() if r.kind == "call_start" and r.tool == "purge"]
        return f"purged {input.key}; my start was on the record: {bool(started)}"


@tool(name="explode", read_only=True, risk="low")
def explode(key: str) -> str:
    """A tool that fails with a secret in its message."""
    raise RuntimeError(f"cannot connect with {SECRET}")


class Keeper(SingleObjectiveThinker[str, str]):
    """lookup (low), purge (high) and explode (low, failing); define in its catalog."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, Purge, explode]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define])


def run_audited(*steps: Any, approver: Any = None) -> tuple[list[AuditRecord], ScriptedModel]:
    """Run a Keeper through ``steps`` on an audited, guarded hub; return the records."""
    store = MemoryAuditStore()
    STORE[:] = [store]
    log = AuditLog(store)
    hub = ToolHub(guard=PermissionPolicy(), audit=log, approver=approver)
    model = ScriptedModel([*steps, answer("done")])
    thinker = make(Keeper, model, hub=hub)
    thinker.ledger = Ledger()
    asyncio.run(thinker.run("Keep."))
    log.flush()
    assert log.verify().ok
    records = list(store.read())
    log.close()
    return records, model


def of_call(records: list[AuditRecord], call_id: str) -> list[tuple[str, str | None]]:
    """The kinds of one call's records, in order, each with its decision or outcome."""
    return [
        (r.kind, r.outcome or r.decision)
        for r in records
        if r.call_id == call_id and r.kind != "approval_request"
    ]


def test_an_auto_call_is_decided_started_and_finished_on_the_record() -> None:
    """One call's life, in order: call_start (auto, and the rule), call_finish (ok)."""
    records, _ = run_audited(calls(call("lookup", {"key": "a"}, id="c1")))
    assert of_call(records, "c1") == [("call_start", "auto"), ("call_finish", "ok")]
    start = next(r for r in records if r.kind == "call_start")
    assert start.rule == "default:risk=low"
    finish = next(r for r in records if r.kind == "call_finish")
    assert finish.tool == "lookup"
    assert finish.source
    assert finish.requester is not None
    assert finish.requester.thinker_class.endswith("Keeper")
    assert finish.requester.conversation_id is not None


def test_a_confirm_call_records_its_approval_and_its_start_is_stored_before_it_runs() -> None:
    """The approval request and decision are tied by id; the start is committed first."""
    records, model = run_audited(
        calls(call("purge", {"key": "a"}, id="c1")), approver=lambda request: True
    )
    assert of_call(records, "c1") == [
        ("permission", "confirm"),
        ("approval_decision", "approved"),
        ("call_start", "confirm"),
        ("call_finish", "ok"),
    ]
    request = next(r for r in records if r.kind == "approval_request")
    decision = next(r for r in records if r.kind == "approval_decision")
    assert request.approval_id == decision.approval_id
    (result,) = [
        b for b in model.requests[1].messages[-1].content if isinstance(b, ToolResultBlock)
    ]
    assert result.content.endswith("my start was on the record: True")


def test_a_rejected_call_is_refused_on_the_record_with_the_reason() -> None:
    """A rejection: approval_decision (rejected), then call_finish (refused), no start."""

    def reject(request: ApprovalRequest) -> Approval:
        return Approval(False, "not today")

    records, _ = run_audited(calls(call("purge", {"key": "a"}, id="c1")), approver=reject)
    assert of_call(records, "c1") == [
        ("permission", "confirm"),
        ("approval_decision", "rejected"),
        ("call_finish", "refused"),
    ]
    assert "not today" in (records[-1].reason or "")


def test_a_call_refused_at_the_door_has_its_finish_on_the_record() -> None:
    """An unknown tool is refused before any decision: its finish says refused."""
    records, _ = run_audited(calls(call("nonexistent", {}, id="c1")))
    assert of_call(records, "c1") == [("call_finish", "refused")]


def test_a_failing_tool_keeps_its_secret_for_the_developer_only() -> None:
    """The exception is in the developer details; the model read only its type."""
    records, model = run_audited(calls(call("explode", {"key": "a"}, id="c1")))
    finish = next(r for r in records if r.kind == "call_finish" and r.call_id == "c1")
    assert finish.outcome == "tool_error"
    assert finish.developer is not None
    assert SECRET in finish.developer.message
    assert SECRET not in (finish.reason or "")
    sent = repr([m.content for request in model.requests for m in request.messages])
    assert SECRET not in sent


def test_grants_and_refusals_are_on_the_record_with_who_asked() -> None:
    """request_tools: a grant of define, a refusal of a name off the catalog."""
    records, _ = run_audited(calls(call(REQUEST_TOOLS, {"tools": ["define"]})))
    grants = [r for r in records if r.kind == "grant"]
    assert [r.tool for r in grants] == ["define"]
    assert grants[0].requester is not None
    assert grants[0].requester.thinker_class.endswith("Keeper")


def test_arguments_are_digested_not_kept() -> None:
    """A call's arguments reach the record as a digest only, by default."""
    records, _ = run_audited(calls(call("lookup", {"key": "private-value"}, id="c1")))
    mine = [r for r in records if r.call_id == "c1"]
    assert all(r.arguments_digest for r in mine)
    assert not any("private-value" in r.content for r in records)


# -- admission_record, a view of the log --------------------------------------------------------


class Asker(ThinkerBase):
    """A thinker whose catalog holds define only."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define])


def test_a_plain_hub_audits_to_memory_and_admission_record_reads_its_log() -> None:
    """ToolHub() keeps a memory log; admission_record is its grant, refusal and revocation."""
    hub = ToolHub()
    thinker = Asker(hub=hub)
    hub.admit_tool(thinker, "define")
    hub.admit_tool(thinker, "nope")
    hub.record_revocation(thinker, "define", "the task changed")
    assert isinstance(hub.audit.store, MemoryAuditStore)
    records = [r for r in hub.audit.read() if r.kind in ("grant", "refusal", "revocation")]
    assert [(r.kind, r.tool) for r in records] == [
        ("grant", "define"),
        ("refusal", "nope"),
        ("revocation", "define"),
    ]
    events = hub.admission_record
    assert [(e.name, e.granted, e.at) for e in events] == [
        ("define", True, records[0].at),
        ("nope", False, records[1].at),
        ("define", False, records[2].at),
    ]
    assert {(e.thinker_class, e.thinker, e.kind) for e in events} == {
        ("Asker", repr(thinker), "tool")
    }
    (revoked,) = events[2].outcomes
    assert revoked.guardrail == "revocation"
    assert revoked.verdict is not None
    assert revoked.verdict.reason == "the task changed"
    assert events[1].outcomes[0].guardrail == "catalog"
    assert hub.audit.verify().ok


def test_hubs_sharing_a_sqlite_log_each_see_their_own_admissions(tmp_path: Path) -> None:
    """Two hubs on one file: each admission_record holds its own; the file holds both."""
    path = tmp_path / "audit.sqlite3"
    first_log, second_log = AuditLog.open(path), AuditLog.open(path)
    first, second = ToolHub(audit=first_log), ToolHub(audit=second_log)
    first.admit_tool(Asker(hub=first), "define")
    second.admit_tool(Asker(hub=second), "nope")
    assert [(e.name, e.granted) for e in first.admission_record] == [("define", True)]
    assert [(e.name, e.granted) for e in second.admission_record] == [("nope", False)]
    first_log.close()
    second_log.close()
    reader = SQLiteAuditStore(path, create=False)
    assert sorted((r.kind, r.tool) for r in reader.read()) == [
        ("grant", "define"),
        ("refusal", "nope"),
    ]
    assert reader.verify().ok
    reader.close()
