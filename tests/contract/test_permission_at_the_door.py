"""The permission guard at the call door: declared risk becomes a decision at every call.

Every hub has a guard (the default policy's unless given another; ``guard=False`` has none)
and asks it after the door's availability, read-only and input checks: ``auto`` and
``notify`` run, ``deny`` is a correctable refusal, ``confirm`` runs only once the thinker's
approver (or its delegator's, or the hub's) approved it; with no approver, or an approver that
fails, the call is refused.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _loop_kit import (
    Archive,
    Define,
    Ledger,
    Lookup,
    Shred,
    WriteRecord,
    answer,
    call,
    calls,
    make,
)

from nucleo_core import ToolHub, ToolSelector, hookimpl, tool
from nucleo_core.guard import PermissionPolicy, PermissionRule
from nucleo_core.guard.approvals import Approval, ApprovalRequest
from nucleo_core.hub import REQUEST_TOOLS
from nucleo_core.models import ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


class Clerk(SingleObjectiveThinker[str, str]):
    """Defaults of every risk: lookup (low), write_record (medium), archive (high)."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord, Archive]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Shred])


def results(model: ScriptedModel, index: int) -> list[ToolResultBlock]:
    """The tool results request ``index`` carried last."""
    return [b for b in model.requests[index].messages[-1].content if isinstance(b, ToolResultBlock)]


def run_with(
    hub: ToolHub, *steps: ModelResponse, approver: Any = None
) -> tuple[Any, ScriptedModel]:
    """Run a Clerk on ``hub`` through ``steps`` then a final answer; return it and its model."""
    model = ScriptedModel([*steps, answer("done")])
    thinker = make(Clerk, model, hub=hub)
    thinker.ledger = Ledger()
    thinker.approver = approver
    asyncio.run(thinker.run("Work."))
    return thinker, model


def guarded(*rules: PermissionRule, approver: Any = None) -> ToolHub:
    return ToolHub(guard=PermissionPolicy(rules=rules), approver=approver)


def test_the_default_hub_guards_every_call_with_the_default_policy() -> None:
    """ToolHub() decides from declared risk: a high-risk call with nobody to approve is refused."""
    thinker, model = run_with(ToolHub(), calls(call("archive", {"key": "a"})))
    (refusal,) = results(model, 1)
    assert "needs an approval" in refusal.content
    assert thinker.ledger.names() == []


def test_a_hub_built_without_a_guard_asks_no_permission() -> None:
    """ToolHub(guard=False): the door's first three steps only, as code that decides itself."""
    thinker, _ = run_with(ToolHub(guard=False), calls(call("archive", {"key": "a"})))
    assert thinker.ledger.names() == ["archive"]


def test_low_and_medium_risk_run_without_asking_anyone() -> None:
    """Low (auto) and medium (notify) risk run; no approver is needed or asked."""
    asked: list[ApprovalRequest] = []
    thinker, model = run_with(
        guarded(),
        calls(call("lookup", {"key": "a"}), call("write_record", {"key": "b"})),
        approver=lambda request: asked.append(request) or True,
    )
    assert thinker.ledger.names() == ["lookup", "write_record"]
    assert asked == []
    assert not any(result.is_error for result in results(model, 1))


def test_a_high_risk_call_with_no_approver_is_refused_and_never_runs() -> None:
    """A confirm with nobody to approve fails closed, with a reason the model can act on."""
    thinker, model = run_with(guarded(), calls(call("archive", {"key": "a"})))
    (refusal,) = results(model, 1)
    assert refusal.is_error
    assert "needs an approval" in refusal.content
    assert thinker.ledger.names() == []


def test_an_approved_call_runs_and_the_approver_sees_what_it_approves() -> None:
    """The approver is shown the tool, its risk and source, and the arguments."""
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval(True)

    thinker, _ = run_with(guarded(), calls(call("archive", {"key": "k-1"})), approver=approve)
    assert thinker.ledger.names() == ["archive"]
    (request,) = asked
    assert request.tool == "archive"
    assert request.risk == "high"
    assert request.source.startswith("native:")
    assert dict(request.arguments) == {"key": "k-1"}
    assert request.decided_by == "default:risk=high"


def test_a_rejected_call_is_refused_with_the_approvers_reason() -> None:
    """An async approver that rejects: the model reads its reason; the tool never runs."""

    async def reject(request: ApprovalRequest) -> Approval:
        await asyncio.sleep(0)
        return Approval(False, "archiving is frozen this week")

    thinker, model = run_with(guarded(), calls(call("archive", {"key": "a"})), approver=reject)
    (refusal,) = results(model, 1)
    assert refusal.is_error
    assert "archiving is frozen this week" in refusal.content
    assert thinker.ledger.names() == []


def test_an_approver_that_crashes_or_answers_nonsense_rejects() -> None:
    """An approver's failure never approves: raising, or answering 'yes', is a rejection."""

    def crash(request: ApprovalRequest) -> bool:
        raise RuntimeError("secret-token-123")

    for approver in (crash, lambda request: "yes"):
        thinker, model = run_with(
            guarded(), calls(call("archive", {"key": "a"})), approver=approver
        )
        (refusal,) = results(model, 1)
        assert refusal.is_error
        assert "internal error" in refusal.content
        assert "secret-token-123" not in refusal.content
        assert thinker.ledger.names() == []


