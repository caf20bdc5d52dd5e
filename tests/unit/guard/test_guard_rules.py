"""Unit tests of `PermissionRule` in a `PermissionPolicy`: what matches, and which rule decides."""

from __future__ import annotations

import pytest
from _guard_kit import DELETE, LOOKUP, UNDECLARED, WRITE, Auditor, Reviewer, StrictReviewer

from nucleo_core import MisuseError, ToolHub
from nucleo_core.guard import GuardConfigError, PermissionPolicy, PermissionRule

HUB = ToolHub()
REVIEWER, STRICT, AUDITOR = Reviewer(hub=HUB), StrictReviewer(hub=HUB), Auditor(hub=HUB)


def decided(policy: PermissionPolicy, thinker: object, provider: object) -> tuple[str, str]:
    found = policy.decide(thinker, provider)  # type: ignore[arg-type]  # kit providers
    return found.decision.value, found.decided_by


def test_a_rule_naming_a_class_covers_its_subclasses_and_nothing_else() -> None:
    """A class rule decides for the class and subclasses; an unrelated class keeps the default."""
    policy = PermissionPolicy([PermissionRule(thinker=Reviewer, decision="deny")])
    assert decided(policy, REVIEWER, LOOKUP) == ("deny", "rule:0")
    assert decided(policy, STRICT, LOOKUP) == ("deny", "rule:0")
    assert decided(policy, AUDITOR, LOOKUP) == ("auto", "default:risk=low")
    assert decided(policy, None, LOOKUP) == ("auto", "default:risk=low")


@pytest.mark.parametrize(
    "named",
    [f"{Reviewer.__module__}:Reviewer", f"{Reviewer.__module__}.Reviewer", "*guard_kit*:Review*"],
)
def test_a_rule_names_a_class_by_its_qualified_name_or_a_glob(named: str) -> None:
    """Names ("module:Class", "module.Class") and globs match the class and its subclasses."""
    policy = PermissionPolicy([PermissionRule(thinker=named, decision="confirm")])
    assert decided(policy, REVIEWER, LOOKUP)[0] == "confirm"
    assert decided(policy, STRICT, LOOKUP)[0] == "confirm"
    assert decided(policy, AUDITOR, LOOKUP)[0] == "auto"


def test_a_rule_matches_tool_names_by_glob_case_sensitively() -> None:
    """tool="delete_*" decides delete_note, not lookup, and not a differently cased name."""
    policy = PermissionPolicy([PermissionRule(tool="delete_*", decision="deny")])
    assert decided(policy, AUDITOR, DELETE) == ("deny", "rule:0")
    assert decided(policy, AUDITOR, LOOKUP) == ("auto", "default:risk=low")
    upper = PermissionPolicy([PermissionRule(tool="DELETE_*", decision="deny")])
    assert decided(upper, AUDITOR, DELETE) == ("confirm", "default:risk=high")


def test_a_rule_matches_source_ids_by_glob() -> None:
    """source="native:*" covers the process's own tools; "mcp:*" does not."""
    native = PermissionPolicy([PermissionRule(source="native:*", decision="notify")])
    assert decided(native, AUDITOR, LOOKUP) == ("notify", "rule:0")
    remote = PermissionPolicy([PermissionRule(source="mcp:*", decision="deny")])
    assert decided(remote, AUDITOR, LOOKUP) == ("auto", "default:risk=low")


def test_a_rule_by_risk_high_covers_undeclared_risk() -> None:
    """risk="high" matches a tool declaring high and one declaring nothing, not medium."""
    policy = PermissionPolicy([PermissionRule(risk="high", decision="deny", name="no-high")])  # type: ignore[arg-type]  # a name, accepted
    assert decided(policy, AUDITOR, DELETE) == ("deny", "rule:no-high")
    assert decided(policy, AUDITOR, UNDECLARED) == ("deny", "rule:no-high")
    assert decided(policy, AUDITOR, WRITE) == ("notify", "default:risk=medium")


def test_every_criterion_of_a_rule_must_match() -> None:
    """A rule naming a class and a tool decides only that tool for that class."""
    policy = PermissionPolicy([PermissionRule(thinker=Reviewer, tool="lookup", decision="deny")])
    assert decided(policy, REVIEWER, LOOKUP)[0] == "deny"
    assert decided(policy, REVIEWER, WRITE)[0] == "notify"
    assert decided(policy, AUDITOR, LOOKUP)[0] == "auto"


def test_a_rule_may_loosen_the_default() -> None:
    """A rule saying auto runs an undeclared tool without asking: rules override the default."""
    policy = PermissionPolicy([PermissionRule(tool="dispatch_agent", decision="auto")])
    assert decided(policy, AUDITOR, UNDECLARED) == ("auto", "rule:0")


@pytest.mark.parametrize("reverse", [False, True])
def test_the_most_restrictive_matching_rule_wins_whatever_the_order(reverse: bool) -> None:
    """Rules auto for Reviewer and deny for delete_*: Reviewer's delete_note is denied."""
    rules = [
        PermissionRule(thinker=Reviewer, decision="auto", name="reviewers"),
        PermissionRule(tool="delete_*", decision="deny", name="no-deletes"),
    ]
    policy = PermissionPolicy(reversed(rules) if reverse else rules)
    assert decided(policy, REVIEWER, DELETE) == ("deny", "rule:no-deletes")
    assert decided(policy, REVIEWER, WRITE) == ("auto", "rule:reviewers")


def test_of_equally_restrictive_rules_the_first_is_named() -> None:
    """Two confirm rules match: the record names the first listed."""
    policy = PermissionPolicy(
        [
            PermissionRule(tool="write_*", decision="confirm", name="writes"),
            PermissionRule(risk="medium", decision="confirm", name="medium"),  # type: ignore[arg-type]  # a name, accepted
        ]
    )
    assert decided(policy, AUDITOR, WRITE) == ("confirm", "rule:writes")


def test_a_denying_rule_gives_the_model_its_reason() -> None:
    """The reason written on the rule reaches the model with the tool's name and a way on."""
    policy = PermissionPolicy(
        [PermissionRule(tool="delete_*", decision="deny", reason="deleting is done by a person")]
    )
    reason = policy.decide(AUDITOR, DELETE, {"key": "s3cr3t-key"}).reason
    assert reason == (
        "Calling 'delete_note' is denied by the permission policy: deleting is done by a "
        "person; choose another tool, or do the task without it."
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"decision": "allow"}, 'decision must be one of "auto", "notify", "confirm", "deny"'),
        ({"decision": "deny", "risk": "extreme"}, 'risk must be one of "low", "medium", "high"'),
        ({"decision": "deny", "tool": ""}, "tool must be a non-empty name or glob"),
        ({"decision": "deny", "source": 3}, "source must be a non-empty name or glob"),
        ({"decision": "deny", "thinker": 3}, "thinker must be a class"),
        ({"decision": "deny", "reason": None}, "reason must be a string"),
    ],
)
def test_a_misdeclared_rule_names_the_field_and_the_allowed_values(
    fields: dict[str, object], message: str
) -> None:
    """PermissionRule refuses a bad field with a MisuseError saying what is allowed."""
    with pytest.raises(GuardConfigError, match=message) as raised:
        PermissionRule(**fields)  # type: ignore[arg-type]  # wrong on purpose
    assert isinstance(raised.value, MisuseError)
