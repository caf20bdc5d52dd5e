"""Unit tests of nucleo-guard-risk over the permission hook, from its source folder.

The plugin is imported from ``plugins/nucleo-guard-risk/src`` (never from what happens to be
installed) and registered on a real `PluginHost`, as its entry point would be.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _guard_kit import DELETE, LOOKUP, UNDECLARED, WRITE, Auditor, Reviewer

from nucleo_core import PluginHost, Risk, ToolHub
from nucleo_core.guard import Decision, PermissionGuard

SOURCE = Path(__file__).resolve().parents[3] / "plugins" / "nucleo-guard-risk" / "src"
HUB = ToolHub()


@pytest.fixture
def guard_risk(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(SOURCE))
    import nucleo_guard_risk

    return nucleo_guard_risk


def guard_with(plugin: object) -> PermissionGuard:
    host = PluginHost(environment={})
    host.register_plugin(plugin, name="guard-risk", distribution="nucleo-guard-risk")
    return PermissionGuard(host=host)


def test_a_call_above_the_limit_is_denied_at_every_call(guard_risk: Any) -> None:
    """Under max_risk medium high and undeclared tools are denied; lower ones keep the policy's."""
    plugin = guard_risk.RiskGuard(limit=guard_risk.RiskLimit(max_risk=Risk.MEDIUM))
    guard = guard_with(plugin)
    found = {p.name: guard.decide(Auditor(hub=HUB), p, {}) for p in (LOOKUP, WRITE, DELETE)}
    assert {name: d.decision for name, d in found.items()} == {
        "lookup": Decision.AUTO,
        "write_note": Decision.NOTIFY,
        "delete_note": Decision.DENY,
    }
    assert found["delete_note"].decided_by == "hook:guard-risk"
    assert guard.decide(None, UNDECLARED, {}).decision is Decision.DENY


def test_only_the_configured_thinker_classes_are_limited(guard_risk: Any) -> None:
    """A limit for *.Reviewer denies Reviewer's high-risk call and leaves Auditor's to confirm."""
    limit = guard_risk.RiskLimit(max_risk=Risk.LOW, thinkers=("*.Reviewer",))
    guard = guard_with(guard_risk.RiskGuard(limit=limit))
    assert guard.decide(Reviewer(hub=HUB), WRITE, {}).decision is Decision.DENY
    assert guard.decide(Auditor(hub=HUB), WRITE, {}).decision is Decision.NOTIFY


def test_a_malformed_configuration_denies_as_an_internal_error(
    guard_risk: Any, tmp_path: Path
) -> None:
    """max_risk = "extreme" makes every call's check fail, which denies, never runs."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.nucleo.guard-risk]\nmax_risk = "extreme"\n', encoding="utf-8"
    )
    decided = guard_with(guard_risk.RiskGuard(start=tmp_path)).decide(None, LOOKUP, {})
    assert (decided.decision, decided.decided_by) == (Decision.DENY, "hook:guard-risk")
    assert "GuardRiskConfigError" in decided.detail
    assert "max_risk must be one of" in decided.detail