def test_the_hubs_approver_approves_for_thinkers_without_their_own() -> None:
    """ToolHub(approver=...) covers every thinker on the hub that sets none."""
    thinker, _ = run_with(
        guarded(approver=lambda request: True), calls(call("archive", {"key": "a"}))
    )
    assert thinker.ledger.names() == ["archive"]


def test_a_deny_rule_refuses_with_its_reason_and_the_call_never_runs() -> None:
    """A deny is a correctable refusal naming the policy's reason, even for a low-risk tool."""
    rule = PermissionRule(tool="look*", decision="deny", reason="the glossary is offline")
    thinker, model = run_with(
        guarded(rule), calls(call("lookup", {"key": "a"})), approver=lambda r: True
    )
    (refusal,) = results(model, 1)
    assert refusal.is_error
    assert "lookup" in refusal.content
    assert thinker.ledger.names() == []


def test_a_rule_can_let_a_high_risk_tool_run_without_approval() -> None:
    """A rule decides over the default map: archive is auto for this thinker class."""
    rule = PermissionRule(thinker=Clerk, tool="archive", decision="auto")
    thinker, _ = run_with(guarded(rule), calls(call("archive", {"key": "a"})))
    assert thinker.ledger.names() == ["archive"]


def test_granted_and_system_wide_and_added_tools_pass_the_policy_too() -> None:
    """Every origin is decided: a granted, a system-wide and an added high-risk tool."""
    hub = guarded()

    @tool(name="burn", risk="high")
    def burn(key: str) -> str:
        """Burn a record (added to the thinker in code)."""
        return key

    hub.register_system_wide_tool(Shred)
    model = ScriptedModel(
        [
            calls(call(REQUEST_TOOLS, {"tools": ["define"]})),
            calls(call("shred", {"key": "a"}), call("define", {"key": "b"})),
            calls(call("burn", {"key": "c"})),
            answer("done"),
        ]
    )
    thinker = make(Clerk, model, hub=hub)
    thinker.ledger = Ledger()
    thinker.add_tool(burn)
    asyncio.run(thinker.run("Work."))

    shred, define = results(model, 2)
    assert shred.is_error
    assert "needs an approval" in shred.content
    assert not define.is_error  # low risk, granted: auto
    (burned,) = results(model, 3)
    assert burned.is_error
    assert "needs an approval" in burned.content
    assert thinker.ledger.names() == ["define"]


class _Veto:
    """A permission hook that denies one tool."""

    @hookimpl
    def nucleo_permission(self, thinker: Any, provider: Any, arguments: Any) -> str | None:
        return "deny" if provider.name == "write_record" else None


class _Broken:
    """A permission hook that crashes."""

    @hookimpl
    def nucleo_permission(self, thinker: Any, provider: Any, arguments: Any) -> str | None:
        raise RuntimeError("boom")


def test_a_permission_hook_tightens_the_policy_at_the_call() -> None:
    """A plugin's deny holds over the policy's notify; other tools are untouched."""
    hub = guarded()
    hub.register_plugin(_Veto(), name="veto")
    thinker, model = run_with(
        hub, calls(call("write_record", {"key": "a"}), call("lookup", {"key": "b"}))
    )
    refused, ran = results(model, 1)
    assert refused.is_error
    assert not ran.is_error
    assert thinker.ledger.names() == ["lookup"]


def test_a_crashing_permission_hook_denies() -> None:
    """A hook that raises counts as deny: even a low-risk tool does not run."""
    hub = guarded()
    hub.register_plugin(_Broken(), name="broken")
    thinker, model = run_with(hub, calls(call("lookup", {"key": "a"})))
    (refusal,) = results(model, 1)
    assert refusal.is_error
    assert "internal error" in refusal.content
    assert "boom" not in refusal.content
    assert thinker.ledger.names() == []


class _Reads:
    """A permission hook that reads the arguments it is given, and tries to change them."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any], int]] = []
        self.changed: list[bool] = []

    @hookimpl
    def nucleo_permission(self, thinker: Any, provider: Any, arguments: Any) -> str | None:
        self.seen.append((provider.name, dict(arguments), len(arguments)))
        try:
            arguments["key"] = "changed"
        except TypeError:
            self.changed.append(False)
        else:
            self.changed.append(True)
        return None


def test_a_permission_hook_reads_the_validated_input_read_only() -> None:
    """The door hands the hooks each call's validated input as a read-only mapping."""
    hub = guarded()
    reads = _Reads()
    hub.register_plugin(reads, name="reads")
    thinker, model = run_with(
        hub, calls(call("lookup", {"key": "a"}), call("write_record", {"key": "b"}))
    )
    assert reads.seen == [("lookup", {"key": "a"}, 1), ("write_record", {"key": "b"}, 1)]
    assert reads.changed == [False, False]
    looked_up, wrote = results(model, 1)
    assert looked_up.content == "a means 42"  # the tool ran on the input as sent
    assert wrote.content == "wrote b"
    assert thinker.ledger.names() == ["lookup", "write_record"]


def test_a_refused_tool_is_never_asked_about() -> None:
    """The guard decides only what passed the first steps: an unknown name asks no approver."""
    asked: list[ApprovalRequest] = []
    thinker, model = run_with(
        guarded(),
        calls(call("shred", {"key": "a"})),  # not in this thinker's palette
        approver=lambda request: asked.append(request) or True,
    )
    (refusal,) = results(model, 1)
    assert refusal.content.startswith("No such tool is available.")
    assert asked == []
    assert thinker.ledger.names() == []
