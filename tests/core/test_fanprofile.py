"""A profile's ``[fan]`` default curve: a step curve (Pi 5 kernel) or a piecewise-linear duty
against temperature (Jetson nvfancontrol), the latter run at the nearest level."""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.board import load_board
from thermogov.fanprofile import curve_from_points, fan_profile_to_dict, parse_fan_profile
from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table

BOARDS_DIR = Path(str(resources.files("thermogov.boards")))
NODES = {"cpu", "lid"}


def _fan(**over: Any) -> dict[str, Any]:
    t: dict[str, Any] = {
        "node": "lid",
        "curve_node": "cpu",
        "duty": [0, 64, 128, 255],
        "conductance_w_per_k": [0.0, 0.4, 0.7, 1.0],
        "power_w": [0.0, 0.1, 0.3, 1.0],
        "default_points_c": [40.0, 80.0],
        "default_points_pwm": [0, 255],
    }
    t.update(over)
    return {k: v for k, v in t.items() if v is not None}


@pytest.mark.parametrize(
    ("points", "pwm"),
    [([40.0, 80.0], [0, 255]), ([35.0, 74.0, 94.0, 95.0], [0, 187, 187, 255]), ([20.0, 60.0], [64, 128])],
)
def test_a_linear_curve_runs_the_fan_at_the_level_nearest_its_duty(
    points: list[float], pwm: list[float]
) -> None:
    duty = (0, 64, 128, 187, 255)
    curve = curve_from_points(tuple(points), tuple(pwm), duty, 0.0)
    for k in range(0, 1300):
        temp = 10.0 + k * 0.1
        want = float(np.interp(temp, points, pwm))  # the first/last duty held outside
        level = curve.target(temp, 0)
        # the chosen level's duty is the nearest to the curve's (steps are kept to 1 m°C)
        best = min(abs(d - want) for d in duty)
        assert abs(duty[level] - want) <= best + 0.1, (temp, want, level)


def test_a_level_the_curve_never_reaches_is_never_asked_for() -> None:
    curve = curve_from_points((40.0, 80.0), (0.0, 120.0), (0, 64, 128, 255), 0.0)
    assert curve.target(149.0, 0) == 2 and curve.target(30.0, 0) == 0


def test_the_jetson_devkit_curve_is_nvfancontrols_quiet_profile_and_round_trips() -> None:
    fan = load_board("jetson-orin-nano-devkit").fan
    assert fan is not None and fan.default_period_ms == 2000 and fan.default_curve.hyst_c == 0.0
    curve = fan.default_curve
    assert curve.target(34.0, 0) == 0  # off below Tj 35 °C
    assert fan.duty[curve.target(80.0, 0)] == 187  # the 74..94 °C plateau
    assert curve.target(96.0, 0) == fan.levels - 1  # full from 95 °C
    again = parse_fan_profile(
        Table(fan_profile_to_dict(fan), "fan"), {"cpu", "gpu", "package", "lid", "board"}
    )
    assert again == fan


def test_the_pi5_step_curve_is_unchanged() -> None:
    fan = load_board("rpi5-fan").fan
    assert fan is not None and fan.default_curve.on_c == (50.0, 60.0, 67.5, 75.0)
    assert fan.default_curve.hyst_c == 5.0 and fan.default_period_ms == 1000


@pytest.mark.parametrize(
    ("over", "fragment"),
    [
        ({"default_on_c": [50.0, 60.0, 70.0]}, "not both"),
        ({"default_points_pwm": [255, 0]}, "never fall"),
        ({"default_points_pwm": [0, 300]}, "0..255"),
        ({"default_points_c": [80.0, 40.0]}, "must ascend"),
        ({"default_points_c": [40.0]}, "two or more points"),
        ({"default_points_c": [40.0, math.nan]}, "default_points_c"),
        ({"default_points_c": None}, "default_points_c"),
    ],
)
def test_bad_linear_curves_are_refused_naming_the_key(over: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigError, match="default_points") as e:
        parse_fan_profile(Table(_fan(**over), "fan"), NODES)
    assert fragment in str(e.value)


def test_a_board_file_with_a_falling_fan_curve_exits_2(tmp_path: Path) -> None:
    text = (BOARDS_DIR / "jetson-orin-nano-devkit.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(
        text.replace("default_points_pwm = [0, 187, 187, 255]", "default_points_pwm = [0, 187, 100, 255]")
    )
    p = thermogov("sim", "--board", str(bad), "--duration", "5s", "--out", str(tmp_path / "out"))
    one_line_error(p, "default_points")


@pytest.mark.parametrize(
    ("over", "fragment"),
    [
        ({"kind": "analog"}, "fan.kind: 'analog' is not a fan kind"),
        (
            {
                "kind": "pwm",
                "default_points_c": None,
                "default_points_pwm": None,
                "default_on_c": [50, 60, 70],
            },
            "fan.kind",
        ),
        ({"default_step_pwm": 10}, "fan.default_step_pwm"),
        ({"kind": "pwm", "default_step_pwm": 300}, "fan.default_step_pwm"),
    ],
)
def test_a_bad_fan_kind_or_step_is_refused_naming_the_key(over: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_fan_profile(Table(_fan(**over), "fan"), {"cpu", "lid"})
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_the_devkit_fan_is_a_pwm_fan_ramped_by_nvfancontrols_step_and_the_pi5s_keeps_its_levels() -> None:
    devkit = load_board("jetson-orin-nano-devkit").fan
    assert devkit is not None and devkit.default_pwm is not None
    assert devkit.default_pwm.step_pwm == 10
    assert devkit.default_pwm.points_pwm == (0, 187, 187, 255) and devkit.default_pwm.hyst_c == 0.0
    pi5 = load_board("rpi5-fan").fan
    assert pi5 is not None and pi5.default_pwm is None
