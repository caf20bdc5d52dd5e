"""Unit tests of `Risk`."""

import json

import pytest

from nucleo_core import Risk


@pytest.mark.parametrize(
    ("risk", "text"), [(Risk.LOW, "low"), (Risk.MEDIUM, "medium"), (Risk.HIGH, "high")]
)
def test_a_risk_reads_as_its_lowercase_name(risk: Risk, text: str) -> None:
    """A risk is its plain string in text, comparisons and JSON."""
    assert str(risk) == text
    assert f"{risk}" == text
    assert risk == text
    assert Risk(text) is risk
    assert json.dumps(risk) == json.dumps(text)
