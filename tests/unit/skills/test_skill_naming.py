"""Unit tests of the Agent Skills name rules (`skill_name_problem`, `SKILL_NAME_PATTERN`)."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core.skills import SKILL_NAME_MAX_LENGTH, SKILL_NAME_PATTERN, skill_name_problem

#: The specification's rule, written out independently of the implementation under test.
SPEC_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")

name_like = st.text(alphabet="abz09-_A. é\n", max_size=70) | st.from_regex(
    SPEC_NAME, fullmatch=True
)


def _spec_accepts(name: str) -> bool:
    return 1 <= len(name) <= 64 and SPEC_NAME.fullmatch(name) is not None


@given(name_like)
def test_the_rule_by_rule_check_agrees_with_the_spec_regex(name: str) -> None:
    """skill_name_problem accepts exactly the names the spec's regex and length limit accept."""
    assert (skill_name_problem(name) is None) == _spec_accepts(name)


@given(name_like)
def test_the_published_pattern_agrees_with_the_spec(name: str) -> None:
    """SKILL_NAME_PATTERN, with the length limit, accepts exactly what the spec accepts."""
    published = re.fullmatch(SKILL_NAME_PATTERN, name) is not None
    assert (published and len(name) <= SKILL_NAME_MAX_LENGTH) == _spec_accepts(name)


@pytest.mark.parametrize("name", ["a", "pdf-processing", "1password", "v2-beta-3", "x" * 64])
def test_names_the_spec_allows_have_no_problem(name: str) -> None:
    """Lowercase letters and digits joined by single hyphens, up to 64 characters, are valid."""
    assert skill_name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "empty"),
        ("x" * 65, "65 characters; at most 64"),
        ("PDF", "'D', 'F', 'P'"),
        ("pdf processing", "' '"),
        ("café", "'é'"),
        ("-pdf", "starts or ends with a hyphen"),
        ("pdf-", "starts or ends with a hyphen"),
        ("pdf--processing", "consecutive hyphens"),
    ],
)
def test_each_broken_rule_is_named(name: str, reason: str) -> None:
    """The problem names the rule broken, and the offending characters, not just 'invalid'."""
    problem = skill_name_problem(name)

    assert problem is not None
    assert reason in problem
