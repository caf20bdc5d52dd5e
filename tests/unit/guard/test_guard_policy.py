"""Unit tests of `PermissionPolicy`'s defaults: declared risk becomes a decision; meta-tools run."""

from __future__ import annotations

from typing import Any

import pytest
from _guard_kit import DELETE, LOOKUP, UNDECLARED, WRITE, Auditor, Reviewer, StrictReviewer

from nucleo_core import ToolHub, ToolProvider, ToolSelector
from nucleo_core.conversations import ConversationService
from nucleo_core.guard import (
    DEFAULT_RISK_DECISIONS,
    Decision,
    GuardConfigError,
    PermissionPolicy,
    PermissionRule,
)
from nucleo_core.models import ModelCatalog, ThinkerDeclaration
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker

HUB = ToolHub()


def test_the_default_maps_low_medium_high_and_undeclared() -> None:
    """The default: low → auto, medium → notify, high → confirm; undeclared counts as high."""
    policy = PermissionPolicy()
    found = {p.name: policy.decide(None, p) for p in (LOOKUP, WRITE, DELETE, UNDECLARED)}
    assert {name: d.decision for name, d in found.items()} == {
        "lookup": Decision.AUTO,
        "write_note": Decision.NOTIFY,
        "delete_note": Decision.CONFIRM,
        "dispatch_agent": Decision.CONFIRM,
    }
    assert found["dispatch_agent"].decided_by == "default:risk=high"
    assert found["dispatch_agent"].reason == (
        "'dispatch_agent' declares no risk, so it counts as high risk; the policy's default "
        "for high risk is confirm"
    )
    assert found["lookup"].decided_by == "default:risk=low"
    assert dict(DEFAULT_RISK_DECISIONS) == {"low": "auto", "medium": "notify", "high": "confirm"}


def test_a_default_map_changes_only_the_levels_it_names() -> None:
    """default={"high": "deny"} denies high risk, keeps medium at notify, and says why."""
    policy = PermissionPolicy(default={"high": "deny"})
    assert policy.decide(None, WRITE).decision is Decision.NOTIFY
    denied = policy.decide(None, UNDECLARED, {"task": "rm -rf /"})
    assert denied.denied
    assert denied.reason == (
        "Calling 'dispatch_agent' is denied: it declares no risk, so it counts as high risk, "
        "and the policy's default denies tools of high risk; choose a lower-risk tool, or do "
        "the task without it."
    )


@pytest.mark.parametrize(
    ("default", "message"),
    [
        ({"extreme": "deny"}, 'unknown risk level; allowed: "low", "medium", "high"'),
        ({"high": "block"}, 'default.high must be one of "auto", "notify", "confirm", "deny"'),
        (["deny"], "must be a table of risk level to decision"),
    ],
)
def test_a_malformed_default_map_is_refused(default: Any, message: str) -> None:
    """A default map with an unknown level or decision raises, naming the key."""
    with pytest.raises(GuardConfigError, match=message):
        PermissionPolicy(default=default)


def test_a_policy_rejects_what_is_not_a_rule() -> None:
    """A dict in place of a PermissionRule is refused, by index."""
    with pytest.raises(GuardConfigError, match="rule 0 must be a PermissionRule, not dict"):
        PermissionPolicy([{"tool": "x", "decision": "deny"}])  # type: ignore[list-item]  # wrong on purpose


class Assistant(SingleObjectiveThinker[str, str]):
    """A thinker holding the builtin meta-tools: sub_thinker and request_tools."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([WRITE])


def meta_tools() -> dict[str, ToolProvider]:
    """The real sub_thinker and request_tools, as its builtin plugins build them."""
    thinker = Assistant(
        ThinkerDeclaration("standard", "short"),
        hub=HUB,
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(":memory:"),
        client=ScriptedModel([]),
    )
    return {provider.name: provider for provider in HUB.plugins.palette_providers(thinker)}


def test_meta_tools_and_sub_thinker_run_without_asking_by_default() -> None:
    """sub_thinker is declared high risk, yet runs auto: what it leads to is checked there."""
    tools = meta_tools()
    assert tools["sub_thinker"].risk == "high"
    policy = PermissionPolicy()
    for name in ("sub_thinker", "request_tools"):
        decided = policy.decide(None, tools[name])
        assert (decided.decision, decided.decided_by) == (Decision.AUTO, "default:meta-tool")


def test_a_rule_can_still_decide_a_meta_tool() -> None:
    """A rule naming sub_thinker overrides the meta-tool default."""
    policy = PermissionPolicy([PermissionRule(tool="sub_thinker", decision="confirm")])
    assert policy.decide(None, meta_tools()["sub_thinker"]).decision is Decision.CONFIRM


def test_decisions_kept_per_class_still_follow_the_class() -> None:
    """Deciding for one class first never hands its decision to another class."""
    policy = PermissionPolicy([PermissionRule(thinker=Reviewer, decision="deny")])
    auditor = Auditor(hub=HUB)
    assert policy.decide(auditor, LOOKUP).decision is Decision.AUTO
    assert policy.decide(StrictReviewer(hub=HUB), LOOKUP).decision is Decision.DENY
    assert policy.decide(auditor, LOOKUP).decision is Decision.AUTO
    assert policy.decide(Reviewer(hub=HUB), LOOKUP).decision is Decision.DENY


def test_with_rules_adds_rules_and_leaves_the_policy_unchanged() -> None:
    """with_rules returns a new policy; the first keeps deciding as before."""
    base = PermissionPolicy(default={"medium": "confirm"})
    tighter = base.with_rules(PermissionRule(tool="write_*", decision="deny"))
    assert base.decide(None, WRITE).decision is Decision.CONFIRM
    assert tighter.decide(None, WRITE).decision is Decision.DENY
    assert tighter.decide(None, DELETE).decision is Decision.CONFIRM
