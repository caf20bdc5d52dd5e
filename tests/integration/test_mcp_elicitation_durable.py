"""An MCP server's elicitation in a durable run with no answerer: pending, decided, answered.

The SDK-written ``_mcp_servers/full_client_server.py`` runs as a real stdio subprocess; its
``sign_up`` tool asks the client for a name and a number of seats (elicitation) and, with
``$FULL_SIGN_UPS`` set, appends each outcome its body produced to that file. A thinker on a
scripted model calls it in a durable conversation with no elicitation answerer: the server is
told ``cancel``, the run pauses with an approval of kind ``elicitation``; the installed
``nucleo approvals`` decides it; a second thinker instance resumes the run.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _mcp_harness import (
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    stdio,
)

from nucleo_core import ModelCatalog, ThinkerDeclaration, ToolHub
from nucleo_core.conversations import ConversationService
from nucleo_core.errors import RunPaused
from nucleo_core.guard.approval_store import ApprovalRecord, SQLiteApprovalStore
from nucleo_core.guard.audit import AuditLog
from nucleo_core.mcp import MCPServers, ScriptedAnswerer
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel, text_response, tool_use_response
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

NUCLEO = Path(sys.executable).with_name("nucleo")
MESSAGE = "How many seats, and in whose name?"


class Clerk(SingleObjectiveThinker[str, str]):
    """A thinker that sees the server's tools as system-wide tools."""


