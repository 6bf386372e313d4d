"""A fan the report shows but the training part never sees act still comes with its switching law."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.board import load_board
from thermogov.importers import parse_log
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.enclosure import candidates
from thermogov.sim.calibration.fit import calibrate

PI5_TITLE = "sbc-bench v0.9.68 Raspberry Pi 5 Model B Rev 1.1 (Thu, 09 Jan 2025 02:06:18 -0600)"
PI4_TITLE = "sbc-bench v0.9.2 RPi 4 Model B Rev 1.4 / BCM2711 rev B0 (Sat, 22 Jan 2022 10:44:23 -0500)"
HEADER = "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore"


def monitor(clock_mhz: int) -> str:
    """40 rows 10 s apart: idle at 40 °C, then a full load rising to 48 °C by row 20 and to 62 °C by the end.

    With the first half as training the temperature stays below every fan step of the profiles
    (the Pi 5 curve's first step is 50 °C, the gpio-fan overlay's 55 °C): the fan never acts there."""
    rows = []
    for i in range(40):
        busy = i >= 8
        temp = 40.0 if not busy else 40.0 + min(i - 8, 12) * 8.0 / 12 + max(i - 20, 0) * 0.7
        cpu = 95 if busy else 3
        rows.append(
            f"02:{10 + i // 6:02d}:{(i % 6) * 10:02d}: {clock_mhz}/{clock_mhz}MHz  1.00  {cpu:>2}%   0%  "
            f"{cpu:>2}%   0%   0%   0%  {temp:.1f}°C  0.8768V"
        )
    return "\n".join(["System health while running 7-zip multi core benchmark:", "", HEADER, *rows, ""])


def report(title: str, hardware: str, clock_mhz: int, config: str = "") -> str:
    sensors = f"Hardware sensors:\n\n{hardware}\n\n{'#' * 74}\n\n" if hardware else ""
    return f"{title}\n\n{config}\n\n{sensors}{monitor(clock_mhz)}"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "report.txt"
    path.write_text(text, encoding="utf-8")
    return path


STOPPED_FAN = "pwmfan-isa-0000\nfan1:           0 RPM\n\ncpu_thermal-virtual-0\ntemp1:        +40.0 C"
NO_FAN = "cpu_thermal-virtual-0\ntemp1:        +40.0 C\n\nthermal-fan-est-virtual-0\ntemp1:        +40.0 C"


def test_a_tachometer_at_0_rpm_picks_the_fan_housing_with_its_law(tmp_path: Path) -> None:
    data = load_log_data(write(tmp_path, report(PI5_TITLE, STOPPED_FAN, 2400)))
    assert data.fan_rpm == (0.0,) and data.fan_evidence
    result = calibrate(data, load_board("rpi5"), holdout=0.5)
    assert result.variant == "active-cooler"
    fan = result.board.fan
    assert fan is not None and fan.default_curve.on_c == (50.0, 60.0, 67.5, 75.0)  # fan_temp0..3
    assert any("the log shows a fan" in n for n in result.notes)


def test_without_fan_evidence_the_pre_fit_chooses_as_before(tmp_path: Path) -> None:
    """No tachometer line (a Jetson's virtual `thermal-fan-est` zone is not a fan): nothing changes."""
    data = load_log_data(write(tmp_path, report(PI5_TITLE, NO_FAN, 2400)))
    assert data.fan_evidence == "" and data.fan_switch_c is None
    result = calibrate(data, load_board("rpi5"), holdout=0.5)
    assert any("picked by a pre-fit" in n for n in result.notes)
    assert not any("the log shows a fan" in n for n in result.notes)


def test_the_gpio_fan_overlay_switches_the_fan_where_the_config_says(tmp_path: Path) -> None:
    config = "[all]\ndtoverlay=gpio-fan,gpiopin=14,temp=60000"
    data = load_log_data(write(tmp_path, report(PI4_TITLE, "", 1500, config)))
    assert data.fan_switch_c == (60.0, 10.0)  # hyst: the overlay's default 10000 m°C
    result = calibrate(data, load_board("rpi4"), holdout=0.5)
    assert result.variant == "gpio-fan"
    fan = result.board.fan
    assert fan is not None and fan.default_curve.on_c == (60.0,) and fan.default_curve.hyst_c == 10.0


@pytest.mark.parametrize(
    ("line", "switch"),
    [("dtoverlay=gpio-fan", (55.0, 10.0)), ("dtoverlay=gpio-fan,temp=65000,hyst=5000", (65.0, 5.0))],
)
def test_the_overlay_defaults_and_parameters_survive_a_run_folder(
    tmp_path: Path, line: str, switch: tuple
) -> None:
    log = parse_log(write(tmp_path, report(PI4_TITLE, "", 1500, line)))
    assert log.fan_switch_c == switch and "gpio-fan" in log.fan_evidence
    run = write_run_folder(log, tmp_path / "runs")
    again = load_log_data(run.run_dir)
    assert again.fan_switch_c == switch and again.fan_evidence == log.fan_evidence


def test_the_gpio_fan_housing_is_never_a_pre_fit_candidate(tmp_path: Path) -> None:
    board = load_board("rpi4")
    assert "gpio-fan" not in candidates(board)
    data = load_log_data(write(tmp_path, report(PI4_TITLE, "", 1500)))
    assert data.fan_evidence == ""
    assert calibrate(data, board, holdout=0.5).variant != "gpio-fan"


def test_a_misspelt_evidence_flag_names_the_field() -> None:
    from thermogov import tomlread
    from thermogov.board import parse_board
    from thermogov.interfaces import ConfigError

    table = tomlread.loads(
        (Path(__file__).parents[2] / "thermogov/boards/rpi4.toml").read_text(encoding="utf-8")
    )
    table["enclosures"]["gpio-fan"]["on_evidence_only"] = "yes"
    with pytest.raises(ConfigError, match=r"enclosures\.gpio-fan\.on_evidence_only: expected true or false"):
        parse_board(table, "rpi4.toml")
