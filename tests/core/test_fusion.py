import pytest

from thermogov.fusion import Fusion, SensorSpec
from thermogov.interfaces import Reading

SPECS = (
    SensorSpec("cpu", 0.6, 100, 95.0),
    SensorSpec("gpu", 0.3, 150, 95.0),
    SensorSpec("battery", 0.1, 200, 60.0),
)


def fusion_with(values: dict[str, float], t: float = 0.0) -> Fusion:
    f = Fusion(SPECS)
    for name, v in values.items():
        f.update(Reading(name, v, t))
    return f


def test_weighted_mean_of_all_fresh_sensors() -> None:
    r = fusion_with({"cpu": 80.0, "gpu": 70.0, "battery": 40.0}).fuse(0.0)
    assert r.fused_c == pytest.approx((0.6 * 80 + 0.3 * 70 + 0.1 * 40) / 1.0)
    assert r.used == ("cpu", "gpu", "battery")
    assert r.used_label == "cpu+gpu+battery"


def test_missing_sensor_drops_out_and_weights_renormalise() -> None:
    r = fusion_with({"cpu": 80.0, "gpu": 70.0}).fuse(0.0)
    assert r.fused_c == pytest.approx((0.6 * 80 + 0.3 * 70) / 0.9)
    assert r.used == ("cpu", "gpu")


def test_stale_after_three_periods_not_before() -> None:
    f = fusion_with({"cpu": 80.0, "gpu": 70.0, "battery": 40.0}, t=0.0)
    # gpu period 150 ms -> stale after 450 ms; cpu after 300 ms; battery after 600 ms.
    assert f.fuse(0.300).used == ("cpu", "gpu", "battery")
    assert f.fuse(0.301).used == ("gpu", "battery")
    assert f.fuse(0.451).used == ("battery",)
    assert f.fuse(0.451).fused_c == pytest.approx(40.0)
    assert f.fuse(0.601).used == ()


def test_no_fresh_sensor_means_unknown() -> None:
    f = fusion_with({"cpu": 80.0})
    r = f.fuse(10.0)
    assert r.fused_c is None
    assert r.used == ()
    assert Fusion(SPECS).fuse(0.0).fused_c is None


def test_hard_limit_is_seen_even_when_the_mean_is_cool() -> None:
    r = fusion_with({"cpu": 95.0, "gpu": 60.0, "battery": 30.0}).fuse(0.0)
    assert r.fused_c == pytest.approx(78.0)  # the spec's example: the mean hides the hot die
    assert r.hot == ("cpu",)
    assert fusion_with({"cpu": 94.99, "gpu": 60.0}).fuse(0.0).hot == ()


def test_stale_hot_reading_does_not_count_as_hot() -> None:
    f = fusion_with({"cpu": 99.0, "gpu": 60.0}, t=0.0)
    f.update(Reading("gpu", 60.0, 1.0))
    assert f.fuse(1.0).hot == ()


BATTERY_KIND = (
    SensorSpec("cpu", 0.6, 100, 95.0),
    SensorSpec("gpu", 0.3, 150, 95.0),
    SensorSpec("battery", 0.1, 200, 60.0, kind="battery"),
)


def test_the_battery_alone_does_not_make_a_fused_value_when_the_die_sensors_are_lost() -> None:
    f = Fusion(BATTERY_KIND)
    f.update(Reading("battery", 35.0, 0.0))
    r = f.fuse(0.0)
    assert r.fused_c is None  # unknown: the governor's failsafe, not 35 °C and full clocks
    f.update(Reading("gpu", 88.0, 0.0))
    assert f.fuse(0.0).fused_c == pytest.approx((0.3 * 88 + 0.1 * 35) / 0.4)


def test_a_hot_battery_is_still_seen_when_it_cannot_govern_alone() -> None:
    f = Fusion(BATTERY_KIND)
    f.update(Reading("battery", 61.0, 0.0))
    r = f.fuse(0.0)
    assert r.fused_c is None and r.hot == ("battery",)


def test_a_board_with_only_a_battery_sensor_is_governed_by_it() -> None:
    f = Fusion((SensorSpec("battery", 1.0, 200, 60.0, kind="battery"),))
    f.update(Reading("battery", 35.0, 0.0))
    assert f.fuse(0.0).fused_c == pytest.approx(35.0)


def test_the_profile_kind_reaches_fusion() -> None:
    from thermogov.config import Config

    cfg = Config()
    specs = {s.name: s for s in cfg.sensor_specs(cfg.load_board())}
    assert specs["battery"].kind == "battery" and not specs["battery"].on_die
    assert specs["cpu"].on_die
