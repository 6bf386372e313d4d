"""`run` says at start, once, that the board's input rail is missing (safe21c's leftover).

Before, only `doctor` said "no VDD_IN/POM_5V_IN rail found"; a run on a board whose input
rail's label failed to read, whose rail had nothing to read, or whose monitor names other rails
ended with an empty ``power_w`` and no energy figures, unsaid.  Now one warning at start from
the phrase doctor's "board power:" line uses (``hw/railabsent.py``).  A board with no power
monitor at all (a Pi) says nothing at run (nothing to miss), as before; doctor still shows it.
Each case through the installed script.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil

RAIL = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1"


def _run(tmp: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    cfg = tmp / "c.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), "--duration", "1"]
    done = procutil.run_cli("run", *args, env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done


def _doctor(tmp: Path, env: dict[str, str] | None = None) -> str:
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp / "root"), env=env)
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stdout.splitlines() if line.startswith("board power:"))


def _said(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if "board power:" in line]
    assert len(lines) == 1, stderr  # once, at start
    assert "warning" in lines[0] and "power_w" in lines[0] and "inferences_per_joule" in lines[0], lines[0]
    return lines[0]


def _same_phrase(run_line: str, doctor_line: str) -> None:
    why = doctor_line.removeprefix("board power: ").split("; the trace's")[0]
    assert why and why in run_line, (why, run_line)


def test_an_input_rail_label_that_fails_to_read_is_said_at_run_start(tmp_path: Path, shim: Path) -> None:
    fakesys.orin_nano(tmp_path / "root")
    rules = tmp_path / "faults"
    faultshim.write_rules(rules, [("hwmon1/in1_label", "r", errno.EIO)])
    env = faultshim.env(shim, rules, tmp_path / "root")
    line = _said(_run(tmp_path, env).stderr)  # main: nothing said
    assert "hwmon1/in1_label: read failed (EIO" in line, line
    _same_phrase(line, _doctor(tmp_path, env))


def test_an_input_rail_with_nothing_to_read_is_said_at_run_start(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    (t.root / RAIL / "in1_input").unlink()
    (t.root / RAIL / "curr1_input").unlink()
    line = _said(_run(tmp_path).stderr)
    assert "rail VDD_IN on hwmon1 has no power input" in line, line
    _same_phrase(line, _doctor(tmp_path))


def test_a_monitor_naming_other_rails_is_said_at_run_start(tmp_path: Path) -> None:
    # (an AGX Orin was the example until session 22b: its profile now says it has no input rail)
    t = fakesys.orin_nano(tmp_path / "root")
    (t.root / RAIL / "in1_label").write_text("VDD_MODULE\n")  # its INA3221 names no VDD_IN now
    line = _said(_run(tmp_path).stderr)
    # the profile names VDD_IN since session 22e, so the line names only that label
    assert "no VDD_IN rail found among the power monitor's rails" in line, line
    assert "VDD_MODULE on hwmon1" in line, line
    _same_phrase(line, _doctor(tmp_path))


@pytest.mark.parametrize("board", ["rpi5", "orin-nano"])
def test_no_line_where_the_rail_reads_or_no_monitor_is(tmp_path: Path, board: str) -> None:
    if board == "rpi5":
        fakesys.rpi5(tmp_path / "root")
        assert "no VDD_IN/POM_5V_IN rail found" in _doctor(tmp_path)  # doctor still shows it
    else:
        fakesys.orin_nano(tmp_path / "root")
    assert "board power" not in _run(tmp_path).stderr
