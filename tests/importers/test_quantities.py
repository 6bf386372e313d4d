"""Unit detection by value and plausible ranges: the one shared place (quantities.py)."""

from __future__ import annotations

import math

import pytest

from thermogov.importers.quantities import RangeCheck, detect_unit, in_range, unit_in_name, unit_named


@pytest.mark.parametrize(
    ("quantity", "values", "unit"),
    [
        ("temp", [45.2, 48.0, 61.5], "°C"),
        ("temp", [45200, 48000, 61500], "m°C"),
        ("temp", [600, 1500, 2000], None),  # a clock read as temperature: no unit fits
        ("freq", [600, 1500, 1800], "MHz"),
        ("freq", [600000, 1500000], "kHz"),
        ("freq", [600_000_000, 1_500_345_728], "Hz"),
        ("freq", [1.2, 1.5, 2.4], "GHz"),
        ("power", [2.6, 4.8], "W"),
        ("power", [2604, 4815], "mW"),
        ("power", [2_604_000, 4_815_000], "µW"),
        ("load", [0.0, 12.5, 100.0], "%"),
        ("load", [0.0, 0.125, 1.0], "fraction"),
        ("load", [0, 1, 0, 1], "%"),  # integers 0/1 are not proof of a fraction
    ],
)
def test_unit_by_value(quantity: str, values: list[float], unit: str | None) -> None:
    got = detect_unit(quantity, values)
    assert (got.name if got else None) == unit


def test_one_outlier_cannot_flip_a_column() -> None:
    u = detect_unit("temp", [48.0, 49.0, 50.0, 51.0, 65535.0])
    assert u is not None and u.name == "°C"


def test_nan_and_inf_are_ignored_by_detection_and_out_of_range() -> None:
    u = detect_unit("temp", [float("nan"), 48.0, float("inf"), 49.0])
    assert u is not None and u.name == "°C"
    assert not in_range("temp", float("nan")) and not in_range("temp", math.inf)
    assert detect_unit("temp", [float("nan")]) is None


@pytest.mark.parametrize(
    ("name", "hit"),
    [
        ("CPU Temperature (°C)", ("temp", "°C")),
        ("temp [mC]", ("temp", "m°C")),
        ("freq_mhz", ("freq", "MHz")),
        ("cpu_khz", ("freq", "kHz")),
        ("Power (mW)", ("power", "mW")),
        ("usage %", ("load", "%")),
        ("tmp", None),
    ],
)
def test_units_in_names(name: str, hit: tuple[str, str] | None) -> None:
    assert unit_in_name(name) == hit


def test_range_check_counts_and_names_what_it_dropped() -> None:
    check = RangeCheck()
    kept = [v for v in (48.0, 2000.0, -273.0, 50.0) if check.keep("temp", "cpu", v)]
    assert kept == [48.0, 50.0]
    assert check.notes() == ["cpu temp: 2 value(s) outside -40..150 °C (e.g. 2000) not imported"]
    assert unit_named("freq", "kHz") is not None and unit_named("temp", "kHz") is None
