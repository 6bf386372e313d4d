"""The one number format of the human tables."""

from __future__ import annotations

import math

import pytest

from thermogov.display import figure


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (2466.2593, "2466"),
        (72.04, "72.0"),
        (5.4321, "5.43"),
        (0.012345, "0.0123"),
        (99.96, "100"),
        (-3.14159, "-3.14"),
        (0.0, "0"),
        (7, "7"),
        (None, "n/a"),
        (math.nan, "n/a"),
        (math.inf, "inf"),
    ],
)
def test_three_significant_digits(x: float | None, text: str) -> None:
    assert figure(x) == text


def test_unit_is_appended() -> None:
    assert figure(2466.2593, " inf/s") == "2466 inf/s"
    assert figure(None, " °C") == "n/a"
