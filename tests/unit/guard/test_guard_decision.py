"""Unit tests of `Decision`: ordered by restriction, and read only from exact names."""

from __future__ import annotations

import pytest

from nucleo_core.guard import Decision
from nucleo_core.plugins.decision import checked_decision


def test_decisions_order_by_restriction_not_alphabetically() -> None:
    """The order is auto < notify < confirm < deny, so sorting and max follow restriction."""
    shuffled = [Decision.DENY, Decision.AUTO, Decision.CONFIRM, Decision.NOTIFY]
    assert sorted(shuffled) == [Decision.AUTO, Decision.NOTIFY, Decision.CONFIRM, Decision.DENY]
    assert max(shuffled) is Decision.DENY
    assert Decision.NOTIFY < Decision.CONFIRM <= Decision.CONFIRM < Decision.DENY
    assert [decision.rank for decision in Decision] == [0, 1, 2, 3]


def test_a_decision_compares_with_a_decision_name_by_restriction() -> None:
    """Decision.DENY > "notify" holds although "deny" < "notify" alphabetically."""
    assert Decision.DENY > "notify"
    assert Decision.AUTO < "notify"


@pytest.mark.parametrize("other", ["denied", 3, None])
def test_comparing_with_anything_else_raises(other: object) -> None:
    """A comparison with an unknown string or a non-string raises instead of guessing."""
    with pytest.raises(TypeError, match="compares only with a Decision"):
        Decision.AUTO.__lt__(other)  # the operator itself, without a reflected fallback


def test_most_restrictive_wins() -> None:
    """most_restrictive picks deny over confirm over notify over auto, names included."""
    assert Decision.most_restrictive("auto", Decision.NOTIFY) is Decision.NOTIFY
    assert Decision.most_restrictive(Decision.CONFIRM, "deny", "auto") is Decision.DENY
    assert Decision.most_restrictive("auto") is Decision.AUTO


@pytest.mark.parametrize("value", ["Deny", " deny", "DENY", "allow", ""])
def test_only_exact_names_are_decisions(value: str) -> None:
    """An answer that needs guessing is not a decision (the guard counts it as deny)."""
    with pytest.raises(ValueError, match='expected one of "auto", "notify"'):
        checked_decision(value)


@pytest.mark.parametrize("value", [True, 0, None, b"deny"])
def test_a_non_string_is_not_a_decision(value: object) -> None:
    """A bool, a number, None or bytes is refused with its type named."""
    with pytest.raises(TypeError, match=type(value).__name__):
        checked_decision(value)
