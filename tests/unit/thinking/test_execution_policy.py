"""`ExecutionPolicy`: timeouts and the concurrency cap, validated when built."""

from __future__ import annotations

import math

import pytest

from nucleo_core.thinking.execution import ExecutionPolicy


def test_defaults_are_a_minute_and_eight_at_once() -> None:
    """The default policy allows each call 60 s and eight calls at once."""
    policy = ExecutionPolicy()
    assert policy.timeout == 60.0
    assert policy.max_concurrency == 8
    assert dict(policy.per_tool_timeouts) == {}


def test_a_tool_timeout_overrides_the_default_and_none_lifts_it() -> None:
    """timeout_for prefers the tool's own timeout; None there means no limit."""
    policy = ExecutionPolicy(timeout=5, per_tool_timeouts={"slow": 120, "endless": None})
    assert policy.timeout_for("slow") == 120.0
    assert policy.timeout_for("endless") is None
    assert policy.timeout_for("other") == 5.0


def test_the_policy_is_frozen_and_keeps_no_reference_to_the_given_mapping() -> None:
    """Changing the mapping a policy was built from does not change the policy."""
    given = {"slow": 1.0}
    policy = ExecutionPolicy(per_tool_timeouts=given)
    given["slow"] = 99.0
    assert policy.timeout_for("slow") == 1.0
    with pytest.raises(AttributeError):
        policy.timeout = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        policy.per_tool_timeouts["x"] = 1.0  # type: ignore[index]


def test_equal_policies_compare_and_hash_equal() -> None:
    """Two policies built alike are equal, with equal hashes."""
    one = ExecutionPolicy(per_tool_timeouts={"a": 1})
    two = ExecutionPolicy(per_tool_timeouts={"a": 1.0})
    assert one == two
    assert hash(one) == hash(two)


@pytest.mark.parametrize("timeout", [0, -1, math.inf, math.nan])
def test_a_timeout_must_be_positive_and_finite(timeout: float) -> None:
    """A zero, negative, infinite or NaN timeout is refused."""
    with pytest.raises(ValueError, match="positive"):
        ExecutionPolicy(timeout=timeout)
    with pytest.raises(ValueError, match="tool 'x'"):
        ExecutionPolicy(per_tool_timeouts={"x": timeout})


@pytest.mark.parametrize("timeout", [True, "10"])
def test_a_timeout_must_be_a_number(timeout: object) -> None:
    """A boolean or a string is not a timeout."""
    with pytest.raises(TypeError):
        ExecutionPolicy(timeout=timeout)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("cap", "error"), [(0, ValueError), (-2, ValueError), (True, TypeError), (2.0, TypeError)]
)
def test_the_concurrency_cap_must_be_a_positive_int(cap: object, error: type[Exception]) -> None:
    """max_concurrency must be an int of at least 1."""
    with pytest.raises(error):
        ExecutionPolicy(max_concurrency=cap)  # type: ignore[arg-type]