def results(request: ModelRequest) -> list[ToolResultBlock]:
    """Every tool result the request carries, in order."""
    return [
        block
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def script(seen: list[list[ToolResultBlock]]) -> ScriptedModel:
    """Call ``sign_up`` once; answer with its result (each request's results kept in ``seen``)."""

    def answer(request: ModelRequest) -> ModelResponse:
        done = results(request)
        seen.append(done)
        if not done:
            return tool_use_response(("sign_up", {}))
        return text_response(done[-1].content)

    return ScriptedModel(answer)


def clerk(folder: Path, hub: ToolHub, seen: list[list[ToolResultBlock]]) -> Clerk:
    """A thinker over ``folder``'s conversations and approvals (a fresh one per process)."""
    thinker = Clerk(
        ThinkerDeclaration("standard", "short"),
        hub=hub,
        client=script(seen),
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        conversations=ConversationService(folder / "conversations.sqlite3"),
    )
    thinker.approvals = SQLiteApprovalStore(folder / "approvals.sqlite3")
    return thinker


def nucleo(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``nucleo ARGS``, reading the approvals next to FOLDER's conversations."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUCLEO_")}
    environment.update(
        {"NUCLEO_CONVERSATIONS": str(folder / "conversations.sqlite3"), "NO_COLOR": "1"}
    )
    return subprocess.run(
        [str(NUCLEO), *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def sign_ups(folder: Path) -> list[dict[str, Any]]:
    """What each run of the tool's body produced, in order."""
    path = folder / "sign_ups.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def audited(folder: Path) -> list[tuple[str, str | None, str | None]]:
    """The approval records of the audit log: kind, approval id, outcome."""
    audit = AuditLog.open(folder / "audit.sqlite3")
    try:
        return [
            (e.kind, e.approval_id, e.outcome)
            for e in audit.read()
            if e.kind in ("approval_request", "approval_decision")
        ]
    finally:
        audit.close()


def pause(folder: Path, protocol: str = "auto") -> ApprovalRecord:
    """Run until the elicitation pauses the run; its one pending approval."""
    audit = AuditLog.open(folder / "audit.sqlite3")
    hub = ToolHub(audit=audit)
    server = stdio(
        "full",
        "full_client_server.py",
        env={"FULL_SIGN_UPS": str(folder / "sign_ups.jsonl")},
        risk="low",
        protocol=protocol,
    )
    with MCPServers([server]).connect_to_hub(hub):
        thinker = clerk(folder, hub, [])
        with pytest.raises(RunPaused) as paused:
            asyncio.run(thinker.run("Sign me up.", conversation_id="conv", durable=True))
    audit.flush()
    audit.close()
    (record,) = paused.value.approvals
    return record


def resume(
    folder: Path,
    seen: list[list[ToolResultBlock]],
    protocol: str = "auto",
    answerer: ScriptedAnswerer | None = None,
) -> str:
    """Resume the run with a fresh hub and thinker; its answer."""
    audit = AuditLog.open(folder / "audit.sqlite3")
    hub = ToolHub(audit=audit)
    server = stdio(
        "full",
        "full_client_server.py",
        env={"FULL_SIGN_UPS": str(folder / "sign_ups.jsonl")},
        risk="low",
        protocol=protocol,
    )
    with MCPServers([server], elicitation=answerer).connect_to_hub(hub):
        answer = asyncio.run(clerk(folder, hub, seen).resume("conv"))
    audit.flush()
    audit.close()
    return answer


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_pending_elicitation_is_answered_with_the_approved_content_on_resume(
    tmp_path: Path, protocol: str
) -> None:
    """Pause names the request; approve --content (checked) answers it once when resumed."""
    record = pause(tmp_path, protocol)
    assert (record.kind, record.tool, record.status) == ("elicitation", "sign_up", "pending")
    assert record.elicitation["server"] == "full"
    assert record.elicitation["message"] == MESSAGE
    assert set(record.elicitation["schema"]["properties"]) == {"name", "seats"}
    assert sign_ups(tmp_path) == [{"action": "cancel", "data": None}]  # the server was told

    shown = nucleo(tmp_path, "approvals")
    assert shown.returncode == 0, shown.stderr
    assert json.dumps(MESSAGE) in shown.stdout
    assert "--content JSON" in shown.stdout
    wrong = nucleo(tmp_path, "approvals", "approve", record.id, "--content", '{"seats": 99}')
    assert wrong.returncode != 0
    assert "name: required" in wrong.stderr
    assert "seats: must be <= 10" in wrong.stderr
    assert "99" not in wrong.stderr.replace(record.id, "")
    bad = nucleo(tmp_path, "approvals", "approve", record.id, "--content", "{not json")
    assert bad.returncode != 0
    assert "--content is not JSON" in bad.stderr
    good = '{"name": "Ada", "seats": 2}'
    approved = nucleo(tmp_path, "approvals", "approve", record.id, "--content", good)
    assert approved.returncode == 0, approved.stderr

    seen: list[list[ToolResultBlock]] = []
    answer = resume(tmp_path, seen, protocol)
    assert json.loads(answer) == {"action": "accept", "data": {"name": "Ada", "seats": 2}}
    assert sign_ups(tmp_path)[1:] == [{"action": "accept", "data": {"name": "Ada", "seats": 2}}]
    store = SQLiteApprovalStore(tmp_path / "approvals.sqlite3")
    try:
        assert store.get(record.id).status == "consumed"  # type: ignore[union-attr]
    finally:
        store.close()
    assert [e for e in audited(tmp_path) if e[1] == record.id] == [
        ("approval_request", record.id, None),
        ("approval_decision", record.id, "approved"),
    ]


def test_a_rejected_elicitation_refuses_the_call_with_the_reason(tmp_path: Path) -> None:
    """The resumed call is not made again; the model reads a correctable refusal."""
    record = pause(tmp_path)
    rejected = nucleo(
        tmp_path, "approvals", "reject", record.id, "--reason", "no seats this quarter"
    )
    assert rejected.returncode == 0, rejected.stderr
    seen: list[list[ToolResultBlock]] = []
    answer = resume(tmp_path, seen)
    (refusal,) = seen[-1]
    assert refusal.is_error
    assert refusal.content == answer
    assert "no seats this quarter" in refusal.content
    assert "Choose another tool" in refusal.content
    assert MESSAGE not in refusal.content  # the server's text never reaches the model
    assert sign_ups(tmp_path) == [{"action": "cancel", "data": None}]  # not made again
    assert ("approval_decision", record.id, "rejected") in audited(tmp_path)


def test_a_decision_answers_the_resumed_call_before_an_inline_answerer_is_asked(
    tmp_path: Path,
) -> None:
    """Resumed where an answerer is configured (an interactive resume): it is not asked again."""
    record = pause(tmp_path)
    store = SQLiteApprovalStore(tmp_path / "approvals.sqlite3")
    try:
        store.approve(record.id, by="ops", content={"name": "Bo", "seats": 1})
    finally:
        store.close()
    answerer = ScriptedAnswerer()  # would decline
    answer = resume(tmp_path, [], answerer=answerer)
    assert json.loads(answer) == {"action": "accept", "data": {"name": "Bo", "seats": 1}}
    assert answerer.requests == []
