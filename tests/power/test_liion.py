"""Li-ion temperature windows: honoured (lowest caps when hot) and reported (events, summary)."""

from __future__ import annotations

from thermogov.battery import LiionLimiter
from thermogov.interfaces import PowerStatus
from thermogov.powerconfig import PowerConfig

TABLES = {"cpu": (100, 200, 300), "gpu": (10, 20)}
TOP = {"cpu": 300, "gpu": 20}
LOW = {"cpu": 100, "gpu": 10}


def _steps(lim: LiionLimiter, seq: list[tuple[str, float | None]]) -> list[tuple[dict[str, int], list[str]]]:
    return [
        lim.limit(i * 1.0, TOP, None, PowerStatus(state, 50.0, None, temp))
        for i, (state, temp) in enumerate(seq)
    ]


def test_charging_above_45_holds_lowest_caps_until_2_k_below() -> None:
    lim = LiionLimiter(PowerConfig(), TABLES)
    out = _steps(
        lim,
        [("charging", 44.0), ("charging", 45.5), ("charging", 44.0), ("charging", 42.9), ("charging", 42.0)],
    )
    assert [c for c, _ in out] == [TOP, LOW, LOW, TOP, TOP]
    assert [e for _, e in out] == [[], ["liion_limit:charging_hot"], [], ["liion_limit_end"], []]
    assert lim.summary() == {"liion_limit_crossings": {"charging_hot": 1}, "liion_outside_s": 2.0}


def test_the_same_temperature_is_fine_discharging_but_not_above_60() -> None:
    lim = LiionLimiter(PowerConfig(), TABLES)
    out = _steps(lim, [("discharging", 50.0), ("discharging", 60.5), ("full", 61.0), ("mains", 57.0)])
    assert [c for c, _ in out] == [TOP, LOW, LOW, TOP]
    assert lim.summary()["liion_limit_crossings"] == {"discharging_hot": 1}


def test_cold_is_reported_but_caps_are_left_to_warm_the_pack() -> None:
    lim = LiionLimiter(PowerConfig(), TABLES)
    out = _steps(lim, [("charging", -1.0), ("charging", 1.0), ("charging", 2.5), ("discharging", -25.0)])
    assert [c for c, _ in out] == [TOP, TOP, TOP, TOP]
    assert [e for _, e in out] == [
        ["liion_limit:charging_cold"],
        [],
        ["liion_limit_end"],
        ["liion_limit:discharging_cold"],
    ]


def test_no_temperature_no_limit() -> None:
    lim = LiionLimiter(PowerConfig(), TABLES)
    assert _steps(lim, [("discharging", None), ("charging", None)]) == [(TOP, []), (TOP, [])]


def test_configured_window() -> None:
    lim = LiionLimiter(PowerConfig(charge_max_c=40.0), TABLES)
    assert _steps(lim, [("charging", 41.0)])[0][0] == LOW
